import Foundation

// MARK: - JSONTree

/// The value tree an `Encodable` value is turned into: by ``JSONTreeEncoder`` for JSON, written
/// by ``JSONTreeWriter``, and by ``FormTreeEncoder`` for forms, written by ``QueryWriter``.
///
/// Flat and typed: scalars are enum cases, and every array and object is an entry list in
/// ``containers``, referred to by position. A container can be written to after others were
/// made (a hand-written `encode(to:)` may interleave containers), and making one costs a single
/// array, not an object per value.
final class JSONTree {
    /// One value.
    enum Value {
        /// Nothing encoded (yet): a form writes nothing for it. Only ``FormTreeEncoder`` makes
        /// it; in JSON a value that encodes nothing is an empty object.
        case nothing
        case null
        case bool(Bool)
        case string(String)
        case integer(Int64)
        case unsigned(UInt64)
        /// A `Double`; always finite in a JSON tree.
        case double(Double)
        /// A `Float`, written as its own shortest text; always finite in a JSON tree.
        case float(Float)
        /// Number text written as it is (`Decimal`, 128-bit integers).
        case numberText(String)
        /// The array or object at this position of ``JSONTree/containers``.
        case container(Int)
    }

    /// One element of an array (its key unused) or member of an object.
    struct Entry {
        var key: String
        var value: Value
    }

    /// An array or an object, its entries in encoding order. An object may hold a key more
    /// than once: the writer keeps its first spelling and its last value, as `JSONEncoder` does.
    struct Container {
        let isObject: Bool
        var entries: [Entry] = []
    }

    /// Entries a container has room for when it gets its first.
    private let initialCapacity = 8

    /// Every array and object, in the order they were made.
    ///
    /// Not checked for overlapping access at run time (the check cost the JSON encoder about
    /// 8% of its time, the form encoder, which reads and writes slots, a fifth): every access
    /// here and in the encoders is a single read, write or append that calls out to nothing,
    /// so no two can overlap.
    @exclusivity(unchecked) var containers: [Container] = []

    init() {
        containers.reserveCapacity(16)
    }

    /// Makes an empty array or object and returns its position.
    func makeContainer(isObject: Bool) -> Int {
        containers.append(Container(isObject: isObject))
        return containers.count - 1
    }

    /// Appends an entry to the container at `index` and returns its position in it.
    @discardableResult
    func append(_ value: consuming Value, key: consuming String = "", to index: Int) -> Int {
        // Room for a few entries at once: growing one at a time cost a reallocation at 1, 2, 4.
        if containers[index].entries.capacity == 0 { containers[index].entries.reserveCapacity(initialCapacity) }
        containers[index].entries.append(Entry(key: key, value: value))
        return containers[index].entries.count - 1
    }

    /// The position of the last entry for `key` (compared as `String`s are, by canonical
    /// equivalence) in the object at `index`: the one that holds its value.
    func lastEntry(forKey key: String, in index: Int) -> Int? {
        containers[index].entries.lastIndex { $0.key == key }
    }

    /// The container that `key` already holds in the object at `index`, if it is of the kind asked for.
    func existingContainer(forKey key: String, in index: Int, isObject: Bool) -> Int? {
        for entry in containers[index].entries.reversed() where entry.key == key {
            guard case .container(let nested) = entry.value, containers[nested].isObject == isObject else { return nil }
            return nested
        }
        return nil
    }
}

// MARK: - Leaves

extension JSONTree {
    /// The common leaf types as tree values, as both encoders write them, recognised by
    /// comparing `T`, which is far cheaper than a cast; once `T` is known, `unsafeBitCast` is
    /// the identity. A `Double` may be NaN or infinite: the JSON encoder checks.
    @inline(__always)
    static func leaf<T: Encodable>(_ value: T) -> JSONTree.Value? {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .integer(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if T.self == URL.self { return .string(unsafeBitCast(value, to: URL.self).absoluteString) }
        if T.self == Decimal.self { return .numberText(DecimalText.text(unsafeBitCast(value, to: Decimal.self))) }
        return nil
    }
}
