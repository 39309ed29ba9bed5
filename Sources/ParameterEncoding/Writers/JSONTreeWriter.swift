// MARK: - JSONTreeWriter

/// Writes a ``JSONTree`` as the bytes `JSONEncoder` writes with `.sortedKeys`: object keys in
/// UTF-8 byte order (canonically equal keys written once, with their first spelling and last
/// value, as `JSONEncoder`'s dictionary keeps them), the escaping and numbers of ``JSONText``,
/// and its pretty-printed layout.
///
/// The walk is iterative, so a deep tree uses no more thread stack than a flat one.
struct JSONTreeWriter: ~Copyable {
    private let tree: JSONTree
    private let prettyPrinted: Bool
    private let escapingSlashes: Bool
    /// The JSON written so far.
    private(set) var output = ByteBuffer(capacity: 1_024)

    /// The output as `Data`, its storage handed over rather than copied.
    consuming func takeData() -> Data {
        output.takeData()
    }

    /// An open container: its position in the tree, the order of its entries and the next one.
    private struct Frame {
        let container: Int
        let isObject: Bool
        /// How many entries are written.
        let count: Int
        /// The positions of the entries whose keys are written, in writing order.
        let order: ChildOrder
        /// For an object with a repeated key, the positions of the values written, in writing
        /// order (a repeated key's last value); `nil` when they are ``order``'s.
        let values: [Int]?
        var next = 0

        init(container: Int, isObject: Bool, count: Int, order: ChildOrder = .asGiven, values: [Int]? = nil) {
            self.container = container
            self.isObject = isObject
            self.count = count
            self.order = order
            self.values = values
        }
    }

    init(tree: JSONTree, prettyPrinted: Bool, escapingSlashes: Bool) {
        self.tree = tree
        self.prettyPrinted = prettyPrinted
        self.escapingSlashes = escapingSlashes
    }

    /// Writes `root` and everything in it.
    mutating func write(_ root: JSONTree.Value) {
        var stack: [Frame] = []
        if let frame = open(root) { stack.append(frame) }
        while let top = stack.indices.last {
            let next = stack[top].next
            guard next < stack[top].count else {
                let frame = stack.removeLast()
                close(frame, depth: stack.count)
                continue
            }
            stack[top].next = next + 1
            if next > 0 { output.append(UInt8(ascii: ",")) }
            if prettyPrinted { JSONText.appendNewline(indent: stack.count, to: &output) }
            let container = stack[top].container
            let keyIndex = stack[top].order.slot(next)
            let valueIndex = stack[top].values?[next] ?? keyIndex
            if stack[top].isObject {
                JSONText.appendString(tree.containers[container].entries[keyIndex].key, escapingSlashes: escapingSlashes, to: &output)
                if prettyPrinted {
                    output.append(" : ")
                } else {
                    output.append(UInt8(ascii: ":"))
                }
            }
            if let nested = open(tree.containers[container].entries[valueIndex].value) { stack.append(nested) }
        }
    }

    /// Writes a scalar, or opens a container and returns its frame.
    private mutating func open(_ value: JSONTree.Value) -> Frame? {
        switch value {
        case .null: output.append("null")
        case .bool(let bool): output.append(bool ? "true" : "false")
        case .string(let string): JSONText.appendString(string, escapingSlashes: escapingSlashes, to: &output)
        case .integer(let integer): DecimalDigits.append(integer, to: &output)
        case .unsigned(let unsigned): DecimalDigits.append(unsigned, to: &output)
        case .double(let double): JSONText.appendNumber(double, to: &output)
        case .float(let float): JSONText.appendNumber(float, to: &output)
        case .numberText(let text): output.append(text)
        case .nothing:
            // Not in a tree `JSONTreeEncoder` makes; what `JSONEncoder` writes for a value that
            // encodes nothing, an empty object.
            output.append(UInt8(ascii: "{"))
            return Frame(container: -1, isObject: true, count: 0)
        case .container(let index):
            let isObject = tree.containers[index].isObject
            output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            return isObject ? Self.objectFrame(index, tree.containers[index].entries)
                : Frame(container: index, isObject: false, count: tree.containers[index].entries.count)
        }
        return nil
    }

