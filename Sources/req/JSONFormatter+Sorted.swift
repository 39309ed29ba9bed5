import Foundation

// MARK: - Sorted JSON

extension JSONFormatter {
    /// A JSON value as the text of its tokens: numbers and strings exactly as written.
    private indirect enum Token {
        case scalar(String)
        case string(String)
        case array([Token])
        case object([(key: String, sortKey: String, value: Token)])
    }

    /// How deep a document may nest for `--sorted`; deeper ones are printed in their own order.
    static let sortDepthLimit = 512

    /// The document re-indented with every object's members sorted by key (by the key's text as
    /// decoded, then as written), or `nil` when it is not JSON or nests deeper than
    /// ``sortDepthLimit``.
    static func sorted(_ data: Data, style: Style, indent: Int) -> String? {
        var parser = Parser(bytes: Array(data))
        guard let token = parser.value(depth: 0) else { return nil }
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { return nil }
        var output = ""
        write(token, into: &output, style: style, indent: indent, depth: 0)
        return output
    }

    private static func write(_ token: Token, into output: inout String, style: Style, indent: Int, depth: Int) {
        let padding = { (level: Int) in "\n" + String(repeating: " ", count: level * indent) }
        switch token {
        case .scalar(let text):
            output += ["true", "false", "null"].contains(text) ? style.literal(text) : style.number(text)
        case .string(let text):
            output += style.string(text)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (offset, element) in elements.enumerated() {
                output += (offset == 0 ? "" : ",") + padding(depth + 1)
                write(element, into: &output, style: style, indent: indent, depth: depth + 1)
            }
            output += padding(depth) + "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{"
            let ordered = members.enumerated().sorted { lhs, rhs in
                lhs.element.sortKey == rhs.element.sortKey ? lhs.offset < rhs.offset : lhs.element.sortKey < rhs.element.sortKey
            }
            for (offset, member) in ordered.map(\.element).enumerated() {
                output += (offset == 0 ? "" : ",") + padding(depth + 1) + style.key(member.key) + ": "
                write(member.value, into: &output, style: style, indent: indent, depth: depth + 1)
            }
            output += padding(depth) + "}"
        }
    }

    /// A recursive-descent reader with a depth limit; the document was checked to be JSON first.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> Token? {
            guard depth <= JSONFormatter.sortDepthLimit else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(key: String, sortKey: String, value: Token)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let element = value(depth: depth + 1) else { return nil }
                    members.append((key, Self.decoded(key), element))
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [Token] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return .array(elements) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
                }
            case UInt8(ascii: "\""):
                return string().map(Token.string)
            default:
                let start = index
                while index < bytes.count, !",:]} \n\r\t".utf8.contains(bytes[index]) { index += 1 }
                return index > start ? .scalar(String(decoding: bytes[start..<index], as: UTF8.self)) : nil
            }
        }

        /// A string token with its quotes, as written.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard end < bytes.count else { return nil }
            defer { index = end + 1 }
            return String(decoding: bytes[index...end], as: UTF8.self)
        }

        /// A key's text with its escapes decoded, for sorting.
        static func decoded(_ token: String) -> String {
            (try? JSONSerialization.jsonObject(with: Data(token.utf8), options: [.fragmentsAllowed])) as? String ?? token
        }
    }
}
