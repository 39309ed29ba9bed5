import Foundation

// MARK: - Value dispatch

extension QueryWriter {
    /// Writes one value under the current key; a container is opened for the walk to continue.
    mutating func write(_ value: Any, rawKey: String) throws {
        // Opening the existential hands `classify` the dynamic type as `T`, which it compares
        // directly: three times cheaper than a dynamic cast per value.
        try write(_openExistential(value, do: classifyQueryValue), of: value, rawKey: rawKey)
    }

    /// Writes one `any Sendable` value, opened directly rather than boxed in `Any` first.
    mutating func write(sendable value: any Sendable, rawKey: String) throws {
        try write(_openExistential(value, do: classifyQueryValue), of: value, rawKey: rawKey)
    }

    private mutating func write(_ classified: ClassifiedQueryValue, of value: @autoclosure () -> Any, rawKey: String) throws {
        switch classified {
        case .text(let text): writePair(text: text)
        case .integer(let integer): writePair(integer: integer)
        case .bool(let bool): writePair(bool: bool)
        case .double(let double): writePair(text: double.description)
        case .children(let children): try push(children, rawKey: rawKey)
        case .uncommon: try writeUncommon(value(), rawKey: rawKey)
        }
    }

    private mutating func writeUncommon(_ value: Any, rawKey: String) throws {
        var value = value
        while let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { return writeNil() }
            value = wrapped
        }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return number.isBoolean ? writePair(bool: number.boolValue) : writePair(text: number.description)
        }
        if let container = value as? any QueryContainer {
            return try push(container.queryChildren, rawKey: rawKey)
        }
        if let sequence = value as? any ArrayLikeParameter {
            return try push(.indexed(sequence.parameterElements), rawKey: rawKey)
        }
        if let dictionary = value as? any DescribedKeyContainer {
            return try push(.described(dictionary.describedEntries), rawKey: rawKey)
        }
        if let scalar = value as? any QueryScalar {
            return scalar.writeQueryPair(into: &self)
        }
        // Class checks by metatype: a cast to a class would first try to bridge the value.
        let type = type(of: value)
        if type is NSNull.Type {
            return writeNil()
        }
        if type is NSString.Type, let string = value as? String {
            return writePair(text: string)
        }
        if type is NSDictionary.Type, let dictionary = value as? NSDictionary {
            return try push(.described(dictionary.map { (key: $0.key, value: $0.value) }), rawKey: rawKey)
        }
        if type is NSArray.Type, let array = value as? NSArray {
            return try push(.indexed(array.map { $0 }), rawKey: rawKey)
        }
        writePair(text: String(describing: value))
    }
}

// MARK: - Classification

/// What a value of a common type writes.
enum ClassifiedQueryValue {
    case text(String)
    case integer(Int)
    case bool(Bool)
    case double(Double)
    case children(QueryChildren)
    case uncommon
}

/// Recognises the common types by comparing `T` itself, which never bridges (an `NSNumber`
/// is not read as an `Int`, nor an `Optional` as its payload before `nilEncoding` has had its
/// say). Once `T` is known to be `String`, `unsafeBitCast` to `String` is the identity.
func classifyQueryValue<T>(_ value: T) -> ClassifiedQueryValue {
    if T.self == String.self { return .text(unsafeBitCast(value, to: String.self)) }
    if T.self == Int.self { return .integer(unsafeBitCast(value, to: Int.self)) }
    if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
    if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
    // Generic container types are compared with metatypes looked up once: naming them here
    // would instantiate their metadata on every call.
    let type: Any.Type = T.self
    if type == CommonTypes.sendable {
        // An `any Sendable` boxed as `Any` opens to the inner existential; open that one too.
        return _openExistential(unsafeBitCast(value, to: (any Sendable).self), do: classifyQueryValue)
    }
    if type == CommonTypes.parameters {
        return .children(.parameters(unsafeBitCast(value, to: [String: any Sendable].self)))
    }
    if type == CommonTypes.sendableArray {
        return .children(.indexed(unsafeBitCast(value, to: [any Sendable].self)))
    }
    if type == CommonTypes.stringArray {
        return .children(.indexed(unsafeBitCast(value, to: [String].self).map { $0 as any Sendable }))
    }
    if type == CommonTypes.parametersArray {
        return .children(.indexed(unsafeBitCast(value, to: [[String: any Sendable]].self).map { $0 as any Sendable }))
    }
    if type == CommonTypes.anyDictionary {
        return .children(unsafeBitCast(value, to: [String: Any].self).queryChildren)
    }
    if type == CommonTypes.anyArray {
        return .children(.indexed(unsafeBitCast(value, to: [Any].self)))
    }
    return .uncommon
}

