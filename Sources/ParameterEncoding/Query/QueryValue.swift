import Foundation

// MARK: - Value dispatch

extension QueryWriter {
    /// Writes one value under the current key, or returns the children of a container for the
    /// walk to continue with.
    mutating func write(_ value: Any) throws -> ParameterChildren? {
        // Opening the existential hands `classify` the dynamic type as `T`, which it compares
        // directly: three times cheaper than a dynamic cast per value.
        write(_openExistential(value, do: classifyParameter), of: value)
    }

    /// Writes one `any Sendable` value, opened directly rather than boxed in `Any` first.
    mutating func write(sendable value: any Sendable) throws -> ParameterChildren? {
        write(_openExistential(value, do: classifyParameter), of: value)
    }

    private mutating func write(_ classified: ClassifiedParameter, of value: @autoclosure () -> Any) -> ParameterChildren? {
        switch classified {
        case .text(let text): writePair(text: text)
        case .integer(let integer): writePair(integer: integer)
        case .bool(let bool): writePair(bool: bool)
        case .double(let double): writePair(text: double.description)
        case .children(let children): return children
        case .uncommon: return writeUncommon(value())
        }
        return nil
    }

    private mutating func writeUncommon(_ value: Any) -> ParameterChildren? {
        var value = value
        while let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else {
                writeNil()
                return nil
            }
            value = wrapped
        }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            number.isBoolean ? writePair(bool: number.boolValue) : writePair(text: number.description)
            return nil
        }
        if type(of: value) == RawJSON.self, let raw = value as? RawJSON {
            return write(raw.root)
        }
        if type(of: value) == JSONTextNode.self, let node = value as? JSONTextNode {
            return write(node)
        }
        if let container = value as? any QueryContainer {
            return container.queryChildren
        }
        if let sequence = value as? any ArrayLikeParameter {
            return .indexed(sequence.parameterElements)
        }
        if let dictionary = value as? any DescribedKeyContainer {
            return .described(dictionary.describedEntries)
        }
        if let scalar = value as? any QueryScalar {
            scalar.writeQueryPair(into: &self)
            return nil
        }
        // Class checks by metatype: a cast to a class would first try to bridge the value.
        let type = type(of: value)
        if type is NSNull.Type {
            writeNil()
            return nil
        }
        if type is NSString.Type, let string = value as? String {
            writePair(text: string)
            return nil
        }
        if type is NSDictionary.Type, let dictionary = value as? NSDictionary {
            return .described(dictionary.map { (key: $0.key, value: $0.value) })
        }
        if type is NSArray.Type, let array = value as? NSArray {
            return .indexed(array.map { $0 })
        }
        writePair(text: String(describing: value))
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

// MARK: - QueryContainer

/// A container the writer descends into.
protocol QueryContainer {
    var queryChildren: ParameterChildren { get }
}

extension Dictionary: QueryContainer where Key == String {
    var queryChildren: ParameterChildren {
        .sorted(keys: Array(keys), values: values.map { $0 as Any })
    }
}

/// A dictionary whose keys are not strings; its keys are written as their description.
protocol DescribedKeyContainer {
    var describedEntries: [(key: Any, value: Any)] { get }
}

extension Dictionary: DescribedKeyContainer {
    var describedEntries: [(key: Any, value: Any)] {
        map { (key: $0.key as Any, value: $0.value as Any) }
    }
}

extension KeyValuePairs: QueryContainer where Key == String {
    /// Ordered pairs keep the caller's order.
    var queryChildren: ParameterChildren {
        ParameterChildren(keys: map(\.key), values: .any(map { $0.value as Any }), ordering: .given)
    }
}

extension Array: QueryContainer {
    var queryChildren: ParameterChildren {
        // `[(String, any Sendable)]` is a list of ordered pairs, not an array of tuples.
        if Element.self == (String, any Sendable).self, let pairs = self as? [(String, any Sendable)] {
            return .ordered(pairs)
        }
        return .indexed(map { $0 as Any })
    }
}

// MARK: - QueryScalar

/// A value with one text form, written as a single pair.
protocol QueryScalar {
    func writeQueryPair(into writer: inout QueryWriter)
}

extension QueryScalar where Self: BinaryInteger {
    func writeQueryPair(into writer: inout QueryWriter) {
        writer.writePair(integer: self)
    }
}

/// A scalar written as its `description`: the same text Swift prints for it.
protocol DescribedQueryScalar: QueryScalar, CustomStringConvertible {}

extension DescribedQueryScalar {
    func writeQueryPair(into writer: inout QueryWriter) {
        writer.writePair(text: description)
    }
}

extension Int: QueryScalar {}
extension Int8: QueryScalar {}
extension Int16: QueryScalar {}
extension Int32: QueryScalar {}
extension Int64: QueryScalar {}
extension UInt: QueryScalar {}
extension UInt8: QueryScalar {}
extension UInt16: QueryScalar {}
extension UInt32: QueryScalar {}
extension UInt64: QueryScalar {}
extension Double: DescribedQueryScalar {}
extension Float: DescribedQueryScalar {}
extension Decimal: DescribedQueryScalar {}
extension Substring: DescribedQueryScalar {}
extension Character: DescribedQueryScalar {}

extension String: QueryScalar {
    func writeQueryPair(into writer: inout QueryWriter) {
        writer.writePair(text: self)
    }
}

extension Bool: QueryScalar {
    func writeQueryPair(into writer: inout QueryWriter) {
        writer.writePair(bool: self)
    }
}
