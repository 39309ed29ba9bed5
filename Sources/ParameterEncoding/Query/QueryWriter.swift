// MARK: - QueryWriter

/// Flattens parameters into `key=value&key=value` bytes in one pass.
///
/// The walk is iterative: open containers live in ``parents``, not on the call stack, so any depth
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
    /// The container being walked, and the ones that hold it, outermost first.
    private var current = Frame(.indexed([Any]()), keyMark: 0, rawKey: "", savedKey: nil, isTopLevel: true)
    private var parents: [Frame] = []
    /// Whether keys must also be kept unescaped, for ``URLEncoding/ArrayEncoding/custom(_:)``.
    private let tracksRawKey: Bool
    /// Whether integers can be written without consulting the escaping table.
    private let digitsAreAllowed: Bool

    /// An open container, the position of the next child to write, and the key it sits under.
    private struct Frame {
        var cursor: ChildCursor
        /// Length of ``QueryWriter/key`` for the container itself.
        let keyMark: Int
        /// The container's key, unescaped and escaped; kept only for custom array keys, which
        /// replace the whole key rather than extend it.
        let rawKey: String
        let savedKey: [UInt8]?
        let isTopLevel: Bool

        init(_ children: ParameterChildren, keyMark: Int, rawKey: String, savedKey: [UInt8]?, isTopLevel: Bool) {
            self.cursor = ChildCursor(children, sortingKeysWith: KeyOrder.sortedIndices)
            self.keyMark = keyMark
            self.rawKey = rawKey
            self.savedKey = savedKey
            self.isTopLevel = isTopLevel
        }
    }

    init(_ encoding: URLEncoding, capacity: Int = 0) {
        escaping = encoding.escaping
        arrayEncoding = encoding.arrayEncoding
        boolEncoding = encoding.boolEncoding
        nilEncoding = encoding.nilEncoding
        if case .custom = encoding.arrayEncoding { tracksRawKey = true } else { tracksRawKey = false }
        digitsAreAllowed = "-0123456789".utf8.allSatisfy(escaping.allows)
        output.reserveCapacity(capacity)
        key.reserveCapacity(64)
    }

    // MARK: Walk

    /// Writes the children of the top level: `.parameters(_:)` sorts them, `.ordered(_:)` keeps
    /// the caller's order. Nested dictionaries are always sorted.
    mutating func write(_ root: ParameterChildren) throws {
        key.removeAll(keepingCapacity: true)
        parents.removeAll(keepingCapacity: true)
        current = Frame(root, keyMark: 0, rawKey: "", savedKey: nil, isTopLevel: true)
        while true {
            let index = current.cursor.next
            guard index < current.cursor.children.count else {
                guard let parent = parents.popLast() else { return }
                current = parent
                continue
            }
            current.cursor.next = index + 1
            if let savedKey = current.savedKey {
                key = savedKey
            } else {
                key.removeSubrange(current.keyMark...)
            }
            let slot = current.cursor.slot(index)
            var rawKey = ""
            if current.cursor.children.isKeyed {
                if current.isTopLevel {
                    escaping.append(current.cursor.children.keys[slot], to: &key)
                    if tracksRawKey { rawKey = current.cursor.children.keys[slot] }
                } else {
                    escaping.append(byte: UInt8(ascii: "["), to: &key)
                    escaping.append(current.cursor.children.keys[slot], to: &key)
                    escaping.append(byte: UInt8(ascii: "]"), to: &key)
                    if tracksRawKey { rawKey = current.rawKey + "[" + current.cursor.children.keys[slot] + "]" }
                }
            } else {
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
                    rawKey = makeKey(current.rawKey, index)
                    key.removeAll(keepingCapacity: true)
                    escaping.append(rawKey, to: &key)
                }
            }
            switch current.cursor.children.values {
            case .sendable(let values): try write(sendable: values[slot], rawKey: rawKey)
            case .any(let values): try write(values[slot], rawKey: rawKey)
            }
        }
    }

    /// Opens a container below the current key.
    mutating func push(_ children: ParameterChildren, rawKey: String) throws {
        guard parents.count + 1 < ParameterEncodingError.maximumDepth else {
            throw ParameterEncodingError(
                .nestingTooDeep,
                detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                path: parents.map(\.cursor.lastComponent) + [current.cursor.lastComponent]
            )
        }
        guard children.count > 0 else { return }
        let frame = Frame(children, keyMark: key.count, rawKey: rawKey, savedKey: tracksRawKey ? key : nil, isTopLevel: false)
        parents.append(current)
        current = frame
    }

    // MARK: Pairs

    /// Starts a pair: separator, key, `=`.
    @inline(__always)
    private mutating func beginPair() {
        if !output.isEmpty { output.append(UInt8(ascii: "&")) }
        // Through a borrowed buffer: appending the array itself would retain and release it.
        key.withUnsafeBufferPointer { output.append(contentsOf: $0) }
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

    /// Writes an integer's decimal digits, escaped only if the table does not allow digits.
    private static func appendInteger<Integer: BinaryInteger>(
        _ value: Integer,
        to target: inout [UInt8],
        escaping: URLEncoding.Escaping,
        digitsAreAllowed: Bool
    ) {
        guard digitsAreAllowed else {
            return escaping.append(String(value), to: &target)
        }
        DecimalDigits.append(value, to: &target)
    }
}
