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
    ///
    /// The walk is iterative: open containers live on an explicit stack, so any depth up to
    /// ``ParameterEncodingError/maximumDepth`` uses the same small amount of thread stack.
    static func normalize(_ root: Any, for format: Format) throws -> Any {
        var stack: [Frame] = []
        var pending = try classify(root, format)
        while true {
            switch pending {
            case .value(let value):
                guard !stack.isEmpty else { return value }
                stack[stack.count - 1].attach(value)
            case .container(let frame):
                guard stack.count < ParameterEncodingError.maximumDepth else {
                    throw ParameterEncodingError(
                        .nestingTooDeep,
                        detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                        path: stack.map(\.lastComponent)
                    )
                }
                stack.append(frame)
            }
            // Finish every container whose children are all done, then start the next child.
            while let top = stack.last, top.isComplete {
                stack.removeLast()
                guard !stack.isEmpty else { return top.result }
                stack[stack.count - 1].attach(top.result)
            }
            // The top frame has children left: a child container is always finished and
            // attached before its parent is looked at again.
            let child = stack[stack.count - 1].takeNextChild()
            do {
                pending = try classify(child, format)
            } catch var error as ParameterEncodingError {
                error.prepend(stack.map(\.lastComponent))
                throw error
            }
        }
    }

    /// A scalar's normalized value, or a container to open.
    private enum Step {
        case value(Any)
        case container(Frame)
    }

    /// An open container: its children, the position of the next one, and what is built so far.
    /// A child container is finished and attached before the next child is taken, so a frame
    /// whose children have all been taken is complete.
    private struct Frame {
        let keys: [String]?
        let values: [Any]
        var next = 0
        var dictionary: [String: Any] = [:]
        var array: [Any] = []

        init(keys: [String]?, values: [Any]) {
            self.keys = keys
            self.values = values
            if keys == nil { array.reserveCapacity(values.count) } else { dictionary.reserveCapacity(values.count) }
        }

        var isComplete: Bool { next == values.count }
        var result: Any { keys == nil ? array as Any : dictionary as Any }

        /// The component of the child most recently started, for key paths.
        var lastComponent: KeyPathComponent {
            keys.map { .key($0[next - 1]) } ?? .index(next - 1)
        }

        mutating func takeNextChild() -> Any {
            next += 1
            return values[next - 1]
        }

        mutating func attach(_ value: Any) {
            if let keys {
                dictionary[keys[next - 1]] = value
            } else {
                array.append(value)
            }
        }
    }

    private static func classify(_ value: Any, _ format: Format) throws -> Step {
        let type = type(of: value)
        if type == String.self || type == Int.self || type == Bool.self {
            return .value(value)
        }
        if type == Double.self, let double = value as? Double {
            return .value(try checked(double, format))
        }
        if let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { return .value(try null(format)) }
            return try classify(wrapped, format)
        }
        if type is NSNumber.Type, let number = value as? NSNumber {
            if number.isBoolean { return .value(number.boolValue) }
            _ = try checked(number.doubleValue, format)
            return .value(number)
        }
        // Class checks by metatype: `value is NSNull` would first bridge a Swift container, and
        // on Linux that converts the whole nested tree to NSArray/NSDictionary, recursively.
        if type is NSNull.Type {
            return .value(try null(format))
        }
        if let dictionary = value as? [String: Any] {
            return .container(Frame(keys: Array(dictionary.keys), values: Array(dictionary.values)))
        }
        if let dictionary = value as? [AnyHashable: Any] {
            let key = dictionary.keys.min { String(describing: $0.base) < String(describing: $1.base) }
            let keyText = key.map { String(describing: $0.base) } ?? ""
            let keyType = key.map { String(describing: Swift.type(of: $0.base)) } ?? "unknown"
            throw ParameterEncodingError(
                format.invalidValueCode,
                detail: "dictionary keys must be strings, found key \(keyText) of type \(keyType)",
                path: []
            )
        }
        if let elements = arrayElements(of: value) {
            return .container(Frame(keys: nil, values: elements))
        }
        if let text = value as? String {
            return .value(text)
        }
        if let integer = value as? any BinaryInteger {
            return .value(Int(exactly: integer) ?? value)
        }
        if let float = value as? Float {
            // Through the shortest text, so 0.1 stays 0.1 rather than 0.100000001490116.
            return .value(try checked(Double(float.description) ?? Double(float), format))
        }
        if let decimal = value as? Decimal {
            return .value(try checked(decimal, format))
        }
        if let text = value as? any StringProtocol {
            return .value(String(text))
        }
        if let character = value as? Character {
            return .value(String(character))
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
            return .value(date)
        }
        if format != .json, value is Data {
            return .value(value)
        }
        throw ParameterEncodingError(
            format.invalidValueCode,
            detail: "values of type \(String(describing: type)) are not supported",
            path: []
        )
    }

    private static func arrayElements(of value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if let sequence = value as? any ArrayLikeParameter { return sequence.parameterElements }
        return nil
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
