import Foundation

// MARK: - JSONFormatter

/// Re-indents a JSON document token by token, keeping its key order, and colours the tokens.
///
/// It does not build a tree, so it keeps the server's order and never loses precision; a
/// document that is not JSON comes back `nil`, to be printed as it is. With `sortKeys` it builds
/// a tree of the tokens' text (``JSONFormatter/sorted(_:style:indent:)``) to sort the members of
/// every object.
enum JSONFormatter {
    /// The document formatted.
    ///
    /// - Parameters:
    ///   - data: The document.
    ///   - style: The colours (none when disabled).
    ///   - reindent: Lay the document out with `indent` spaces; otherwise keep its own white
    ///     space and only colour it.
    ///   - sortKeys: Sort object members by key (when re-indenting).
    ///   - indent: Spaces per level.
    /// - Returns: The text, or `nil` when `data` is not JSON.
    static func format(_ data: Data, style: Style, reindent: Bool = true, sortKeys: Bool = false, indent: Int = 4) -> String? {
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else { return nil }
        if !reindent {
            return colored(Array(data), style: style)
        }
        if sortKeys, let sorted = sorted(data, style: style, indent: indent) {
            return sorted
        }
        let bytes = Array(data)
        var output = ""
        var depth = 0
        var index = 0
        var expectingKey = false
        var stack: [UInt8] = []
        func newline() {
            output += "\n" + String(repeating: " ", count: depth * indent)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close: UInt8 = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                var next = index + 1
                while next < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[next]) { next += 1 }
                if next < bytes.count, bytes[next] == close {
                    output += byte == UInt8(ascii: "{") ? "{}" : "[]"
                    index = next + 1
                } else {
                    output.append(Character(Unicode.Scalar(byte)))
                    stack.append(byte)
                    depth += 1
                    newline()
                    expectingKey = byte == UInt8(ascii: "{")
                    index += 1
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                stack.removeLast()
                newline()
                output.append(Character(Unicode.Scalar(byte)))
                index += 1
            case UInt8(ascii: ","):
                output += ","
                newline()
                expectingKey = stack.last == UInt8(ascii: "{")
                index += 1
            case UInt8(ascii: ":"):
                output += ": "
                index += 1
            case UInt8(ascii: "\""):
                let (token, next) = stringToken(bytes, at: index)
                output += expectingKey ? style.key(token) : style.string(token)
                expectingKey = false
                index = next
            default:
                let (token, next) = scalarToken(bytes, at: index, style: style)
                output += token
                index = next
            }
        }
        return output
    }

    /// The document's own layout, its tokens coloured.
    private static func colored(_ bytes: [UInt8], style: Style) -> String {
        var output = ""
        var index = 0
        var stack: [UInt8] = []
        var expectingKey = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let (token, next) = stringToken(bytes, at: index)
                output += expectingKey ? style.key(token) : style.string(token)
                expectingKey = false
                index = next
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"),
                 UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { stack.append(byte) }
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { _ = stack.popLast() }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: ",") { expectingKey = stack.last == UInt8(ascii: "{") }
                output.append(Character(Unicode.Scalar(byte)))
                index += 1
            default:
                let (token, next) = scalarToken(bytes, at: index, style: style)
                output += token
                index = next
            }
        }
        return output
    }

    /// The string token that starts at `index` (its quotes included, up to the end of the text
    /// when it is not closed), and the index after it.
    private static func stringToken(_ bytes: [UInt8], at index: Int) -> (token: String, next: Int) {
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        return (String(decoding: bytes[index...min(end, bytes.count - 1)], as: UTF8.self), end + 1)
    }

    /// The number or literal that starts at `index`, coloured, and the index after it.
    private static func scalarToken(_ bytes: [UInt8], at index: Int, style: Style) -> (token: String, next: Int) {
        var end = index
        while end < bytes.count, !",:]} \n\r\t".utf8.contains(bytes[end]) { end += 1 }
        let token = String(decoding: bytes[index..<end], as: UTF8.self)
        return (["true", "false", "null"].contains(token) ? style.literal(token) : style.number(token), end)
    }
}
