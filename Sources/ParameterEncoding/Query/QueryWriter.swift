// MARK: - QueryWriter

/// Flattens parameters into `key=value&key=value` bytes in one pass.
///
/// The walk is iterative: open containers live on ``stack``, not on the call stack, so any depth
/// up to ``ParameterEncodingError/maximumDepth`` uses the same small amount of thread stack. The
/// escaped key of the current position is kept in ``key`` and grows and shrinks as the walk
/// enters and leaves containers, so nested keys like `a[b][]` are never built as strings and
/// never escaped twice.
struct QueryWriter {
    let escaping: URLEncoding.Escaping
    let arrayEncoding: URLEncoding.ArrayEncoding
    let boolEncoding: URLEncoding.BoolEncoding
    let nilEncoding: URLEncoding.NilEncoding

    /// The query written so far.
    var output: [UInt8] = []
    /// The escaped key of the value being written.
    private var key: [UInt8] = []
    /// Open containers, outermost first.
    private var stack: [Frame] = []
    /// Whether keys must also be kept unescaped, for ``URLEncoding/ArrayEncoding/custom(_:)``.
    private let tracksRawKey: Bool
    /// Whether integers can be written without consulting the escaping table.
    private let digitsAreAllowed: Bool
    private let openBracket: [UInt8]
    private let closeBracket: [UInt8]

    /// An open container and the position of the next child to write.
    private struct Frame {
        let children: QueryChildren
        var next = 0
        /// Length of ``QueryWriter/key`` for the container itself.
        let keyMark: Int
        /// The container's key, unescaped and escaped; kept only for custom array keys, which
        /// replace the whole key rather than extend it.
        let rawKey: String
        let savedKey: [UInt8]?
        let isTopLevel: Bool
    }

    init(_ encoding: URLEncoding, capacity: Int = 0) {
        escaping = encoding.escaping
        arrayEncoding = encoding.arrayEncoding
        boolEncoding = encoding.boolEncoding
        nilEncoding = encoding.nilEncoding
        if case .custom = encoding.arrayEncoding { tracksRawKey = true } else { tracksRawKey = false }
        digitsAreAllowed = "-0123456789".utf8.allSatisfy(escaping.allows)
        var open: [UInt8] = []
        escaping.append(byte: UInt8(ascii: "["), to: &open)
        var close: [UInt8] = []
        escaping.append(byte: UInt8(ascii: "]"), to: &close)
        openBracket = open
        closeBracket = close
        output.reserveCapacity(capacity)
        key.reserveCapacity(64)
    }

    // MARK: Entry points

    /// Writes a dictionary's entries with keys sorted at every level.
    mutating func write(_ parameters: [String: any Sendable]) throws {
        try run(parameters.queryChildren)
    }

    /// Writes pairs in the order given; nested dictionaries are still sorted.
    mutating func write(orderedPairs pairs: [(key: String, value: Any)]) throws {
        try run(.keyed(pairs))
    }

    // MARK: Walk

    private mutating func run(_ root: QueryChildren) throws {
        key.removeAll(keepingCapacity: true)
        stack.removeAll(keepingCapacity: true)
        stack.append(Frame(children: root, keyMark: 0, rawKey: "", savedKey: nil, isTopLevel: true))
        while let top = stack.indices.last {
            let index = stack[top].next
            guard index < stack[top].children.count else {
                stack.removeLast()
                continue
            }
            stack[top].next = index + 1
            if let savedKey = stack[top].savedKey {
                key = savedKey
            } else {
                key.removeSubrange(stack[top].keyMark...)
            }
            var rawKey = ""
            let value: Any
            switch stack[top].children {
            case .keyed(let entries):
                let name = entries[index].key
                value = entries[index].value
                if stack[top].isTopLevel {
                    escaping.append(name, to: &key)
                    if tracksRawKey { rawKey = name }
                } else {
                    key.append(contentsOf: openBracket)
                    escaping.append(name, to: &key)
                    key.append(contentsOf: closeBracket)
                    if tracksRawKey { rawKey = stack[top].rawKey + "[" + name + "]" }
                }
            case .indexed(let elements):
                value = elements[index]
                switch arrayEncoding {
                case .brackets:
                    key.append(contentsOf: openBracket)
                    key.append(contentsOf: closeBracket)
                case .noBrackets:
                    break
                case .indexInBrackets:
                    key.append(contentsOf: openBracket)
                    Self.appendInteger(index, to: &key, escaping: escaping, digitsAreAllowed: digitsAreAllowed)
                    key.append(contentsOf: closeBracket)
                case .custom(let makeKey):
                    rawKey = makeKey(stack[top].rawKey, index)
                    key.removeAll(keepingCapacity: true)
                    escaping.append(rawKey, to: &key)
                }
            }
            try write(value, rawKey: rawKey)
        }
    }

    /// Opens a container below the current key.
    mutating func push(_ children: QueryChildren, rawKey: String) throws {
        guard stack.count < ParameterEncodingError.maximumDepth else {
            throw ParameterEncodingError(
                .nestingTooDeep,
                detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                path: currentPath()
            )
        }
        guard children.count > 0 else { return }
        stack.append(Frame(
            children: children,
            keyMark: key.count,
            rawKey: rawKey,
            savedKey: tracksRawKey ? key : nil,
            isTopLevel: false
        ))
    }

    /// The key path of the value being written, read off the open containers.
    private func currentPath() -> [KeyPathComponent] {
        stack.map { frame in
            switch frame.children {
            case .keyed(let entries): .key(entries[frame.next - 1].key)
            case .indexed: .index(frame.next - 1)
            }
        }
    }

    // MARK: Pairs

    /// Starts a pair: separator, key, `=`.
    @inline(__always)
    private mutating func beginPair() {
        if !output.isEmpty { output.append(UInt8(ascii: "&")) }
        output.append(contentsOf: key)
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

    // These helpers are static on purpose: an instance method called with `&output` would need
    // a copy of `self`, whose second reference to `output` makes every append copy the buffer.

    private static func appendASCII(_ text: StaticString, to target: inout [UInt8], escaping: URLEncoding.Escaping) {
        text.withUTF8Buffer { escaping.append($0, to: &target) }
    }

    /// Writes an integer's decimal digits without going through `String`.
    private static func appendInteger<Integer: BinaryInteger>(
        _ value: Integer,
        to target: inout [UInt8],
        escaping: URLEncoding.Escaping,
        digitsAreAllowed: Bool
    ) {
        guard digitsAreAllowed, let small = Int64(exactly: value) else {
            return escaping.append(String(value), to: &target)
        }
        if small < 0 { target.append(UInt8(ascii: "-")) }
        var magnitude = small.magnitude
        // Up to 20 digits, written backwards into a fixed-size scratch space.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = 20
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            target.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }
}
