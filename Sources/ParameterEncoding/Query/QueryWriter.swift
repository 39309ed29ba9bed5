// MARK: - QueryWriter

/// Flattens parameters, or the tree of an `Encodable` value, into `key=value&key=value` bytes
/// in one pass.
///
/// The walk is iterative: open containers live on a stack of frames in ``write(_:)``, not on the
/// call stack, so any depth up to ``ParameterEncodingError/maximumDepth`` uses the same small
/// amount of thread stack. The
/// escaped key of the current position is kept in ``key`` and grows and shrinks as the walk
/// enters and leaves containers, so nested keys like `a[b][]` are never built as strings and
/// never escaped twice.
struct QueryWriter: ~Copyable {
    let escaping: URLEncoding.Escaping
    let arrayEncoding: URLEncoding.ArrayEncoding
    let boolEncoding: URLEncoding.BoolEncoding
    let nilEncoding: URLEncoding.NilEncoding
    /// How a nested key is joined to its parent's; only ``URLEncodedFormEncoder`` asks for
    /// anything but brackets.
    let keyPathEncoding: URLEncodedFormEncoder.KeyPathEncoding
    /// The tree whose containers a ``TreeContainer`` walk opens, when the query is an
    /// `Encodable` value's (``URLEncodedFormEncoder``).
    let tree: JSONTree?
    /// Whether the tree's objects are written with their keys sorted, or in encoding order.
    let sortsTreeKeys: Bool

    /// The query written so far.
    var output: ByteBuffer
    /// The escaped key of the value being written.
    private var key = ByteBuffer(capacity: 256)
    /// Whether keys must also be kept unescaped, for ``URLEncoding/ArrayEncoding/custom(_:)``.
    private let tracksRawKey: Bool
    /// Whether integers can be written without consulting the escaping table.
    private let digitsAreAllowed: Bool

    /// An open container, the position of the next child to write, and the key it sits under.
    private struct Frame {
        /// The container's children in writing order and the next one; for a tree container,
        /// only the order and the next position (the walk keeps its entries beside the frame).
        var cursor: ChildCursor
        /// Length of ``QueryWriter/key`` for the container itself.
        let keyMark: Int
        /// The container's key, unescaped and escaped; kept only for custom array keys, which
        /// replace the whole key rather than extend it.
        let rawKey: String
        let savedKey: [UInt8]?
        let isTopLevel: Bool
        /// Whether this is a tree container, whose entries the walk keeps beside the frame.
        let isTree: Bool

        init(_ children: ParameterChildren, keyMark: Int, rawKey: String, savedKey: [UInt8]?, isTopLevel: Bool) {
            self.cursor = ChildCursor(children, sortingKeysWith: KeyOrder.writingOrder)
            self.keyMark = keyMark
            self.rawKey = rawKey
            self.savedKey = savedKey
            self.isTopLevel = isTopLevel
            isTree = false
        }

        /// A frame for a tree container: an object or an array, its entries written in `order`.
        init(treeContainerIsObject isObject: Bool, order: ChildOrder, keyMark: Int, rawKey: String, savedKey: [UInt8]?,
             isTopLevel: Bool) {
            let shape = ParameterChildren(keys: [], values: .strings([]), ordering: isObject ? .given : .array)
            self.cursor = ChildCursor(shape, order: order)
            self.keyMark = keyMark
            self.rawKey = rawKey
            self.savedKey = savedKey
            self.isTopLevel = isTopLevel
            isTree = true
        }

        /// The component of the child most recently started, for key paths; `entries` are the
        /// container's if it is a tree container.
        func lastComponent(entries: [JSONTree.Entry]) -> KeyPathComponent {
            guard isTree else { return cursor.lastComponent }
            return cursor.children.isObject ? .key(entries[cursor.slot(cursor.next - 1)].key) : .index(cursor.next - 1)
        }
    }

    /// A container met while writing, to be walked next, and its unescaped key (for custom
    /// array keys).
    enum OpenedContainer {
        case parameters(ParameterChildren, rawKey: String)
        case tree(TreeContainer, rawKey: String)
    }

    init(_ encoding: URLEncoding, keyPathEncoding: URLEncodedFormEncoder.KeyPathEncoding = .brackets,
         tree: JSONTree? = nil, sortsTreeKeys: Bool = true, capacity: Int = 0) {
        self.keyPathEncoding = keyPathEncoding
        self.tree = tree
        self.sortsTreeKeys = sortsTreeKeys
        escaping = encoding.escaping
        arrayEncoding = encoding.arrayEncoding
        boolEncoding = encoding.boolEncoding
        nilEncoding = encoding.nilEncoding
        if case .custom = encoding.arrayEncoding { tracksRawKey = true } else { tracksRawKey = false }
        digitsAreAllowed = "-0123456789".utf8.allSatisfy(escaping.allows)
        output = ByteBuffer(capacity: capacity)
    }

