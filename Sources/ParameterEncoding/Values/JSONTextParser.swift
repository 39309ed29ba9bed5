import Foundation

// MARK: - JSONTextParser

/// Parses one JSON value (RFC 8259) from UTF-8 bytes, keeping numbers as their text.
///
/// Stricter than the grammar in one place: a `\u` escape of an unpaired UTF-16 surrogate is
/// refused, since many receivers fail on it (RFC 8259 §8.2) and Swift cannot hold it in a string.
///
/// The walk is iterative: open containers live on an explicit stack, so any depth up to
/// ``ParameterEncodingError/maximumDepth`` uses the same small amount of thread stack.
struct JSONTextParser {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An array or object whose children are being read.
    private struct OpenContainer {
        var isObject: Bool
        var keys: [String] = []
        var values: [JSONTextNode] = []

        var node: JSONTextNode {
            isObject ? .object(keys: keys, values: values) : .array(values)
        }
    }

    /// Parses the whole input.
    ///
    /// - Returns: The value, and the range of bytes it spans without the whitespace around it.
    /// - Throws: ``ParameterEncodingError`` (``ParameterEncodingError/Code/invalidJSONText`` or
    ///   ``ParameterEncodingError/Code/nestingTooDeep``) saying what is wrong and where.
    mutating func parse() throws -> (node: JSONTextNode, range: Range<Int>) {
        skipWhitespace()
        guard position < bytes.count else {
            throw ParameterEncodingError(.invalidJSONText, detail: bytes.isEmpty ? "the text is empty" : "the text is only whitespace")
        }
        let start = position
        var stack: [OpenContainer] = []
        while true {
            var value: JSONTextNode
            switch try peek(expecting: "a value") {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[position] == UInt8(ascii: "{")
                guard stack.count < ParameterEncodingError.maximumDepth else {
                    throw ParameterEncodingError(
                        .nestingTooDeep,
                        detail: "arrays and objects nest deeper than \(ParameterEncodingError.maximumDepth) levels at byte \(position)"
                    )
                }
                position += 1
                skipWhitespace()
                if try peek(expecting: isObject ? "a key or \"}\"" : "a value or \"]\"") == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                    value = isObject ? .object(keys: [], values: []) : .array([])
                } else {
                    var container = OpenContainer(isObject: isObject)
                    if isObject { container.keys.append(try readKey()) }
                    stack.append(container)
                    continue
                }
            case UInt8(ascii: "\""):
                value = .string(try readString())
            case UInt8(ascii: "t"):
                try readLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try readLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try readLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try readNumber())
            default:
                throw unexpected(expecting: "a value")
            }
            // Attach the value to its container; close every container that ends here.
            while true {
                guard var top = stack.popLast() else {
                    let end = position
                    skipWhitespace()
                    guard position == bytes.count else { throw unexpected(expecting: "the end of the text after the value") }
                    return (value, start..<end)
                }
                top.values.append(value)
                skipWhitespace()
                let close = top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let separator = try peek(expecting: top.isObject ? "\",\" or \"}\"" : "\",\" or \"]\"")
                if separator == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                    if top.isObject { top.keys.append(try readKey()) }
                    stack.append(top)
                    break
                }
                guard separator == close else {
                    throw unexpected(expecting: top.isObject ? "\",\" or \"}\"" : "\",\" or \"]\"")
                }
                position += 1
                value = top.node
            }
        }
    }

    // MARK: Tokens

    /// A quoted key, the colon after it and the whitespace around the colon.
    private mutating func readKey() throws -> String {
        guard try peek(expecting: "a quoted key") == UInt8(ascii: "\"") else {
            throw unexpected(expecting: "a quoted key")
        }
        let key = try readString()
        skipWhitespace()
        guard try peek(expecting: "\":\" after the key") == UInt8(ascii: ":") else {
            throw unexpected(expecting: "\":\" after the key")
        }
        position += 1
        skipWhitespace()
        return key
    }

    private mutating func readLiteral(_ literal: StaticString) throws {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard bytes.count - position >= expected.count, bytes[position..<(position + expected.count)].elementsEqual(expected) else {
            throw unexpected(expecting: "a value")
        }
        position += expected.count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written.
    private mutating func readNumber() throws -> String {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw invalid("a number needs a digit after \"-\"", at: position)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw invalid("a number cannot start with a leading zero", at: start)
            }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw invalid("a number needs a digit after \".\"", at: position)
            }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw invalid("a number needs a digit in its exponent", at: position)
            }
            skipDigits()
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// A quoted string, from its opening quote; returns its decoded text.
    private mutating func readString() throws -> String {
        let start = position
        position += 1
        var decoded: [UInt8] = []
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                decoded.append(contentsOf: bytes[runStart..<position])
                position += 1
                return String(decoding: decoded, as: UTF8.self)
            }
            if byte < 0x20 {
                let hex = String(byte, radix: 16, uppercase: true)
                throw invalid("a string holds the control character U+\(String(repeating: "0", count: 4 - hex.count) + hex); escape it", at: position)
            }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            decoded.append(contentsOf: bytes[runStart..<position])
            try readEscape(into: &decoded)
            runStart = position
        }
        throw invalid("a string is never closed: it starts", at: start)
    }

    /// One escape, from its backslash.
    private mutating func readEscape(into decoded: inout [UInt8]) throws {
        let start = position
        position += 1
        guard position < bytes.count else { throw invalid("the text ends inside an escape", at: start) }
        let letter = bytes[position]
        position += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(letter)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var unit = try readHexUnit(escapeAt: start)
            if (0xD800..<0xDC00).contains(unit) {
                let low = position
                guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw invalid("the escape of a high surrogate has no low surrogate after it", at: start)
                }
                position += 2
                let second = try readHexUnit(escapeAt: low)
                guard (0xDC00..<0xE000).contains(second) else {
                    throw invalid("the escape of a high surrogate has no low surrogate after it", at: start)
                }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (second - 0xDC00)
            } else if (0xDC00..<0xE000).contains(unit) {
                throw invalid("the escape of a low surrogate has no high surrogate before it", at: start)
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw invalid("the escape is not a Unicode scalar", at: start)
            }
            decoded.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw invalid("\"\\\(String(decoding: [letter], as: UTF8.self))\" is not a JSON escape", at: start)
        }
    }

    /// The four hex digits after `\u`.
    private mutating func readHexUnit(escapeAt start: Int) throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw invalid("\"\\u\" needs four hex digits", at: start) }
        var unit: UInt32 = 0
        for byte in bytes[position..<(position + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw invalid("\"\\u\" needs four hex digits", at: start)
            }
            unit = unit << 4 | UInt32(digit)
        }
        position += 4
        return unit
    }

    // MARK: Bytes

    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    /// Space, tab, line feed and carriage return: JSON's whitespace, and no other.
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte, which must exist.
    private func peek(expecting expected: String) throws -> UInt8 {
        guard position < bytes.count else {
            throw ParameterEncodingError(.invalidJSONText, detail: "the text ends where \(expected) was expected")
        }
        return bytes[position]
    }

    private func unexpected(expecting expected: String) -> ParameterEncodingError {
        invalid("expected \(expected)", at: position)
    }

    /// An error naming the byte offset and the text from there.
    private func invalid(_ what: String, at offset: Int) -> ParameterEncodingError {
        var near = ""
        if offset < bytes.count {
            let end = min(bytes.count, offset + 16)
            near = String(decoding: bytes[offset..<end], as: UTF8.self)
                .unicodeScalars.map { $0.value < 0x20 ? $0.escaped(asASCII: true) : String($0) }.joined()
            near = ", near \"\(near)\(end < bytes.count ? "…" : "")\""
        }
        return ParameterEncodingError(.invalidJSONText, detail: "\(what) at byte \(offset)\(near)")
    }
}
