import Foundation

// MARK: - JSONWriter

/// Writes parameters as UTF-8 JSON (RFC 8259) in one pass, checking every value on the way.
///
/// The output is what `JSONSerialization` writes with `.sortedKeys`: keys in ``JSONKeyOrder``,
/// the same string escaping (`\/` unless `.withoutEscapingSlashes`, `\u001f` for other control
/// characters), the same pretty-printed layout, and numbers in Swift's shortest round-trip
/// text without a trailing `.0`. A ``RawJSON`` is copied as it was written.
///
/// The walk is iterative: open containers live in ``stack``, so any depth up to
/// ``ParameterEncodingError/maximumDepth`` uses the same small amount of thread stack.
struct JSONWriter: ~Copyable {
    private let prettyPrinted: Bool
    private let escapesSlashes: Bool
    /// The JSON written so far.
    private(set) var output = ByteBuffer(capacity: 1_024)
    /// Open containers, outermost first.
    private var stack: [ChildCursor] = []
    /// Whether the top-level value was a ``RawJSON`` array or object, written without opening one.
    private var wroteRawContainerAtTop = false

    init(options: JSONSerialization.WritingOptions) {
        prettyPrinted = options.contains(.prettyPrinted)
        escapesSlashes = !options.contains(.withoutEscapingSlashes)
    }

    // MARK: Walk

    /// Writes `root` and everything in it.
    ///
    /// - Parameter fragmentsAllowed: Whether the top level may be a scalar.
    mutating func write(_ root: any Sendable, fragmentsAllowed: Bool) throws {
        try write(sendable: root)
        guard fragmentsAllowed || !stack.isEmpty || wroteRawContainerAtTop else {
            throw ParameterEncodingError(
                .invalidJSONValue,
                detail: "the top-level value must be an array or an object unless .fragmentsAllowed is set"
            )
        }
        while !stack.isEmpty {
            let top = stack.count - 1
            let index = stack[top].next
            let children = stack[top].children
            guard index < children.count else {
                close()
                continue
            }
            stack[top].next = index + 1
            if index > 0 { output.append(UInt8(ascii: ",")) }
            if prettyPrinted { newline(indent: stack.count) }
            let slot = stack[top].slot(index)
            if children.isKeyed {
                writeString(children.keys[slot])
                if prettyPrinted {
                    append(" : ")
                } else {
                    output.append(UInt8(ascii: ":"))
                }
            }
            switch children.values {
            case .sendable(let values): try write(sendable: values[slot])
            case .any(let values): try write(values[slot])
            case .strings(let values): writeString(values[slot])
            }
        }
    }