    // MARK: Walk

    /// Writes the children of the top level: `.parameters(_:)` sorts them, `.ordered(_:)` keeps
    /// the caller's order. Nested dictionaries are always sorted.
    mutating func write(_ root: ParameterChildren) throws {
        try walk(from: Frame(root, keyMark: 0, rawKey: "", savedKey: nil, isTopLevel: true), entries: [])
    }

    /// Writes the entries of the top-level object of ``tree``.
    mutating func write(_ root: TreeContainer) throws {
        let (entries, order) = root.writingOrder(sortsKeys: sortsTreeKeys)
        try walk(from: Frame(treeContainerIsObject: root.isObject, order: order, keyMark: 0, rawKey: "", savedKey: nil, isTopLevel: true),
                 entries: [entries])
    }

    /// Writes the container of `root` and everything in it; `rootEntries` holds the root's
    /// entries if it is a tree container.
    private mutating func walk(from root: Frame, entries rootEntries: [[JSONTree.Entry]]) throws {
        key.truncate(to: 0)
        // The open containers, outermost first, the one being written last: the walk keeps them
        // here rather than on the call stack, so every depth uses the same small amount of
        // stack. Frames are written in place and never copied. A walk is all tree containers
        // or none; a tree container's entries (each key once) are kept beside its frame.
        var frames: [Frame] = []
        frames.reserveCapacity(8)
        frames.append(root)
        var entries = rootEntries
        while let top = frames.indices.last {
            let opened = frames[top].isTree ? writeTreeChildren(of: &frames[top], entries: entries[top])
                                            : try writeChildren(of: &frames[top])
            guard let opened else {
                if frames[top].isTree { entries.removeLast() }
                frames.removeLast()
                continue
            }
            guard frames.count < ParameterEncodingError.maximumDepth else {
                throw ParameterEncodingError(
                    .nestingTooDeep,
                    detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                    path: frames.indices.map { frames[$0].lastComponent(entries: frames[$0].isTree ? entries[$0] : []) }
                )
            }
            switch opened {
            case .parameters(let children, let rawKey):
                guard children.count > 0 else { continue }
                frames.append(Frame(children, keyMark: key.count, rawKey: rawKey,
                                    savedKey: tracksRawKey ? key.bytes : nil, isTopLevel: false))
            case .tree(let container, let rawKey):
                guard !container.entries.isEmpty else { continue }
                let (unique, order) = container.writingOrder(sortsKeys: sortsTreeKeys)
                frames.append(Frame(treeContainerIsObject: container.isObject, order: order, keyMark: key.count, rawKey: rawKey,
                                    savedKey: tracksRawKey ? key.bytes : nil, isTopLevel: false))
                entries.append(unique)
            }
        }
    }

    /// Writes the children of `frame` from its cursor on, until one of them is a container to
    /// walk into (returned, with the cursor past it) or none are left (`nil`). The container's
    /// arrays are read from locals here, so walking its children does not retain them each time.
    private mutating func writeChildren(of frame: inout Frame) throws -> OpenedContainer? {
        let children = frame.cursor.children
        let order = frame.cursor.order
        let keys = children.keys
        while frame.cursor.next < children.count {
            let index = frame.cursor.next
            frame.cursor.next = index + 1
            let slot = order.slot(index)
            let rawKey = keys.isEmpty ? beginElement(at: index, in: &frame) : beginChild(named: keys[slot], in: &frame)
            let opened: ParameterChildren?
            switch children.values {
            case .sendable(let values): opened = try write(sendable: values[slot])
            case .any(let values): opened = try write(values[slot])
            case .strings(let values):
                writePair(text: values[slot])
                opened = nil
            }
            if let opened { return .parameters(opened, rawKey: rawKey) }
        }
        return nil
    }

    /// ``writeChildren(of:)`` for a tree container, whose entries hold its keys and values.
    private mutating func writeTreeChildren(of frame: inout Frame, entries: [JSONTree.Entry]) -> OpenedContainer? {
        let order = frame.cursor.order
        let isObject = frame.cursor.children.isObject
        while frame.cursor.next < entries.count {
            let index = frame.cursor.next
            frame.cursor.next = index + 1
            let slot = order.slot(index)
            let rawKey = isObject ? beginChild(named: entries[slot].key, in: &frame) : beginElement(at: index, in: &frame)
            if let opened = write(entries, at: slot) { return .tree(opened, rawKey: rawKey) }
        }
        return nil
    }

