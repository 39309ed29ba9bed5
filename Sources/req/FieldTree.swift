import Foundation

// MARK: - FieldTree

/// The body fields of the command line, nested by their bracketed names the way `URLEncoding`
/// and `JSONEncoding` read them back: `user[name]=x` is `{"user": {"name": "x"}}` and
/// `tags[]=a tags[]=b` is `{"tags": ["a", "b"]}`. A name given more than once keeps every value,
/// in the command line's order: `a=1 a=2` is `a=1&a=2` in a form and `{"a": ["1", "2"]}` in JSON
/// (as httpie 3 does).
struct FieldTree {
    /// A node: a value, an object of nodes, or an array of nodes.
    indirect enum Node {
        case value(any Sendable)
        case object([String: Node])
        case array([Node])
        /// The values of one name given more than once, in the order given.
        case repeated([Node])

        /// The node for JSON and property lists: repeated values are an array.
        var parameter: any Sendable {
            switch self {
            case .value(let value): value
            case .object(let members): members.mapValues(\.parameter) as [String: any Sendable]
            case .array(let elements), .repeated(let elements): elements.map(\.parameter) as [any Sendable]
            }
        }

        /// The node for forms and query strings: objects are ordered pairs, so that a repeated
        /// name is written once per value (`a=1&a=2`).
        var formParameter: any Sendable {
            switch self {
            case .value(let value): value
            case .object(let members): FieldTree.pairs(members) as [(String, any Sendable)]
            case .array(let elements), .repeated(let elements): elements.map(\.formParameter) as [any Sendable]
            }
        }
    }

    private(set) var root: [String: Node] = [:]

    /// The fields as `Parameters`, for JSON and property lists.
    var parameters: [String: any Sendable] { root.mapValues(\.parameter) }

    /// The fields as ordered pairs, for forms and query strings: names sorted as the library
    /// sorts dictionary keys, a repeated name once per value in the command line's order.
    var pairs: [(String, any Sendable)] { Self.pairs(root) }

    static func pairs(_ members: [String: Node]) -> [(String, any Sendable)] {
        var pairs: [(String, any Sendable)] = []
        for key in sortedKeys(members.keys) {
            guard let node = members[key] else { continue }
            if case .repeated(let values) = node {
                pairs += values.map { (key, $0.formParameter) }
            } else {
                pairs.append((key, node.formParameter))
            }
        }
        return pairs
    }

    /// The library's key order: Unicode canonical order (NFC, then UTF-8 bytes), ties between
    /// spellings of one key broken by their own bytes.
    private static func sortedKeys(_ keys: Dictionary<String, Node>.Keys) -> [String] {
        keys.map { (key: $0, normalized: Array($0.precomposedStringWithCanonicalMapping.utf8)) }
            .sorted { lhs, rhs in
                lhs.normalized == rhs.normalized
                    ? lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
                    : lhs.normalized.lexicographicallyPrecedes(rhs.normalized)
            }
            .map(\.key)
    }

    var isEmpty: Bool { root.isEmpty }

    /// Adds a field under a possibly bracketed name.
    ///
    /// - Throws: ``UsageError`` for a malformed name, or one that mixes an object and an array.
    mutating func add(_ name: String, _ value: any Sendable) throws {
        let path = try Self.path(of: name)
        let first = path[0]
        guard case .key(let key) = first else {
            throw UsageError("field \"\(name)\" must start with a name")
        }
        root[key] = try Self.insert(value, into: root[key], along: path.dropFirst(), name: name)
    }

    enum Step: Equatable {
        case key(String)
        case append
    }

    /// `a[b][]` as `[.key("a"), .key("b"), .append]`; a name without brackets is one key.
    static func path(of name: String) throws -> [Step] {
        guard let open = name.firstIndex(of: "["), name.hasSuffix("]") else { return [.key(name)] }
        var steps: [Step] = [.key(String(name[..<open]))]
        var rest = name[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else {
                throw UsageError("field name \"\(name)\" has unbalanced brackets")
            }
            let key = rest[rest.index(after: rest.startIndex)..<close]
            steps.append(key.isEmpty ? .append : .key(String(key)))
            rest = rest[rest.index(after: close)...]
        }
        if steps[0] == .key("") {
            throw UsageError("field name \"\(name)\" has nothing before its first bracket")
        }
        return steps
    }

    private static func insert(_ value: any Sendable, into node: Node?, along path: ArraySlice<Step>, name: String) throws -> Node {
        guard let step = path.first else {
            switch node {
            case nil: return .value(value)
            case .value(let earlier)?: return .repeated([.value(earlier), .value(value)])
            case .repeated(var values)?:
                values.append(.value(value))
                return .repeated(values)
            case .object?, .array?:
                throw UsageError("field \"\(name)\" conflicts with an earlier field of the same name")
            }
        }
        switch (step, node) {
        case (.append, nil):
            return .array([try insert(value, into: nil, along: path.dropFirst(), name: name)])
        case (.append, .array(var elements)?):
            elements.append(try insert(value, into: nil, along: path.dropFirst(), name: name))
            return .array(elements)
        case (.key(let key), nil):
            return .object([key: try insert(value, into: nil, along: path.dropFirst(), name: name)])
        case (.key(let key), .object(var members)?):
            members[key] = try insert(value, into: members[key], along: path.dropFirst(), name: name)
            return .object(members)
        default:
            throw UsageError("field \"\(name)\" conflicts with an earlier field of the same name")
        }
    }
}
