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

    /// The output as `Data`, its storage handed over rather than copied.
    consuming func takeData() -> Data {
        output.takeData()
    }
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
        stack.append(ChildCursor(children, sortingKeysWith: JSONKeyOrder.writingOrder))
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
        try write(_openExistential(value, do: classifyParameter))
    }

    private mutating func write(sendable value: any Sendable) throws {
        try write(_openExistential(value, do: classifyParameter))
    }

    /// Writes a value as JSON holds it; a date, data or a type JSON has no form for is an error.
    private mutating func write(_ value: ParameterValue) throws {
        switch value {
        case .text(let text): writeString(text)
        case .integer(let integer): DecimalDigits.append(integer, to: &output)
        case .bool(let bool): append(bool ? "true" : "false")
        case .double(let double): try writeNumber(double)
        case .children(let children): try open(children)
        case .null: append("null")
        case .number(let number): try writeNumber(number)
        case .rawJSON(let raw):
            // Checked when it was made: written as it is.
            if stack.isEmpty { wroteRawContainerAtTop = raw.isContainer }
            append(raw.text)
        case .keyed(let entries):
            switch ParameterValue.stringKeyed(entries) {
            case .success(let children): try open(children)
            case .failure(let key): throw invalid(key.detail)
            }
        case .otherInteger(let integer): DecimalDigits.append(integer, to: &output)
        case .float(let float): try writeNumber(float)
        case .decimal(let decimal):
            guard !decimal.isNaN else { throw invalid("NaN is not a valid number") }
            append(DecimalText.text(decimal))
        case .jsonText(let node): throw unsupported(node)
        case .date(let date): throw unsupported(date)
        case .data(let data): throw unsupported(data)
        case .unsupported(let value): throw unsupported(value)
        }
    }

    private func unsupported(_ value: Any) -> ParameterEncodingError {
        let kind = "values of type \(String(describing: type(of: value))) are not supported"
        switch value {
        case is Date:
            return invalid(kind + "; JSON has no date type: pass a string (ISO 8601, as `ISO8601DateFormatter().string(from:)` writes it), "
                + "or encode an `Encodable` value with `JSONParameterEncoder` and a `dateEncodingStrategy`")
        case is Data:
            return invalid(kind + "; JSON has no bytes type: pass a string (`base64EncodedString()`), "
                + "or encode an `Encodable` value with `JSONParameterEncoder` and a `dataEncodingStrategy`")
        default:
            return invalid(kind)
        }
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