    /// Makes ``key`` the key of `frame`'s container again, before a child's is added to it.
    @inline(__always)
    private mutating func restoreKey(of frame: inout Frame) {
        if let savedKey = frame.savedKey {
            key.replace(with: savedKey)
        } else {
            key.truncate(to: frame.keyMark)
        }
    }

    /// Makes ``key`` the key of the child of `frame` named `name`: the container's key joined
    /// with it. Returns the child's unescaped key when custom array keys need it, else "".
    @inline(__always)
    private mutating func beginChild(named name: String, in frame: inout Frame) -> String {
        restoreKey(of: &frame)
        if frame.isTopLevel {
            escaping.append(name, to: &key)
            return tracksRawKey ? name : ""
        }
        switch keyPathEncoding.style {
        case .brackets:
            escaping.append(byte: UInt8(ascii: "["), to: &key)
            escaping.append(name, to: &key)
            escaping.append(byte: UInt8(ascii: "]"), to: &key)
        case .dots:
            escaping.append(byte: UInt8(ascii: "."), to: &key)
            escaping.append(name, to: &key)
        case .custom(let join):
            escaping.append(join(name), to: &key)
        }
        return tracksRawKey ? frame.rawKey + keyPathEncoding.encode(name) : ""
    }

    /// Makes ``key`` the key of the array element at `index` of `frame`, as ``arrayEncoding``
    /// says. Returns the element's unescaped key when custom array keys need it, else "".
    @inline(__always)
    private mutating func beginElement(at index: Int, in frame: inout Frame) -> String {
        restoreKey(of: &frame)
        switch arrayEncoding {
        case .brackets:
            escaping.append(byte: UInt8(ascii: "["), to: &key)
            escaping.append(byte: UInt8(ascii: "]"), to: &key)
        case .noBrackets:
            break
        case .indexInBrackets:
            escaping.append(byte: UInt8(ascii: "["), to: &key)
            Self.appendInteger(index, to: &key, escaping: escaping, digitsAreAllowed: digitsAreAllowed)
            escaping.append(byte: UInt8(ascii: "]"), to: &key)
        case .custom(let makeKey):
            let rawKey = makeKey(frame.rawKey, index)
            key.truncate(to: 0)
            escaping.append(rawKey, to: &key)
            return rawKey
        }
        return ""
    }

    // MARK: Pairs

    /// Starts a pair: separator, key, `=`.
    @inline(__always)
    private mutating func beginPair() {
        if !output.isEmpty { output.append(UInt8(ascii: "&")) }
        output.append(key)
        output.append(UInt8(ascii: "="))
    }

    /// Writes a pair whose value is `text`, escaped.
    mutating func writePair(text: String) {
        beginPair()
        escaping.append(text, to: &output)
    }

    /// Writes a pair whose value is a decimal integer.
    mutating func writePair<Integer: BinaryInteger>(integer: Integer) {
        beginPair()
        Self.appendInteger(integer, to: &output, escaping: escaping, digitsAreAllowed: digitsAreAllowed)
    }

    /// Writes a pair for a boolean, as `1`/`0` or `true`/`false`.
    mutating func writePair(bool: Bool) {
        beginPair()
        switch (boolEncoding, bool) {
        case (.numeric, true): Self.appendASCII("1", to: &output, escaping: escaping)
        case (.numeric, false): Self.appendASCII("0", to: &output, escaping: escaping)
        case (.literal, true): Self.appendASCII("true", to: &output, escaping: escaping)
        case (.literal, false): Self.appendASCII("false", to: &output, escaping: escaping)
        }
    }

    /// Writes what `nilEncoding` says for `nil` or `NSNull`.
    mutating func writeNil() {
        switch nilEncoding {
        case .dropKey:
            break
        case .dropValue:
            beginPair()
        case .null:
            beginPair()
            Self.appendASCII("null", to: &output, escaping: escaping)
        }
    }

    // MARK: Bytes

    // Static, so that they can write to either buffer: `output` or `key`.

    private static func appendASCII(_ text: StaticString, to target: inout ByteBuffer, escaping: URLEncoding.Escaping) {
        text.withUTF8Buffer { escaping.append($0, to: &target) }
    }

    /// Writes an integer's decimal digits, escaped only if the table does not allow digits.
    private static func appendInteger<Integer: BinaryInteger>(
        _ value: Integer,
        to target: inout ByteBuffer,
        escaping: URLEncoding.Escaping,
        digitsAreAllowed: Bool
    ) {
        guard digitsAreAllowed else {
            return escaping.append(String(value), to: &target)
        }
        DecimalDigits.append(value, to: &target)
    }
}