// MARK: - CommonTypes

/// Metatypes of the containers parameters are usually built from, looked up once.
private enum CommonTypes {
    static let sendable: Any.Type = (any Sendable).self
    static let parameters: Any.Type = [String: any Sendable].self
    static let sendableArray: Any.Type = [any Sendable].self
    static let stringArray: Any.Type = [String].self
    static let parametersArray: Any.Type = [[String: any Sendable]].self
    static let anyDictionary: Any.Type = [String: Any].self
    static let anyArray: Any.Type = [Any].self
}

// MARK: - QueryChildren

/// The children of a container: keys (for dictionaries and ordered pairs) and values, with the
/// order to write them in.
struct QueryChildren {
    /// The values, kept as `any Sendable` when they come that way: wrapping an `any Sendable` in
    /// `Any` does not fit `Any`'s inline buffer and would allocate a box per value.
    enum Values {
        case sendable([any Sendable])
        case any([Any])

        var count: Int {
            switch self {
            case .sendable(let values): values.count
            case .any(let values): values.count
            }
        }
    }

    /// Keys, one per value; empty for arrays.
    let keys: [String]
    let values: Values
    /// Positions in writing order; empty means the order of `values`.
    let order: [Int]

    init(keys: [String], values: Values, order: [Int]) {
        self.keys = keys
        self.values = values
        self.order = order
    }

    init(keys: [String], values: [Any], order: [Int]) {
        self.init(keys: keys, values: .any(values), order: order)
    }

    var count: Int { values.count }
    var isKeyed: Bool { !keys.isEmpty }

    /// The position in `keys` and `values` of the `index`-th child to write.
    @inline(__always)
    func slot(_ index: Int) -> Int {
        order.isEmpty ? index : order[index]
    }

    /// A parameters dictionary, sorted by key in ``KeyOrder``, its values kept as they are.
    static func parameters(_ dictionary: [String: any Sendable]) -> QueryChildren {
        let keys = Array(dictionary.keys)
        return QueryChildren(keys: keys, values: .sendable(Array(dictionary.values)), order: KeyOrder.sortedIndices(keys))
    }

    /// Pairs in the order given.
    static func ordered<Pairs: Sequence>(_ pairs: Pairs) -> QueryChildren where Pairs.Element == (String, any Sendable) {
        QueryChildren(keys: pairs.map(\.0), values: .sendable(pairs.map(\.1)), order: [])
    }

    /// Array elements, in order.
    static func indexed(_ values: [Any]) -> QueryChildren {
        QueryChildren(keys: [], values: .any(values), order: [])
    }

    /// Array elements that are `any Sendable`, in order.
    static func indexed(_ values: [any Sendable]) -> QueryChildren {
        QueryChildren(keys: [], values: .sendable(values), order: [])
    }

    /// Dictionary entries, sorted by key in ``KeyOrder``.
    static func sorted(keys: [String], values: [Any]) -> QueryChildren {
        QueryChildren(keys: keys, values: values, order: KeyOrder.sortedIndices(keys))
    }

    /// Entries whose keys are not strings, keyed and sorted by their description (then by the
    /// description of their value, so even colliding descriptions come out in one order).
    static func described(_ entries: [(key: Any, value: Any)]) -> QueryChildren {
        let keys = entries.map { String(describing: $0.key) }
        let values = entries.map(\.value)
        // NUL sorts before every other scalar, so this orders by key, then by value.
        let sortKeys = zip(keys, values).map { $0 + "\u{0}" + String(describing: $1) }
        return QueryChildren(keys: keys, values: values, order: KeyOrder.sortedIndices(sortKeys))
    }
}

// MARK: - QueryContainer

/// A container the writer descends into.
protocol QueryContainer {
    var queryChildren: QueryChildren { get }
}

extension Dictionary: QueryContainer where Key == String {
    var queryChildren: QueryChildren {
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
    var queryChildren: QueryChildren {
        QueryChildren(keys: map(\.key), values: map { $0.value as Any }, order: [])
    }
}

extension Array: QueryContainer {
    var queryChildren: QueryChildren {
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
