import Foundation

// MARK: - SerializableValue

/// Checks a parameter tree against what a property list can hold, and rewrites it into the
/// typed tree the property-list writers take (``PropertyListNode``), dictionary keys sorted.
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

    /// Returns `value` as a ``PropertyListNode`` tree, each dictionary's keys in ``KeyOrder``.
    ///
    /// The walk is iterative: open containers live on an explicit stack, so any depth up to
    /// ``ParameterEncodingError/maximumDepth`` uses the same small amount of thread stack.
    static func normalize(_ root: Any, for format: Format) throws -> PropertyListNode {
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
        case value(PropertyListNode)
        case container(Frame)
    }

    /// An open container: its children, the position of the next one, and what is built so far.
    /// A child container is finished and attached before the next child is taken, so a frame
    /// whose children have all been taken is complete.
    private struct Frame {
        let keys: [String]?
        let values: [Any]
        var next = 0
        var results: [PropertyListNode] = []

        init(keys: [String]?, values: [Any]) {
            self.keys = keys
            self.values = values
            results.reserveCapacity(values.count)
        }

        var isComplete: Bool { next == values.count }

        /// The finished container: an array in order, or a dictionary in ``KeyOrder``.
        var result: PropertyListNode {
            guard let keys else { return .array(results) }
            let order = KeyOrder.sortedIndices(keys)
            return .dictionary(keys: order.map { keys[$0] }, values: order.map { results[$0] })
        }

        /// The component of the child most recently started, for key paths.
        var lastComponent: KeyPathComponent {
            keys.map { .key($0[next - 1]) } ?? .index(next - 1)
        }

        mutating func takeNextChild() -> Any {
            next += 1
            return values[next - 1]
        }

        mutating func attach(_ value: PropertyListNode) {
            results.append(value)
        }
    }

    private static func classify(_ value: Any, _ format: Format) throws -> Step {
        switch _openExistential(value, do: classifyParameter) {
        case .text(let text):
            if format.leadingBOMDropped { try checkLeadingBOM(text, path: []) }
            return .value(.string(text))
        case .integer(let integer): return .value(.integer(integer))
        case .bool(let bool): return .value(.bool(bool))
        case .double(let double): return .value(.real(double))
        case .children(let children): return .container(try frame(children, format))
        case .null: throw nilError
        case .number(let number): return .value(number.isBoolean ? .bool(number.boolValue) : .number(number))
        case .rawJSON(let raw): return try classify(raw.root, format)
        case .jsonText(let node): return try classify(node, format)
        case .keyed(let entries):
            switch ParameterValue.stringKeyed(entries) {
            case .success(let children): return .container(try frame(children, format))
            case .failure(let key): throw ParameterEncodingError(.invalidPropertyListValue, detail: key.detail, path: [])
            }
        case .otherInteger(let integer):
            if let fitting = Int(exactly: integer) { return .value(.integer(fitting)) }
            if let unsigned = UInt64(exactly: integer) { return .value(.unsigned(unsigned)) }
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "values of type \(String(describing: type(of: integer))) are not supported: \(integer) does not fit 64 bits",
                path: []
            )
        case .float(let float):
            // Through the shortest text, so 0.1 stays 0.1 rather than 0.100000001490116.
            return .value(.real(Double(float.description) ?? Double(float)))
        case .decimal(let decimal): return .value(.real(try checked(decimal)))
        case .date(let date):
            if format.datesToTheSecond { try checkXMLDate(date) }
            return .value(.date(date))
        case .data(let data): return .value(.data(data))
        case .unsupported(let value):
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "values of type \(String(describing: type(of: value))) are not supported",
                path: []
            )
        }
    }

    /// The frame of a container: an array, or a dictionary whose keys are each there once
    /// (ordered pairs may repeat one, and a dictionary would silently keep one value).
    private static func frame(_ children: ParameterChildren, _ format: Format) throws -> Frame {
        let values = (0..<children.count).map { children.values[$0] }
        guard children.isObject else { return Frame(keys: nil, values: values) }
        if children.ordering == .given {
            var seen = Set<String>()
            for key in children.keys where !seen.insert(key).inserted {
                throw ParameterEncodingError(
                    .invalidPropertyListValue,
                    detail: "the key \"\(key)\" is there twice, and a dictionary holds one value per key",
                    path: []
                )
            }
        }
        if format.leadingBOMDropped {
            for key in children.keys { try checkLeadingBOM(key, path: [.key(key)]) }
        }
        return Frame(keys: children.keys, values: values)
    }

    /// The value a ``RawJSON`` spells: an integer that fits 64 bits, a finite real, a string,
    /// a boolean, an array or an object with no repeated key. `null` has no property-list form.
    private static func classify(_ node: JSONTextNode, _ format: Format) throws -> Step {
        switch node {
        case .string(let text):
            if format.leadingBOMDropped { try checkLeadingBOM(text, path: []) }
            return .value(.string(text))
        case .number(let text):
            return .value(try number(text))
        case .bool(let bool):
            return .value(.bool(bool))
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
    private static func number(_ text: String) throws -> PropertyListNode {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            guard let integer = Int(text) else {
                throw ParameterEncodingError(
                    .invalidPropertyListValue,
                    detail: "the integer \(text) does not fit the 64 bits of a property-list integer; write it as a string or a real",
                    path: []
                )
            }
            return .integer(integer)
        }
        guard let double = Double(text), double.isFinite else {
            throw ParameterEncodingError(
                .invalidPropertyListValue,
                detail: "the number \(text) is beyond the range of a property-list real",
                path: []
            )
        }
        return .real(double)
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

    private static func checked(_ decimal: Decimal) throws -> Double {
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

// MARK: - PropertyListNode

/// A value a property list holds, as ``SerializableValue`` hands it to the writers: typed, so
/// that they switch over it instead of casting each value, with each dictionary's keys sorted.
indirect enum PropertyListNode {
    case string(String)
    case bool(Bool)
    case integer(Int)
    /// An integer above `Int.max` that fits 64 bits unsigned.
    case unsigned(UInt64)
    case real(Double)
    /// An `NSNumber` that is not a boolean.
    case number(NSNumber)
    case date(Date)
    case data(Data)
    /// Keys in ``KeyOrder``, each once, and their values in the same order.
    case dictionary(keys: [String], values: [PropertyListNode])
    case array([PropertyListNode])
}