    private mutating func open(_ children: ParameterChildren) throws {
        guard stack.count < ParameterEncodingError.maximumDepth else {
            throw ParameterEncodingError(
                .nestingTooDeep,
                detail: "containers nest deeper than \(ParameterEncodingError.maximumDepth) levels",
                path: stack.map(\.lastComponent)
            )
        }
        output.append(children.isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        stack.append(ChildCursor(children) { .positions(JSONKeyOrder.sortedIndices($0)) })
    }

    private mutating func close() {
        guard let frame = stack.popLast() else { return }
        if prettyPrinted {
            // `JSONSerialization` writes an empty container as an empty line.
            if frame.children.count == 0 { output.append(UInt8(ascii: "\n")) }
            newline(indent: stack.count)
        }
        output.append(frame.children.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    // MARK: Values

    private mutating func write(_ value: Any) throws {
        try write(_openExistential(value, do: classifyParameter), of: value)
    }

    private mutating func write(sendable value: any Sendable) throws {
        try write(_openExistential(value, do: classifyParameter), of: value)
    }

    private mutating func write(_ classified: ClassifiedParameter, of value: @autoclosure () -> Any) throws {
        switch classified {
        case .text(let text): writeString(text)
        case .integer(let integer): DecimalDigits.append(integer, to: &output)
        case .bool(let bool): append(bool ? "true" : "false")
        case .double(let double): try writeNumber(double)
        case .children(let children): try open(children)
        case .uncommon: try writeUncommon(value())
        }
    }

    private mutating func writeUncommon(_ value: Any) throws {
        var value = value
        while let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { return append("null") }
            value = wrapped
        }
        // Class checks by metatype: a cast to a class would first try to bridge the value.
        let type = type(of: value)
        if type is NSNumber.Type, let number = value as? NSNumber {
            return try writeNumber(number)
        }
        if type == RawJSON.self, let raw = value as? RawJSON {
            // Checked when it was made: written as it is.
            if stack.isEmpty { wroteRawContainerAtTop = raw.isContainer }
            return append(raw.text)
        }
        if let container = value as? any QueryContainer {
            return try open(container.queryChildren)
        }
        if let sequence = value as? any ArrayLikeParameter {
            return try open(.indexed(sequence.parameterElements))
        }
        if let dictionary = value as? any DescribedKeyContainer {
            return try open(stringKeyed(dictionary.describedEntries))
        }
        if let integer = value as? any BinaryInteger {
            return DecimalDigits.append(integer, to: &output)
        }
        if let float = value as? Float {
            return try writeNumber(float)
        }
        if let decimal = value as? Decimal {
            guard !decimal.isNaN else { throw invalid("NaN is not a valid number") }
            return append(decimal.description)
        }
        if let text = value as? any StringProtocol {
            return writeString(String(text))
        }
        if let character = value as? Character {
            return writeString(String(character))
        }
        if type is NSNull.Type {
            return append("null")
        }
        if type is NSString.Type, let string = value as? String {
            return writeString(string)
        }
        if type is NSDictionary.Type, let dictionary = value as? NSDictionary {
            return try open(stringKeyed(dictionary.map { (key: $0.key, value: $0.value) }))
        }
        if type is NSArray.Type, let array = value as? NSArray {
            return try open(.indexed(array.map { $0 }))
        }
        throw invalid("values of type \(String(describing: type)) are not supported")
    }

    /// The entries of a dictionary whose key type is not `String`, if every key is a string.
    private func stringKeyed(_ entries: [(key: Any, value: Any)]) throws -> ParameterChildren {
        var keys: [String] = []
        keys.reserveCapacity(entries.count)
        for entry in entries {
            guard let key = entry.key as? String else {
                let first = entries.min { String(describing: $0.key) < String(describing: $1.key) }
                let text = first.map { String(describing: $0.key) } ?? ""
                let keyType = first.map { String(describing: Swift.type(of: $0.key)) } ?? "unknown"
                throw invalid("dictionary keys must be strings, found key \(text) of type \(keyType)")
            }
            keys.append(key)
        }
        return .sorted(keys: keys, values: entries.map(\.value))
    }

    private mutating func writeNumber(_ number: NSNumber) throws {
        if type(of: number) is NSDecimalNumber.Type {
            return append(number.description)
        }
        switch number.numberValue {
        case .bool(let bool): append(bool ? "true" : "false")
        case .float(let float): try writeNumber(float)
        case .double(let double): try writeNumber(double)
        case .unsigned(let unsigned): DecimalDigits.append(unsigned, to: &output)
        case .integer(let integer): DecimalDigits.append(integer, to: &output)
        }
    }

    /// A `Float` as its own shortest text (`0.1`), not its `Double` widening's.
    private mutating func writeNumber(_ float: Float) throws {
        try checkFinite(Double(float))
        JSONText.appendNumber(float, to: &output)
    }

    private mutating func writeNumber(_ double: Double) throws {
        try checkFinite(double)
        JSONText.appendNumber(double, to: &output)
    }

    private func checkFinite(_ double: Double) throws {
        guard !double.isFinite else { return }
        let name = double.isNaN ? "NaN" : (double < 0 ? "-infinity" : "infinity")
        throw invalid("\(name) is not a valid JSON number")
    }

    private func invalid(_ detail: String) -> ParameterEncodingError {
        ParameterEncodingError(.invalidJSONValue, detail: detail, path: stack.map(\.lastComponent))
    }

    // MARK: Bytes

    private mutating func append(_ text: String) {
        output.append(text)
    }

    private mutating func newline(indent: Int) {
        JSONText.appendNewline(indent: indent, to: &output)
    }

    private mutating func writeString(_ text: String) {
        JSONText.appendString(text, escapingSlashes: escapesSlashes, to: &output)
    }
}
