import Foundation

// MARK: - FieldTree

/// The body fields of the command line, nested by their bracketed names the way `URLEncoding`
/// and `JSONEncoding` read them back: `user[name]=x` is `{"user": {"name": "x"}}` and
/// `tags[]=a tags[]=b` is `{"tags": ["a", "b"]}`.
struct FieldTree {
    /// A node: a value, an object of nodes, or an array of nodes.
    indirect enum Node {
        case value(any Sendable)
        case object([String: Node])
        case array([Node])

        var parameter: any Sendable {
            switch self {
            case .value(let value): value
            case .object(let members): members.mapValues(\.parameter) as [String: any Sendable]
            case .array(let elements): elements.map(\.parameter) as [any Sendable]
            }
        }
    }

    private(set) var root: [String: Node] = [:]

    /// The fields as `Parameters`.
    var parameters: [String: any Sendable] { root.mapValues(\.parameter) }

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
            return .value(value)
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
