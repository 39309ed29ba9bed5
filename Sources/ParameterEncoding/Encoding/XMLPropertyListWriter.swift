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

    /// Encodes a tree made of `[String: Any]`, `[Any]`, `String`, `Bool`, integers, `Double`,
    /// `NSNumber`, `Date` and `Data`.
    static func encode(_ root: Any) throws -> Data {
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
        let values: [Any]
        var next = 0
    }

    /// Writes the tree with open containers on an explicit stack, so any depth uses the same
    /// small amount of thread stack.
    private mutating func writeTree(_ root: Any) throws {
        var stack: [Frame] = []
        var pending = root
        while true {
            indent(stack.count)
            if let text = pending as? String {
                writeElement("string", escaping: text)
            } else if let dictionary = pending as? [String: Any] {
                if dictionary.isEmpty {
                    append("<dict/>\n")
                } else {
                    append("<dict>\n")
                    let keys = KeyOrder.sorted(Array(dictionary.keys))
                    stack.append(Frame(keys: keys, values: keys.compactMap { dictionary[$0] }))
                }
            } else if let array = pending as? [Any] {
                if array.isEmpty {
                    append("<array/>\n")
                } else {
                    append("<array>\n")
                    stack.append(Frame(keys: nil, values: array))
                }
            } else {
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

    private mutating func writeScalar(_ value: Any, depth: Int) throws {
        let type = type(of: value)
        if type == Bool.self, let bool = value as? Bool {
            return append(bool ? "<true/>\n" : "<false/>\n")
        }
        if type == Int.self, let integer = value as? Int {
            return writeInteger(integer)
        }
        if type == Double.self, let double = value as? Double {
            return writeReal(double)
        }
        if type is NSNumber.Type, let number = value as? NSNumber {
            return writeNumber(number)
        }
        if let integer = value as? any BinaryInteger {
            return writeInteger(integer)
        }
        if let date = value as? Date {
            return try writeDate(date)
        }
        if let data = value as? Data {
            return writeData(data, depth: depth)
        }
        throw ParameterEncodingError(
            .invalidPropertyListValue,
            detail: "values of type \(String(describing: type)) are not supported",
            path: []
        )
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

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in seconds since 1970.
    static let earliestDate: Double = -62_135_596_800
    static let latestDate: Double = 253_402_300_800

    /// `yyyy-MM-ddTHH:mm:ssZ` in UTC. ``SerializableValue`` has already refused dates the format
    /// cannot hold: fractions of a second, years outside 1 to 9999.
    private mutating func writeDate(_ date: Date) throws {
        let seconds = date.timeIntervalSince1970
        guard seconds >= Self.earliestDate, seconds < Self.latestDate else {
            throw ParameterEncodingError(.invalidPropertyListValue, detail: "dates must fall in years 1 to 9999", path: [])
        }
        let total = Int(seconds.rounded(.down))
        let (days, secondOfDay) = Self.floorDivision(total, 86_400)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        append("<date>")
        appendPadded(year, width: 4)
        output.append(UInt8(ascii: "-"))
        appendPadded(month, width: 2)
        output.append(UInt8(ascii: "-"))
        appendPadded(day, width: 2)
        output.append(UInt8(ascii: "T"))
        appendPadded(secondOfDay / 3_600, width: 2)
        output.append(UInt8(ascii: ":"))
        appendPadded(secondOfDay / 60 % 60, width: 2)
        output.append(UInt8(ascii: ":"))
        appendPadded(secondOfDay % 60, width: 2)
        append("Z</date>\n")
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Year, month and day in the proleptic Gregorian calendar, from days since 1970-01-01.
    private static func civilDate(daysSince1970: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = daysSince1970 + 719_468  // days since 0000-03-01
        let (era, dayOfEra) = floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 is March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
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

    private mutating func appendPadded(_ value: Int, width: Int) {
        let digits = String(value)
        if digits.count < width { output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
        append(digits)
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
