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
    /// The tree whose containers ``ParameterChildren/Values/tree(_:)`` children come from, when
    /// the query is an `Encodable` value's (``URLEncodedFormEncoder``).
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
        var cursor: ChildCursor
        /// Length of ``QueryWriter/key`` for the container itself.
        let keyMark: Int
        /// The container's key, unescaped and escaped; kept only for custom array keys, which
        /// replace the whole key rather than extend it.
        let rawKey: String
        let savedKey: [UInt8]?
        let isTopLevel: Bool

        init(_ children: ParameterChildren, keyMark: Int, rawKey: String, savedKey: [UInt8]?, isTopLevel: Bool) {
            self.cursor = ChildCursor(children, sortingKeysWith: KeyOrder.writingOrder)
            self.keyMark = keyMark
            self.rawKey = rawKey
            self.savedKey = savedKey
            self.isTopLevel = isTopLevel
        }
    }

    /// A container met while writing, to be walked next.
    struct OpenedContainer {
        let children: ParameterChildren
        /// Its unescaped key, for custom array keys.
        let rawKey: String
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
        key.truncate(to: 0)
        // The open containers, outermost first, the one being written last: the walk keeps them
        // here rather than on the call stack, so every depth uses the same small amount of
        // stack. Frames are written in place and never copied.
        var frames: [Frame] = []
        frames.reserveCapacity(8)
        frames.append(Frame(root, keyMark: 0, rawKey: "", savedKey: nil, isTopLevel: true))
        while let top = frames.indices.last {
            guard let opened = try writeChildren(of: &frames[top]) else {
                frames.removeLast()
                continue
            }
            guard frames.count < ParameterEncodingError.maximumDepth else {
                throw ParameterEncodingError(
                    .nestingTooDeep,
                    detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                    path: frames.map(\.cursor.lastComponent)
                )
            }
            guard opened.children.count > 0 else { continue }
            frames.append(Frame(opened.children, keyMark: key.count, rawKey: opened.rawKey,
                                savedKey: tracksRawKey ? key.bytes : nil, isTopLevel: false))
        }
    }

    /// Writes the children of `frame` from its cursor on, until one of them is a container to
    /// walk into (returned, with the cursor past it) or none are left (`nil`). The container's
    /// arrays are read from locals here, so walking its children does not retain them each time.
    private mutating func writeChildren(of frame: inout Frame) throws -> OpenedContainer? {
        let children = frame.cursor.children
        let order = frame.cursor.order
        let isKeyed = children.isKeyed
        let keys = children.keys
        // A tree container's entries hold its keys and values; read once, not per child.
        let entries: [JSONTree.Entry]
        let isTree: Bool
        if case .tree(let treeEntries) = children.values {
            entries = treeEntries
            isTree = true
        } else {
            entries = []
            isTree = false
        }
        while frame.cursor.next < children.count {
            let index = frame.cursor.next
            frame.cursor.next = index + 1
            if let savedKey = frame.savedKey {
                key.replace(with: savedKey)
            } else {
                key.truncate(to: frame.keyMark)
            }
            let slot = order.slot(index)
            var rawKey = ""
            if isKeyed {
                let name = isTree ? entries[slot].key : keys[slot]
                if frame.isTopLevel {
                    escaping.append(name, to: &key)
                    if tracksRawKey { rawKey = name }
                } else {
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
                    if tracksRawKey { rawKey = frame.rawKey + keyPathEncoding.encode(name) }
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
                    rawKey = makeKey(frame.rawKey, index)
                    key.truncate(to: 0)
                    escaping.append(rawKey, to: &key)
                }
            }
            let opened = isTree ? write(entries, at: slot) : try write(children.values, at: slot)
            if let opened { return OpenedContainer(children: opened, rawKey: rawKey) }
        }
        return nil
    }

    /// Writes the child at `slot`, or returns it if it is a container.
    @inline(__always)
    private mutating func write(_ values: ParameterChildren.Values, at slot: Int) throws -> ParameterChildren? {
        switch values {
        case .sendable(let values): return try write(sendable: values[slot])
        case .any(let values): return try write(values[slot])
        case .strings(let values):
            writePair(text: values[slot])
            return nil
        case .tree(let entries): return write(entries, at: slot)
        }
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
