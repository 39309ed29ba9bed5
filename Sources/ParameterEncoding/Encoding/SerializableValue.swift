import Foundation

// MARK: - SerializableValue

/// Checks a parameter tree against what JSON or a property list can hold, and rewrites it into
/// the plain Foundation values the serializers accept.
///
/// Foundation's serializers must never see an invalid value: on Apple platforms
/// `JSONSerialization` raises an Objective-C exception, which Swift cannot catch. Every rejection
/// here names the key path and the value or type at fault.
enum SerializableValue {
    enum Format: Equatable {
        case json
        /// XML property lists store dates to the second; binary ones keep the full `Double`.
        case propertyList(datesToTheSecond: Bool)

        var invalidValueCode: ParameterEncodingError.Code {
            self == .json ? .invalidJSONValue : .invalidPropertyListValue
        }
    }

    /// Returns `value` as nested `[String: Any]`, `[Any]`, `String`, `Bool`, numbers, `NSNull`
    /// (JSON) or `Date` and `Data` (property lists).
    static func normalize(_ value: Any, for format: Format) throws -> Any {
        try normalize(value, format, depth: 0)
    }

    private static func normalize(_ value: Any, _ format: Format, depth: Int) throws -> Any {
        let type = type(of: value)
        if type == String.self || type == Int.self || type == Bool.self {
            return value
        }
        if type == Double.self, let double = value as? Double {
            return try checked(double, format)
        }
        if let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { return try null(format) }
            return try normalize(wrapped, format, depth: depth)
        }
        if type is NSNumber.Type, let number = value as? NSNumber {
            if number.isBoolean { return number.boolValue }
            _ = try checked(number.doubleValue, format)
            return number
        }
        if value is NSNull {
            return try null(format)
        }
        if let text = value as? String {
            return text
        }
        if let integer = value as? any BinaryInteger {
            return Int(exactly: integer) ?? value
        }
        if let float = value as? Float {
            // Through the shortest text, so 0.1 stays 0.1 rather than 0.100000001490116.
            return try checked(Double(float.description) ?? Double(float), format)
        }
        if let decimal = value as? Decimal {
            return try checked(decimal, format)
        }
        if let text = value as? any StringProtocol {
            return String(text)
        }
        if let character = value as? Character {
            return String(character)
        }
        if format != .json, let date = value as? Date {
            if format == .propertyList(datesToTheSecond: true),
               date.timeIntervalSinceReferenceDate.rounded(.down) != date.timeIntervalSinceReferenceDate {
                throw ParameterEncodingError(
                    .invalidPropertyListValue,
                    detail: "XML property lists store dates to the second, and \(date) has a fraction of a second; "
                        + "round it or use the binary format",
                    path: []
                )
            }
            return date
        }
        if format != .json, value is Data {
            return value
        }
        if let dictionary = value as? [String: Any] {
            try enter(depth: depth + 1)
            var result: [String: Any] = [:]
            result.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                result[key] = try descend(.key(key)) { try normalize(element, format, depth: depth + 1) }
            }
            return result
        }
        if let dictionary = value as? [AnyHashable: Any] {
            let key = dictionary.keys.map { String(describing: $0.base) }.sorted().first ?? ""
            let keyType = dictionary.keys.first.map { String(describing: Swift.type(of: $0.base)) } ?? "unknown"
            throw ParameterEncodingError(
                format.invalidValueCode,
                detail: "dictionary keys must be strings, found key \(key) of type \(keyType)",
                path: []
            )
        }
        if let elements = arrayElements(of: value) {
            try enter(depth: depth + 1)
            return try elements.enumerated().map { index, element in
                try descend(.index(index)) { try normalize(element, format, depth: depth + 1) }
            }
        }
        throw ParameterEncodingError(
            format.invalidValueCode,
            detail: "values of type \(String(describing: type)) are not supported",
            path: []
        )
    }

    private static func arrayElements(of value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if let sequence = value as? any SerializableSequence { return sequence.serializableElements }
        return nil
    }

    private static func descend(_ component: KeyPathComponent, _ body: () throws -> Any) throws -> Any {
        do {
            return try body()
        } catch var error as ParameterEncodingError {
            error.prepend(component)
            throw error
        }
    }

    private static func enter(depth: Int) throws {
        guard depth <= ParameterEncodingError.maximumDepth else {
            throw ParameterEncodingError(
                .nestingTooDeep,
                detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                path: []
            )
        }
    }

    private static func null(_ format: Format) throws -> Any {
        guard format == .json else {
            throw ParameterEncodingError(.invalidPropertyListValue, detail: "nil has no property-list form", path: [])
        }
        return NSNull()
    }

    private static func checked(_ double: Double, _ format: Format) throws -> Double {
        guard format == .json, !double.isFinite else { return double }
        let name = double.isNaN ? "NaN" : (double < 0 ? "-infinity" : "infinity")
        throw ParameterEncodingError(.invalidJSONValue, detail: "\(name) is not a valid JSON number", path: [])
    }

    private static func checked(_ decimal: Decimal, _ format: Format) throws -> Any {
        if decimal.isNaN {
            throw ParameterEncodingError(format.invalidValueCode, detail: "NaN is not a valid number", path: [])
        }
        guard format != .json else { return decimal }
        // Property lists have no decimal type; accept only values a Double holds exactly.
        guard let double = Double(decimal.description), Decimal(string: double.description) == decimal else {
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "the Decimal \(decimal) cannot be written exactly as a property-list real",
                path: []
            )
        }
        return double
    }
}

// MARK: - SerializableSequence

/// Array-like values other than `Array`, written as arrays.
protocol SerializableSequence {
    var serializableElements: [Any] { get }
}

extension ContiguousArray: SerializableSequence {
    var serializableElements: [Any] { map { $0 as Any } }
}

extension ArraySlice: SerializableSequence {
    var serializableElements: [Any] { map { $0 as Any } }
}

extension Set: SerializableSequence {
    /// Sorted by description, so the output is the same in every run.
    var serializableElements: [Any] {
        KeyOrder.sorted(map { $0 as Any }) { String(describing: $0) }
    }
}