    private mutating func close(_ frame: Frame, depth: Int) {
        if prettyPrinted {
            // `JSONEncoder` writes an empty container as an empty line, as `JSONSerialization` does.
            if frame.count == 0 { output.append(UInt8(ascii: "\n")) }
            JSONText.appendNewline(indent: depth, to: &output)
        }
        output.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    // MARK: Key order

    /// The frame of the object at `index`: ASCII keys, each once, the common case, in the order
    /// the query writer sorts them in (``KeyOrder``); any other keys by ``writingOrder(_:)``.
    private static func objectFrame(_ index: Int, _ entries: [JSONTree.Entry]) -> Frame {
        if let (order, repeatsKeys) = KeyOrder.asciiWritingOrder(entries), !repeatsKeys {
            return Frame(container: index, isObject: true, count: entries.count, order: order)
        }
        let order = writingOrder(entries)
        return Frame(container: index, isObject: true, count: order.count, order: .positions(order.map(\.key)), values: order.map(\.value))
    }

    /// The entries to write, in key order, one per distinct key: for a key given more than once,
    /// its first spelling (`key`) and its last value (`value`).
    static func writingOrder(_ entries: [JSONTree.Entry]) -> [(key: Int, value: Int)] {
        guard entries.count > 1 else { return entries.indices.map { ($0, $0) } }
        var isASCII = true
        let sorted: [Int] = entries.withUnsafeBufferPointer { entries in
            withUnsafeTemporaryAllocation(of: KeyOrder.Prefix.self, capacity: entries.count) { prefixes in
                for index in entries.indices {
                    var prefix = KeyOrder.Prefix(index: index)
                    var position = 0
                    for byte in entries[index].key.utf8 {
                        if byte >= 0x80 { isASCII = false }
                        prefix.add(byte, at: position)
                        position += 1
                    }
                    prefixes.initializeElement(at: index, to: prefix)
                }
                // Equal keys stay in encoding order.
                KeyOrder.sort(prefixes) { KeyOrder.compareBytes(entries[$0].key, entries[$1].key) }
                return prefixes.map(\.index)
            }
        }
        return isASCII ? droppingRepeatedKeys(sorted, entries) : droppingEquivalentKeys(sorted, entries)
    }

    /// Byte-equal keys are next to each other, in encoding order: the last of each run is written.
    private static func droppingRepeatedKeys(_ sorted: [Int], _ entries: [JSONTree.Entry]) -> [(key: Int, value: Int)] {
        var order: [(key: Int, value: Int)] = []
        order.reserveCapacity(sorted.count)
        for position in sorted.indices {
            let index = sorted[position]
            if position + 1 < sorted.count, entries[sorted[position + 1]].key.utf8.elementsEqual(entries[index].key.utf8) {
                continue
            }
            order.append((index, index))
        }
        return order
    }

    /// Keys that are canonically equal (`"é"` and `"e\u{301}"`) are one key to `JSONEncoder`'s
    /// dictionary: the first spelling stays, in its place in the order, and the last value wins.
    private static func droppingEquivalentKeys(_ sorted: [Int], _ entries: [JSONTree.Entry]) -> [(key: Int, value: Int)] {
        var firstOfKey: [String: Int] = [:]
        var lastOfKey: [String: Int] = [:]
        for index in entries.indices {
            if firstOfKey[entries[index].key] == nil { firstOfKey[entries[index].key] = index }
            lastOfKey[entries[index].key] = index
        }
        return sorted.compactMap { index in
            let key = entries[index].key
            guard firstOfKey[key] == index, let last = lastOfKey[key] else { return nil }
            return (index, last)
        }
    }
}
