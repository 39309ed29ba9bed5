import Foundation

// MARK: - Value dispatch

extension QueryWriter {
    /// Writes one value under the current key; a container is opened for the walk to continue.
    ///
    /// The common types are recognised by an exact type comparison, which is cheaper than a
    /// cast and never bridges (an `NSNumber` must not be read as an `Int`, nor an `Optional` as
    /// its payload before `nilEncoding` has had its say).
    mutating func write(_ value: Any, rawKey: String) throws {
        let type = type(of: value)
        if type == String.self, let string = value as? String {
            return writePair(text: string)
        }
        if type == Int.self, let integer = value as? Int {
            return writePair(integer: integer)
        }
        if type == Bool.self, let bool = value as? Bool {
            return writePair(bool: bool)
        }
        if type == Double.self, let double = value as? Double {
            return writePair(text: double.description)
        }
        try writeUncommon(value, rawKey: rawKey)
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
        if let dictionary = value as? any DescribedKeyContainer {
            return try push(.described(dictionary.describedEntries), rawKey: rawKey)
        }
        if let scalar = value as? any QueryScalar {
            return scalar.writeQueryPair(into: &self)
        }
        if value is NSNull {
            return writeNil()
        }
        if let string = value as? String {
            return writePair(text: string)
        }
        if let dictionary = value as? NSDictionary {
            return try push(.described(dictionary.map { (key: $0.key, value: $0.value) }), rawKey: rawKey)
        }
        if let array = value as? NSArray {
            return try push(.indexed(array.map { $0 }), rawKey: rawKey)
        }
        writePair(text: String(describing: value))
    }
}

// MARK: - QueryChildren

/// The children of a container, in the order they are written.
enum QueryChildren {
    /// Named children: dictionary entries (sorted) or ordered pairs (as given).
    case keyed([(key: String, value: Any)])
    /// Array elements.
    case indexed([Any])

    var count: Int {
        switch self {
        case .keyed(let entries): entries.count
        case .indexed(let elements): elements.count
        }
    }

    /// Entries whose keys are not strings, keyed and sorted by their description (then by the
    /// description of their value, so even colliding descriptions come out in one order).
    static func described(_ entries: [(key: Any, value: Any)]) -> QueryChildren {
        let described = entries.map { (key: String(describing: $0.key), value: $0.value) }
        // NUL sorts before every other scalar, so this orders by key, then by value.
        return .keyed(KeyOrder.sorted(described) { $0.key + "\u{0}" + String(describing: $0.value) })
    }
}

// MARK: - OptionalParameter

/// Lets the writer see through `Optional` without knowing its payload type.
protocol OptionalParameter {
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    var wrappedParameter: Any? { map { $0 as Any } }
}

// MARK: - QueryContainer

/// A container the writer descends into.
protocol QueryContainer {
    var queryChildren: QueryChildren { get }
}

extension Dictionary: QueryContainer where Key == String {
    var queryChildren: QueryChildren {
        let keys = Array(self.keys)
        let values = Array(self.values)
        return .keyed(KeyOrder.sortedIndices(keys).map { (key: keys[$0], value: values[$0] as Any) })
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
        .keyed(map { (key: $0.key, value: $0.value as Any) })
    }
}

extension Array: QueryContainer {
    var queryChildren: QueryChildren {
        // `[(String, any Sendable)]` is a list of ordered pairs, not an array of tuples.
        if Element.self == (String, any Sendable).self, let pairs = self as? [(String, any Sendable)] {
            return .keyed(pairs.map { (key: $0.0, value: $0.1 as Any) })
        }
        return .indexed(map { $0 as Any })
    }
}

extension ContiguousArray: QueryContainer {
    var queryChildren: QueryChildren { .indexed(map { $0 as Any }) }
}

extension ArraySlice: QueryContainer {
    var queryChildren: QueryChildren { .indexed(map { $0 as Any }) }
}

extension Set: QueryContainer {
    /// A set has no order of its own; its elements are written sorted by their description so
    /// the output is the same in every run.
    var queryChildren: QueryChildren {
        .indexed(KeyOrder.sorted(map { $0 as Any }) { String(describing: $0) })
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

// MARK: - NSNumber

extension NSNumber {
    /// Whether this number is a boolean (`kCFBooleanTrue`/`kCFBooleanFalse`), not an integer.
    package var isBoolean: Bool {
        self === NSNumber(value: true) || self === NSNumber(value: false)
            || String(describing: type(of: self)) == "__NSCFBoolean"
    }
}
