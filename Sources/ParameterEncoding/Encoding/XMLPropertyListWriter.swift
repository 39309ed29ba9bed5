import Foundation

// MARK: - XMLPropertyListWriter

/// Writes a normalized value tree (see ``SerializableValue``) as an XML property list, in the
/// layout `PropertyListSerialization` uses (tab indents, `<dict/>` for empty containers, base64
/// data in lines of 68 characters), with dictionary keys in ``KeyOrder``.
///
/// Reals are written as Swift's shortest round-trip text (`0.1`, not `0.10000000000000001`),
/// which every property-list reader parses back to the same `Double`.
struct XMLPropertyListWriter {
    private var output: [UInt8] = []

    private init() {
        output.reserveCapacity(4_096)
    }

    /// Encodes a normalized tree.
    static func encode(_ root: PropertyListNode) throws -> Data {
        var writer = XMLPropertyListWriter()
        writer.append(header)
        try writer.writeTree(root)
        writer.append("</plist>\n")
        return Data(writer.output)
    }

    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    // MARK: Walk

    /// An open container: sorted keys (for a dictionary), the values in writing order, and the
    /// position of the next one.
    private struct Frame {
        let keys: [String]?
        let values: [PropertyListNode]
        var next = 0
    }

    /// Writes the tree with open containers on an explicit stack, so any depth uses the same
    /// small amount of thread stack.
    private mutating func writeTree(_ root: PropertyListNode) throws {
        var stack: [Frame] = []
        var pending = root
        while true {
            indent(stack.count)
            switch pending {
            case .dictionary(let keys, let values):
                if keys.isEmpty {
                    append("<dict/>\n")
                } else {
                    append("<dict>\n")
                    stack.append(Frame(keys: keys, values: values))
                }
            case .array(let values):
                if values.isEmpty {
                    append("<array/>\n")
                } else {
                    append("<array>\n")
                    stack.append(Frame(keys: nil, values: values))
                }
            default:
                try writeScalar(pending, depth: stack.count)
            }
            // Close every finished container, then start the next child.
            while let top = stack.last, top.next == top.values.count {
                stack.removeLast()
                indent(stack.count)
                append(top.keys == nil ? "</array>\n" : "</dict>\n")
            }
            guard !stack.isEmpty else { return }
            let top = stack.count - 1
            let index = stack[top].next
            stack[top].next = index + 1
            if let keys = stack[top].keys {
                indent(stack.count)
                writeElement("key", escaping: keys[index])
            }
            pending = stack[top].values[index]
        }
    }

    // MARK: Scalars

    private mutating func writeScalar(_ value: PropertyListNode, depth: Int) throws {
        switch value {
        case .string(let text): writeElement("string", escaping: text)
        case .bool(let bool): append(bool ? "<true/>\n" : "<false/>\n")
        case .integer(let integer): writeInteger(integer)
        case .unsigned(let unsigned): writeInteger(unsigned)
        case .real(let double): writeReal(double)
        case .number(let number): writeNumber(number)
        case .date(let date): try writeDate(date)
        case .data(let data): writeData(data, depth: depth)
        case .dictionary, .array:
            // Containers are written by ``writeTree(_:)``, never as scalars.
            break
        }
    }

    private mutating func writeNumber(_ number: NSNumber) {
        switch number.numberValue {
        case .bool(let bool): append(bool ? "<true/>\n" : "<false/>\n")
        case .float(let float): writeReal(Double(float))
        case .double(let double): writeReal(double)
        case .unsigned(let unsigned): writeInteger(unsigned)
        case .integer(let integer): writeInteger(integer)
        }
    }

    private mutating func writeInteger<Integer: BinaryInteger>(_ integer: Integer) {
        append("<integer>")
        DecimalDigits.append(integer, to: &output)
        append("</integer>\n")
    }

    private mutating func writeReal(_ double: Double) {
        append("<real>")
        if double.isNaN {
            append("nan")
        } else if double.isInfinite {
            append(double < 0 ? "-infinity" : "+infinity")
        } else {
            append(double.description)
        }
        append("</real>\n")
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` in UTC. ``SerializableValue`` has already refused dates the format
    /// cannot hold: fractions of a second, years outside 1 to 9999.
    private mutating func writeDate(_ date: Date) throws {
        guard let time = CivilTime(date) else {
            throw ParameterEncodingError(.invalidPropertyListValue, detail: "dates must fall in years 1 to 9999", path: [])
        }
        append("<date>")
        time.append(to: &output)
        append("</date>\n")
    }

    private mutating func writeData(_ data: Data, depth: Int) {
        append("<data>\n")
        let text = Array(data.base64EncodedString().utf8)
        var start = 0
        while start < text.count {
            let end = min(start + 68, text.count)
            indent(depth)
            output.append(contentsOf: text[start..<end])
            output.append(UInt8(ascii: "\n"))
            start = end
        }
        indent(depth)
        append("</data>\n")
    }

    // MARK: Bytes

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func indent(_ depth: Int) {
        output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: depth))
    }

    /// Writes `<name>text</name>` with `&`, `<` and `>` escaped.
    private mutating func writeElement(_ name: StaticString, escaping text: String) {
        output.append(UInt8(ascii: "<"))
        name.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: ">"))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            default: output.append(byte)
            }
        }
        output.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
        name.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(contentsOf: [UInt8(ascii: ">"), UInt8(ascii: "\n")])
    }
}
