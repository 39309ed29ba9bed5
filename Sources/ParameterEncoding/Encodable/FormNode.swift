import Foundation

// MARK: - FormNode

/// One value of the tree an `Encodable` value is turned into before it is written as a form.
final class FormNode {
    enum Content {
        /// Nothing encoded (yet): written as nothing.
        case empty
        /// A string, number, boolean, `Decimal` or `NSNull`.
        case scalar(any Sendable)
        case keyed(KeyedFormStorage)
        case unkeyed(UnkeyedFormStorage)
    }

    var content: Content = .empty

    /// The node as a `Parameters` value: a scalar, `[any Sendable]`, or a dictionary (sorted) or
    /// ordered pairs (kept in encoding order).
    func parameter(sorted: Bool) -> any Sendable {
        switch content {
        case .empty: [String: any Sendable]()
        case .scalar(let value): value
        case .keyed(let storage): sorted ? storage.dictionary(sorted: true) : storage.pairs(sorted: false)
        case .unkeyed(let storage): storage.nodes.map { $0.parameter(sorted: sorted) }
        }
    }
}

/// The entries of a keyed container, in encoding order; encoding a key again replaces its value.
final class KeyedFormStorage {
    private(set) var keys: [String] = []
    private(set) var nodes: [FormNode] = []
    private var positions: [String: Int] = [:]

    /// A fresh node for `key`, replacing any value encoded for it before.
    func node(forKey key: String) -> FormNode {
        let node = FormNode()
        if let position = positions[key] {
            nodes[position] = node
        } else {
            positions[key] = nodes.count
            keys.append(key)
            nodes.append(node)
        }
        return node
    }

    /// The node for `key` if there is one already (for a nested container asked for twice), or a fresh one.
    func existingOrNewNode(forKey key: String) -> FormNode {
        positions[key].map { nodes[$0] } ?? node(forKey: key)
    }

    func dictionary(sorted: Bool) -> [String: any Sendable] {
        var dictionary: [String: any Sendable] = [:]
        dictionary.reserveCapacity(keys.count)
        for (key, node) in zip(keys, nodes) {
            dictionary[key] = node.parameter(sorted: sorted)
        }
        return dictionary
    }

    func pairs(sorted: Bool) -> [(String, any Sendable)] {
        zip(keys, nodes).map { ($0, $1.parameter(sorted: sorted)) }
    }
}

/// The elements of an unkeyed container.
final class UnkeyedFormStorage {
    var nodes: [FormNode] = []

    func appendNode() -> FormNode {
        let node = FormNode()
        nodes.append(node)
        return node
    }
}
