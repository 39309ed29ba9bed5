// MARK: - JSONText

/// The bytes of JSON text, for every JSON writer of the package: quoted strings with the escaping
/// `JSONSerialization` and `JSONEncoder` use, numbers in Swift's shortest round-trip text, and
/// the pretty-printed layout's line breaks.
///
/// ``JSONWriter`` (for `Parameters`) and ``JSONTreeWriter`` (for `Encodable` values) both write
/// through it, so there is one JSON text engine.
enum JSONText {
    /// Appends `text` in quotes. Runs of bytes that need no escape are copied in one go.
    ///
    /// Escaped: `"`, `\`, control characters below U+0020 (`\b`, `\t`, `\n`, `\f`, `\r`, else
    /// `\u00XX`), and `/` as `\/` when `escapingSlashes` is set, as Foundation does unless
    /// `.withoutEscapingSlashes`. Everything else, DEL and U+2028 included, is copied.
    static func appendString(_ text: String, escapingSlashes: Bool, to output: inout ByteBuffer) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { appendEscaped($0, escapingSlashes: escapingSlashes, to: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends a finite `Double` as Swift's shortest round-trip text less a trailing `.0`
    /// (`1`, `0.1`, `1e+20`), as `JSONSerialization` and `JSONEncoder` write it.
    static func appendNumber(_ double: Double, to output: inout ByteBuffer) {
        appendNumberText(double.description, to: &output)
    }

    /// Appends a finite `Float` as its own shortest text (`0.1`), not its `Double` widening's.
    static func appendNumber(_ float: Float, to output: inout ByteBuffer) {
        appendNumberText(float.description, to: &output)
    }

    /// A line break and `indent` levels of two spaces, for pretty-printed output.
    static func appendNewline(indent: Int, to output: inout ByteBuffer) {
        output.append(UInt8(ascii: "\n"))
        output.append(UInt8(ascii: " "), count: indent * 2)
    }

    // MARK: Helpers

    private static func appendNumberText(_ text: String, to output: inout ByteBuffer) {
        var text = text
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.append(text)
    }

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, escapingSlashes: Bool, to output: inout ByteBuffer) {
        var runStart = 0
        for index in bytes.indices {
            let byte = bytes[index]
            // Lowercase letters and non-ASCII bytes, most of most text, are above `\` and
            // leave after one comparison.
            if byte > UInt8(ascii: "\\") { continue }
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                || (byte == UInt8(ascii: "/") && escapingSlashes) else { continue }
            output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            runStart = index + 1
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x09: output.append(UInt8(ascii: "t"))
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
            default:
                output.append(UInt8(ascii: "u"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
        output.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
