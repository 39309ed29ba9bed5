import Foundation

// MARK: - Value dispatch

extension QueryWriter {
    /// Writes one value under the current key, or returns the children of a container for the
    /// walk to continue with.
    mutating func write(_ value: Any) throws -> ParameterChildren? {
        // Opening the existential hands `classify` the dynamic type as `T`, which it compares
        // directly: three times cheaper than a dynamic cast per value.
        write(_openExistential(value, do: classifyParameter))
    }

    /// Writes one `any Sendable` value, opened directly rather than boxed in `Any` first.
    mutating func write(sendable value: any Sendable) throws -> ParameterChildren? {
        write(_openExistential(value, do: classifyParameter))
    }

    /// Writes a value as a query does: every scalar as text (numbers as Swift prints them),
    /// `nil` per `nilEncoding`, a dictionary's non-string keys as their descriptions.
    private mutating func write(_ value: ParameterValue) -> ParameterChildren? {
        switch value {
        case .text(let text): writePair(text: text)
        case .integer(let integer): writePair(integer: integer)
        case .bool(let bool): writePair(bool: bool)
        case .double(let double): writePair(text: double.description)
        case .children(let children): return children
        case .null: writeNil()
        case .number(let number): number.isBoolean ? writePair(bool: number.boolValue) : writePair(text: number.description)
        case .rawJSON(let raw): return write(raw.root)
        case .jsonText(let node): return write(node)
        case .keyed(let entries): return .described(entries)
        case .otherInteger(let integer): writePair(integer: integer)
        case .float(let float): writePair(text: float.description)
        case .decimal(let decimal): writePair(text: DecimalText.text(decimal))
        case .date(let date): writePair(text: String(describing: date))
        case .data(let data): writePair(text: String(describing: data))
        case .unsupported(let value): writePair(text: String(describing: value))
        }
        return nil
    }
}

// MARK: - Tree values

extension QueryWriter {
    /// Writes the entry at `slot` of a ``JSONTree`` container (from ``URLEncodedFormEncoder``)
    /// as the same value in `Parameters` is written: numbers as their `description` or digits,
    /// `nil` per `nilEncoding`. A container is returned for the walk, and so is nothing, as an
    /// empty one. The entry is read in place, and the tree only when a container opens.
    @inline(__always)
    mutating func write(_ entries: [JSONTree.Entry], at slot: Int) -> TreeContainer? {
        switch entries[slot].value {
        case .string(let text): writePair(text: text)
        case .integer(let integer): writePair(integer: integer)
        case .unsigned(let unsigned): writePair(integer: unsigned)
        case .bool(let bool): writePair(bool: bool)
        case .double(let double): writePair(text: double.description)
        case .float(let float): writePair(text: float.description)
        case .numberText(let text): writePair(text: text)
        case .null: writeNil()
        // Like an empty dictionary: no pair, but a level of nesting all the same.
        case .nothing: return TreeContainer(entries: [], isObject: true)
        case .container(let index):
            guard let tree else { return nil }
            return TreeContainer(tree, at: index)
        }
        return nil
    }
}

// MARK: - Raw JSON

extension QueryWriter {
    /// Writes the value a ``RawJSON`` spells: a number as its text, a string without its
    /// quotes, `true`/`false` and `null` as a `Bool` and `nil` are written; arrays and objects
    /// (in their written order) are returned for the walk.
    private mutating func write(_ node: JSONTextNode) -> ParameterChildren? {
        switch node {
        case .string(let text): writePair(text: text)
        case .number(let text): writePair(text: text)
        case .bool(let bool): writePair(bool: bool)
        case .null: writeNil()
        case .array(let elements): return .indexed(elements.map { $0 as Any })
        case .object(let keys, let values): return ParameterChildren(keys: keys, values: .any(values.map { $0 as Any }), ordering: .given)
        }
        return nil
    }
}
