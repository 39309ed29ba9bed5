import Foundation

// MARK: - Value dispatch

extension QueryWriter {
    /// Writes one value under the current key, descending into containers.
    ///
    /// The common types are recognised by an exact type comparison, which is cheaper than a
    /// cast and never bridges (an `NSNumber` must not be read as an `Int`, nor an `Optional` as
    /// its payload before `nilEncoding` has had its say).
    mutating func write(_ value: Any, depth: Int) throws {
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
        try writeUncommon(value, type: type, depth: depth)
    }

    private mutating func writeUncommon(_ value: Any, type: Any.Type, depth: Int) throws {
        if let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { return writeNil() }
            return try write(wrapped, depth: depth)
        }
        if type is NSNumber.Type, let number = value as? NSNumber {
            return number.isBoolean ? writePair(bool: number.boolValue) : writePair(text: number.description)
        }
        if let container = value as? any QueryContainer {
            try enter(depth: depth + 1)
            return try container.writeQueryEntries(into: &self, depth: depth + 1)
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
            try enter(depth: depth + 1)
            return try writeDescribedEntries(dictionary.map { ($0.key, $0.value) }, depth: depth + 1)
        }
        if let array = value as? NSArray {
            try enter(depth: depth + 1)
            for (index, element) in array.enumerated() {
                try writeElement(at: index, element, depth: depth + 1)
            }
            return
        }
        writePair(text: String(describing: value))
    }

    /// Writes entries whose keys are not strings, keyed and sorted by their description.
    mutating func writeDescribedEntries(_ entries: [(key: Any, value: Any)], depth: Int) throws {
        let described = entries
            .map { (key: String(describing: $0.key), value: $0.value) }
            .sorted { lhs, rhs in
                lhs.key != rhs.key ? lhs.key < rhs.key : String(describing: lhs.value) < String(describing: rhs.value)
            }
        for entry in described {
            try writeEntry(entry.key, entry.value, depth: depth)
        }
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
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws
}

extension Dictionary: QueryContainer {
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws {
        // A same-type cast is an identity check in the runtime: no copy, no per-element work.
        if let stringKeyed = self as? [String: Value] {
            try stringKeyed.writeSortedEntries(into: &writer, depth: depth)
        } else {
            try writer.writeDescribedEntries(map { (key: $0.key as Any, value: $0.value as Any) }, depth: depth)
        }
    }
}

extension Dictionary where Key == String {
    /// Writes entries in `String` `<` order of their keys.
    func writeSortedEntries(into writer: inout QueryWriter, depth: Int) throws {
        if count == 1, let (key, value) = first {
            return try writer.writeEntry(key, value, depth: depth)
        }
        for key in keys.sorted() {
            if let value = self[key] {
                try writer.writeEntry(key, value, depth: depth)
            }
        }
    }
}

extension KeyValuePairs: QueryContainer where Key == String {
    /// Ordered pairs keep the caller's order.
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws {
        for (key, value) in self {
            try writer.writeEntry(key, value, depth: depth)
        }
    }
}

extension Array: QueryContainer {
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws {
        // `[(String, any Sendable)]` is a list of ordered pairs, not an array of tuples.
        if Element.self == (String, any Sendable).self, let pairs = self as? [(String, any Sendable)] {
            for (key, value) in pairs {
                try writer.writeEntry(key, value, depth: depth)
            }
            return
        }
        try writer.writeElements(self, depth: depth)
    }
}

extension ContiguousArray: QueryContainer {
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws {
        try writer.writeElements(self, depth: depth)
    }
}

extension ArraySlice: QueryContainer {
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws {
        try writer.writeElements(self, depth: depth)
    }
}

extension Set: QueryContainer {
    /// A set has no order of its own; its elements are written sorted by their description so
    /// the output is the same in every run.
    func writeQueryEntries(into writer: inout QueryWriter, depth: Int) throws {
        try writer.writeElements(map { $0 as Any }.sorted { String(describing: $0) < String(describing: $1) }, depth: depth)
    }
}

extension QueryWriter {
    mutating func writeElements<Elements: Collection>(_ elements: Elements, depth: Int) throws {
        for (index, element) in elements.enumerated() {
            try writeElement(at: index, element, depth: depth)
        }
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
