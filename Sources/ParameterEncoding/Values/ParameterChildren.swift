import Foundation

// Containers and the common value types, recognised the same way by every writer.

// MARK: - ParameterChildren

/// The children of a container: keys (for dictionaries and ordered pairs) and values, and how
/// the writer should order them. Each writer sorts keys in its own order (see ``KeyOrder`` and
/// ``JSONKeyOrder``), so sorting waits until a writer asks.
struct ParameterChildren {
    /// The values, kept as `any Sendable` when they come that way: wrapping an `any Sendable` in
    /// `Any` does not fit `Any`'s inline buffer and would allocate a box per value.
    enum Values {
        case sendable([any Sendable])
        case any([Any])
        /// An array of strings, the most common array, kept as it is: its elements need no
        /// classifying and no existential box each.
        case strings([String])

        var count: Int {
            switch self {
            case .sendable(let values): values.count
            case .any(let values): values.count
            case .strings(let values): values.count
            }
        }

        subscript(position: Int) -> Any {
            switch self {
            case .sendable(let values): values[position]
            case .any(let values): values[position]
            case .strings(let values): values[position]
            }
        }
    }

    /// How the children are ordered.
    enum Ordering {
        /// Array elements, in order.
        case array
        /// Ordered pairs, in the caller's order.
        case given
        /// Sorted by key: string-keyed dictionaries.
        case byKey
        /// Keys are descriptions of non-string keys; sorted by key, then by value description.
        case byDescription
    }

    /// Keys, one per value; empty for arrays.
    let keys: [String]
    let values: Values
    let ordering: Ordering

    init(keys: [String], values: Values, ordering: Ordering) {
        self.keys = keys
        self.values = values
        self.ordering = ordering
    }

    var count: Int { values.count }
    var isKeyed: Bool { !keys.isEmpty }
    /// Whether this is a dictionary or ordered pairs (even an empty one), not an array.
    var isObject: Bool { ordering != .array }

    /// The writing order, with dictionary keys sorted by `sortedOrder`.
    func writingOrder(sortingKeysWith sortedOrder: ([String]) -> ChildOrder) -> ChildOrder {
        switch ordering {
        case .array, .given:
            return .asGiven
        case .byKey:
            return sortedOrder(keys)
        case .byDescription:
            // NUL sorts before every other scalar, so this orders by key, then by value.
            return sortedOrder(keys.indices.map { keys[$0] + "\u{0}" + String(describing: values[$0]) })
        }
    }

    /// A parameters dictionary, its values kept as they are.
    static func parameters(_ dictionary: [String: any Sendable]) -> ParameterChildren {
        ParameterChildren(keys: Array(dictionary.keys), values: .sendable(Array(dictionary.values)), ordering: .byKey)
    }

    /// Pairs in the order given.
    static func ordered<Pairs: Sequence>(_ pairs: Pairs) -> ParameterChildren where Pairs.Element == (String, any Sendable) {
        ParameterChildren(keys: pairs.map(\.0), values: .sendable(pairs.map(\.1)), ordering: .given)
    }

    /// Array elements, in order.
    static func indexed(_ values: [Any]) -> ParameterChildren {
        ParameterChildren(keys: [], values: .any(values), ordering: .array)
    }

    /// Array elements that are `any Sendable`, in order.
    static func indexed(_ values: [any Sendable]) -> ParameterChildren {
        ParameterChildren(keys: [], values: .sendable(values), ordering: .array)
    }

    /// Dictionary entries, to be sorted by key.
    static func sorted(keys: [String], values: [Any]) -> ParameterChildren {
        ParameterChildren(keys: keys, values: .any(values), ordering: .byKey)
    }

    /// Entries whose keys are not strings, keyed by their description.
    static func described(_ entries: [(key: Any, value: Any)]) -> ParameterChildren {
        ParameterChildren(keys: entries.map { String(describing: $0.key) }, values: .any(entries.map(\.value)), ordering: .byDescription)
    }
}


// MARK: - ChildOrder

/// The order a container's children are written in.
enum ChildOrder {
    /// The order they are stored in.
    case asGiven
    /// Up to 16 positions, four bits each, the first in the lowest bits: most dictionaries are
    /// this small, and their order then needs no array of its own.
    case packed(UInt64)
    /// Any number of positions.
    case positions([Int])

    /// Containers up to this many children can be ``packed(_:)``.
    static let packableCount = 16

    /// The order of `count` positions that `position(_:)` gives one by one.
    @inline(__always)
    static func make(count: Int, position: (Int) -> Int) -> ChildOrder {
        if count <= packableCount {
            var bits: UInt64 = 0
            for index in 0..<count {
                bits |= UInt64(truncatingIfNeeded: position(index)) << UInt64(4 * index)
            }
            return .packed(bits)
        }
        return .positions(Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                buffer.initializeElement(at: index, to: position(index))
            }
            initialized = count
        })
    }

    /// The position of the `index`-th child to write.
    @inline(__always)
    func slot(_ index: Int) -> Int {
        switch self {
        case .asGiven: index
        case .packed(let bits): Int(truncatingIfNeeded: (bits >> UInt64(4 * index)) & 0xF)
        case .positions(let positions): positions[index]
        }
    }
}

// MARK: - ChildCursor

/// A container being walked: its children in writing order, and the position of the next one.
/// The query and JSON writers each keep a stack of these.
struct ChildCursor {
    let children: ParameterChildren
    let order: ChildOrder
    var next = 0

    /// Starts a walk over `children`, with dictionary keys sorted by `sortedOrder`.
    init(_ children: ParameterChildren, sortingKeysWith sortedOrder: ([String]) -> ChildOrder) {
        self.children = children
        self.order = children.writingOrder(sortingKeysWith: sortedOrder)
    }

    /// Starts a walk in an order worked out already (a tree container's, see ``TreeContainer``).
    init(_ children: ParameterChildren, order: ChildOrder) {
        self.children = children
        self.order = order
    }

    /// The position in the children of the `index`-th child to write.
    @inline(__always)
    func slot(_ index: Int) -> Int {
        order.slot(index)
    }

    /// The component of the child most recently started, for key paths.
    var lastComponent: KeyPathComponent {
        children.isKeyed ? .key(children.keys[slot(next - 1)]) : .index(next - 1)
    }
}
