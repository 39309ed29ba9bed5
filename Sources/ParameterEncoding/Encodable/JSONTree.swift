// MARK: - JSONTree

/// The JSON value tree an `Encodable` value is turned into by ``JSONTreeEncoder`` and written
/// by ``JSONTreeWriter``.
///
/// Flat and typed: scalars are enum cases, and every array and object is an entry list in
/// ``containers``, referred to by position. A container can be written to after others were
/// made (a hand-written `encode(to:)` may interleave containers), and making one costs a single
/// array, not an object per value.
final class JSONTree {
    /// One JSON value.
    enum Value {
        case null
        case bool(Bool)
        case string(String)
        case integer(Int64)
        case unsigned(UInt64)
        /// A finite `Double`.
        case double(Double)
        /// A finite `Float`, written as its own shortest text.
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

    /// Every array and object, in the order they were made.
    var containers: [Container] = []

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
    func append(_ value: Value, key: String = "", to index: Int) -> Int {
        containers[index].entries.append(Entry(key: key, value: value))
        return containers[index].entries.count - 1
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
