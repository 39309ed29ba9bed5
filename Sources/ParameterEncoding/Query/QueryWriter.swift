// MARK: - QueryWriter

/// Flattens parameters into `key=value&key=value` bytes in one pass.
///
/// The escaped key of the current position is kept in ``key`` and grows and shrinks as the
/// writer descends into containers, so nested keys like `a[b][]` are never built as strings and
/// never escaped twice. Errors carry the key path, which each level adds while the error travels up.
struct QueryWriter {
    let escaping: URLEncoding.Escaping
    let arrayEncoding: URLEncoding.ArrayEncoding
    let boolEncoding: URLEncoding.BoolEncoding
    let nilEncoding: URLEncoding.NilEncoding

    /// The query written so far.
    var output: [UInt8] = []
    /// The escaped key of the value being written.
    private var key: [UInt8] = []
    /// The unescaped key, kept only for ``URLEncoding/ArrayEncoding/custom(_:)``, which is given it.
    private var rawKey = ""
    private let tracksRawKey: Bool
    /// Whether integers can be written without consulting the escaping table.
    private let digitsAreAllowed: Bool
    private let openBracket: [UInt8]
    private let closeBracket: [UInt8]

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
        try parameters.writeQueryEntries(into: &self, depth: 1)
    }

    /// Writes pairs in the order given; nested dictionaries are still sorted.
    mutating func write<Pairs: Sequence>(orderedPairs pairs: Pairs) throws where Pairs.Element == (String, any Sendable) {
        for (name, value) in pairs {
            try writeTopLevel(name, value, depth: 1)
        }
    }

    /// Writes one top-level key and its value.
    mutating func writeTopLevel(_ name: String, _ value: Any, depth: Int) throws {
        key.removeAll(keepingCapacity: true)
        escaping.append(name, to: &key)
        if tracksRawKey { rawKey = name }
        do {
            try write(value, depth: depth)
        } catch var error as ParameterEncodingError {
            error.prepend(.key(name))
            throw error
        }
    }

    // MARK: Containers

    /// Checks the depth of a container about to be entered.
    func enter(depth: Int) throws {
        guard depth <= ParameterEncodingError.maximumDepth else {
            throw ParameterEncodingError(
                .nestingTooDeep,
                detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                path: []
            )
        }
    }

    /// Writes `value` under `key[name]`, or `name` at the top level (`depth == 1`).
    mutating func writeEntry(_ name: String, _ value: Any, depth: Int) throws {
        if depth == 1 {
            return try writeTopLevel(name, value, depth: depth)
        }
        let mark = key.count
        key.append(contentsOf: openBracket)
        escaping.append(name, to: &key)
        key.append(contentsOf: closeBracket)
        let savedRawKey = rawKey
        if tracksRawKey { rawKey += "[" + name + "]" }
        defer {
            key.removeSubrange(mark...)
            if tracksRawKey { rawKey = savedRawKey }
        }
        do {
            try write(value, depth: depth)
        } catch var error as ParameterEncodingError {
            error.prepend(.key(name))
            throw error
        }
    }

    /// Writes the element at `index` of an array under the key `arrayEncoding` gives it.
    mutating func writeElement(at index: Int, _ value: Any, depth: Int) throws {
        if case .custom(let makeKey) = arrayEncoding {
            let savedKey = key
            let savedRawKey = rawKey
            defer {
                key = savedKey
                rawKey = savedRawKey
            }
            rawKey = makeKey(rawKey, index)
            key = []
            escaping.append(rawKey, to: &key)
            return try writeElementValue(at: index, value, depth: depth)
        }
        let mark = key.count
        defer { key.removeSubrange(mark...) }
        switch arrayEncoding {
        case .brackets:
            key.append(contentsOf: openBracket)
            key.append(contentsOf: closeBracket)
        case .indexInBrackets:
            key.append(contentsOf: openBracket)
            appendInteger(index, to: &key)
            key.append(contentsOf: closeBracket)
        case .noBrackets, .custom:
            break
        }
        try writeElementValue(at: index, value, depth: depth)
    }

    private mutating func writeElementValue(at index: Int, _ value: Any, depth: Int) throws {
        do {
            try write(value, depth: depth)
        } catch var error as ParameterEncodingError {
            error.prepend(.index(index))
            throw error
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
        appendInteger(integer, to: &output)
    }

    /// Writes a pair for a boolean, as `1`/`0` or `true`/`false`.
    mutating func writePair(bool: Bool) {
        beginPair()
        switch (boolEncoding, bool) {
        case (.numeric, true): appendASCII("1", to: &output)
        case (.numeric, false): appendASCII("0", to: &output)
        case (.literal, true): appendASCII("true", to: &output)
        case (.literal, false): appendASCII("false", to: &output)
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
            appendASCII("null", to: &output)
        }
    }

    // MARK: Bytes

    private func appendASCII(_ text: StaticString, to target: inout [UInt8]) {
        text.withUTF8Buffer { escaping.append($0, to: &target) }
    }

    /// Writes an integer's decimal digits without going through `String`.
    private func appendInteger<Integer: BinaryInteger>(_ value: Integer, to target: inout [UInt8]) {
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
