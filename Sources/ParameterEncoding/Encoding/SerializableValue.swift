import Foundation

// MARK: - SerializableValue

/// Checks a parameter tree against what a property list can hold, and rewrites it into the
/// plain Foundation values the property-list writers take.
///
/// Every rejection names the key path and the value or type at fault. (JSON needs no such pass:
/// ``JSONWriter`` checks values as it writes them.)
enum SerializableValue {
    /// What the target format can hold.
    struct Format: Equatable {
        /// XML property lists store dates to the second, in years 1 to 9999; binary ones keep
        /// any `Double`.
        var datesToTheSecond: Bool
        /// XML property lists lose a U+FEFF at the start of a string: Foundation's reader drops
        /// it (written raw or as `&#xFEFF;`, and from Foundation's own writer too).
        var leadingBOMDropped: Bool

        static func propertyList(datesToTheSecond: Bool) -> Format {
            Format(datesToTheSecond: datesToTheSecond, leadingBOMDropped: datesToTheSecond)
        }
    }

    /// Returns `value` as nested `[String: Any]`, `[Any]`, `String`, `Bool`, numbers, `Date`
    /// and `Data`.
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
            if format.leadingBOMDropped, let text = value as? String { try checkLeadingBOM(text, path: []) }
            return .value(value)
        }
        if type == Double.self, let double = value as? Double {
            return .value(double)
        }
        if let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { throw nilError }
            return try classify(wrapped, format)
        }
        if type is NSNumber.Type, let number = value as? NSNumber {
            if number.isBoolean { return .value(number.boolValue) }
            return .value(number)
        }
        // Class checks by metatype: `value is NSNull` would first bridge a Swift container, and
        // on Linux that converts the whole nested tree to NSArray/NSDictionary, recursively.
        if type is NSNull.Type {
            throw nilError
        }
        if type == RawJSON.self, let raw = value as? RawJSON {
            return try classify(raw.root, format)
        }
        if type == JSONTextNode.self, let node = value as? JSONTextNode {
            return try classify(node, format)
        }
        if let dictionary = value as? [String: Any] {
            if format.leadingBOMDropped {
                for key in dictionary.keys { try checkLeadingBOM(key, path: [.key(key)]) }
            }
            return .container(Frame(keys: Array(dictionary.keys), values: Array(dictionary.values)))
        }
        if let dictionary = value as? [AnyHashable: Any] {
            let key = dictionary.keys.min { String(describing: $0.base) < String(describing: $1.base) }
            let keyText = key.map { String(describing: $0.base) } ?? ""
            let keyType = key.map { String(describing: Swift.type(of: $0.base)) } ?? "unknown"
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "dictionary keys must be strings, found key \(keyText) of type \(keyType)",
                path: []
            )
        }
        if let elements = arrayElements(of: value) {
            return .container(Frame(keys: nil, values: elements.map { $0 as Any }))
        }
        if let text = value as? String {
            if format.leadingBOMDropped { try checkLeadingBOM(text, path: []) }
            return .value(text)
        }
        if let integer = value as? any BinaryInteger {
            return .value(Int(exactly: integer) ?? value)
        }
        if let float = value as? Float {
            // Through the shortest text, so 0.1 stays 0.1 rather than 0.100000001490116.
            return .value(Double(float.description) ?? Double(float))
        }
        if let decimal = value as? Decimal {
            return .value(try checked(decimal))
        }
        if let text = value as? any StringProtocol {
            return .value(String(text))
        }
        if let character = value as? Character {
            return .value(String(character))
        }
        if let date = value as? Date {
            if format.datesToTheSecond { try checkXMLDate(date) }
            return .value(date)
        }
        if value is Data {
            return .value(value)
        }
        throw ParameterEncodingError(
            .invalidPropertyListValue,
            detail: "values of type \(String(describing: type)) are not supported",
            path: []
        )
    }

    /// The value a ``RawJSON`` spells: an integer that fits 64 bits, a finite real, a string,
    /// a boolean, an array or an object with no repeated key. `null` has no property-list form.
    private static func classify(_ node: JSONTextNode, _ format: Format) throws -> Step {
        switch node {
        case .string(let text):
            if format.leadingBOMDropped { try checkLeadingBOM(text, path: []) }
            return .value(text)
        case .number(let text):
            return .value(try number(text))
        case .bool(let bool):
            return .value(bool)
        case .null:
            throw nilError
        case .array(let elements):
            return .container(Frame(keys: nil, values: elements.map { $0 as Any }))
        case .object(let keys, let values):
            var seen = Set<String>()
            for key in keys {
                guard seen.insert(key).inserted else {
                    throw ParameterEncodingError(
                        .invalidPropertyListValue,
                        detail: "the raw JSON object has the key \"\(key)\" twice, and a dictionary holds one value per key",
                        path: []
                    )
                }
                if format.leadingBOMDropped { try checkLeadingBOM(key, path: [.key(key)]) }
            }
            return .container(Frame(keys: keys, values: values.map { $0 as Any }))
        }
    }

    /// A raw JSON number: an integer when written without a fraction or exponent, else a real.
    private static func number(_ text: String) throws -> Any {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            guard let integer = Int(text) else {
                throw ParameterEncodingError(
                    .invalidPropertyListValue,
                    detail: "the integer \(text) does not fit the 64 bits of a property-list integer; write it as a string or a real",
                    path: []
                )
            }
            return integer
        }
        guard let double = Double(text), double.isFinite else {
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "the number \(text) is beyond the range of a property-list real",
                path: []
            )
        }
        return double
    }

    private static func arrayElements(of value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if let sequence = value as? any ArrayLikeParameter { return sequence.parameterElements }
        return nil
    }

    /// Refuses a string that starts with U+FEFF, which an XML property list would not give back.
    private static func checkLeadingBOM(_ text: String, path: [KeyPathComponent]) throws {
        guard text.utf8.starts(with: [0xEF, 0xBB, 0xBF]) else { return }
        throw ParameterEncodingError(
            .invalidPropertyListValue,
            detail: "a string that starts with U+FEFF loses it in an XML property list (Foundation's reader drops it); "
                + "use the binary format",
            path: path
        )
    }

    /// XML property lists write dates as `yyyy-MM-ddTHH:mm:ssZ`: whole seconds, four-digit years.
    private static func checkXMLDate(_ date: Date) throws {
        let seconds = date.timeIntervalSince1970
        guard seconds >= CivilTime.earliest, seconds < CivilTime.latest else {
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "XML property lists hold dates from year 1 to 9999, and this one is \(seconds) seconds from 1970; "
                    + "use the binary format",
                path: []
            )
        }
        guard seconds.rounded(.down) == seconds else {
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "XML property lists store dates to the second, and \(date) has a fraction of a second; "
                    + "round it or use the binary format",
                path: []
            )
        }
    }

    private static let nilError = ParameterEncodingError(.invalidPropertyListValue, detail: "nil has no property-list form", path: [])

    private static func checked(_ decimal: Decimal) throws -> Any {
        if decimal.isNaN {
            throw ParameterEncodingError(.invalidPropertyListValue, detail: "NaN is not a valid number", path: [])
        }
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
