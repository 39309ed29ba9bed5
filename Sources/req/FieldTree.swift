import Foundation
import Requests

// MARK: - FieldTree

/// The body fields of the command line, nested by their bracketed names.
///
/// For JSON these are httpie's nested-JSON rules: `user[name]=x` is `{"user": {"name": "x"}}`,
/// `tags[]=a tags[]=b` appends (`{"tags": ["a", "b"]}`), an index makes an array
/// (`a[0]=x a[1]=y` is `{"a": ["x", "y"]}`, `a[2]=x` is `{"a": [null, null, "x"]}`), and a name
/// that starts with a bracket makes the body a top-level array (`[]:=1 []:=2` is `[1, 2]`,
/// `[0]=a` is `["a"]`). `\[` and `\]` are literal brackets. Objects keep the command line's key
/// order. For forms and query strings (``Mode/form``) an index is a key like any other, so
/// `a[0]=x` is sent as `a%5B0%5D=x`, as typed, and names are sorted as the library sorts keys.
///
/// A name given more than once keeps every value, in the command line's order: `a=1 a=2` is
/// `a=1&a=2` in a form and `{"a": ["1", "2"]}` in JSON.
struct FieldTree {
    /// How bracketed names are read.
    enum Mode {
        /// httpie's nested-JSON rules: indexes make arrays, a leading bracket a top-level array,
        /// a malformed name is an error.
        case json
        /// Forms and query strings: an index is a key, a malformed name is one literal key.
        case form
    }

    /// A node: a value, an object of nodes, or an array of nodes.
    indirect enum Node {
        case value(any Sendable)
        case object(Members)
        /// Elements; `nil` is a hole left by an index beyond the end, sent as `null`.
        case array([Node?])
        /// The values of one name given more than once, in the order given.
        case repeated([Node])

        /// The node for JSON and property lists: repeated values are an array; objects are
        /// ordered pairs in the command line's order, or dictionaries (which the library sorts)
        /// with `sorted`.
        func parameter(sorted: Bool) -> any Sendable {
            switch self {
            case .value(let value):
                return value
            case .object(let members):
                if sorted {
                    var dictionary: [String: any Sendable] = [:]
                    for (key, node) in members.ordered { dictionary[key] = node.parameter(sorted: true) }
                    return dictionary
                }
                return members.ordered.map { ($0.0, $0.1.parameter(sorted: false)) } as [(String, any Sendable)]
            case .array(let elements):
                return elements.map { $0?.parameter(sorted: sorted) ?? FieldTree.null } as [any Sendable]
            case .repeated(let elements):
                return elements.map { $0.parameter(sorted: sorted) } as [any Sendable]
            }
        }

        /// The node for forms and query strings: objects are ordered pairs sorted by key, so that a
        /// repeated name is written once per value (`a=1&a=2`).
        var formParameter: any Sendable {
            switch self {
            case .value(let value): value
            case .object(let members): FieldTree.pairs(members) as [(String, any Sendable)]
            case .array(let elements): elements.map { $0?.formParameter ?? FieldTree.null } as [any Sendable]
            case .repeated(let elements): elements.map(\.formParameter) as [any Sendable]
            }
        }
    }

    /// An object's members in the order their names first appeared.
    struct Members {
        private(set) var keys: [String] = []
        private(set) var nodes: [String: Node] = [:]

        subscript(key: String) -> Node? {
            get { nodes[key] }
            set {
                if nodes[key] == nil, newValue != nil { keys.append(key) }
                nodes[key] = newValue
            }
        }

        var ordered: [(String, Node)] { keys.compactMap { key in nodes[key].map { (key, $0) } } }
        var isEmpty: Bool { keys.isEmpty }
    }

    /// JSON `null`, for the holes an index beyond an array's end leaves.
    static let null: any Sendable = (try? RawJSON("null")) ?? ""

    let mode: Mode
    private var root: Node?
    /// The item that made the root an array or an object, for messages.
    private var rootItem = ""

    init(mode: Mode) {
        self.mode = mode
    }

    var isEmpty: Bool { root == nil }

    /// Whether the fields form a top-level array (`[]:=1`).
    var isArray: Bool {
        if case .array? = root { return true }
        return false
    }

    /// The fields as one JSON value: an object in the command line's order (sorted with
    /// `sorted`), or a top-level array; `nil` without fields.
    func jsonObject(sorted: Bool) -> (any Sendable)? {
        root?.parameter(sorted: sorted)
    }

    /// The fields as `Parameters`, for property lists.
    ///
    /// - Throws: ``UsageError`` for a top-level array, which only JSON can send.
    func parameters() throws -> [String: any Sendable] {
        guard let root else { return [:] }
        guard case .object(let members) = root else {
            throw UsageError("\"\(rootItem)\": a top-level array can only be sent as JSON")
        }
        var dictionary: [String: any Sendable] = [:]
        for (key, node) in members.ordered { dictionary[key] = node.parameter(sorted: true) }
        return dictionary
    }

    /// The fields as ordered pairs, for forms and query strings: names sorted as the library
    /// sorts dictionary keys, a repeated name once per value in the command line's order.
    var pairs: [(String, any Sendable)] {
        guard case .object(let members)? = root else { return [] }
        return Self.pairs(members)
    }

    static func pairs(_ members: Members) -> [(String, any Sendable)] {
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
    private static func sortedKeys(_ keys: [String]) -> [String] {
        keys.map { (key: $0, normalized: Array($0.precomposedStringWithCanonicalMapping.utf8)) }
            .sorted { lhs, rhs in
                lhs.normalized == rhs.normalized
                    ? lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
                    : lhs.normalized.lexicographicallyPrecedes(rhs.normalized)
            }
            .map(\.key)
    }

    /// Adds a field under a possibly bracketed name.
    ///
    /// - Parameters:
    ///   - name: The field's name, as typed (after the item's own escapes).
    ///   - value: Its value.
    ///   - item: The whole item, for messages.
    /// - Throws: ``UsageError`` naming the item for a malformed name, or one that uses a value,
    ///   an object and an array as one another.
    mutating func add(_ name: String, _ value: any Sendable, item: String) throws {
        let path = try FieldPath.parse(name, mode: mode, item: item)
        if root == nil { rootItem = item }
        let field = Field(item: item, name: name, rootItem: rootItem)
        root = try Self.insert(value, into: root, along: path[...], field: field, at: "")
    }

    /// The item being added, for messages.
    private struct Field {
        let item: String
        let name: String
        let rootItem: String
    }

    private static func insert(
        _ value: any Sendable, into node: Node?, along path: ArraySlice<FieldPath.Step>, field: Field, at place: String
    ) throws -> Node {
        let item = field.item
        guard let step = path.first else {
            switch node {
            case nil: return .value(value)
            case .value(let earlier)?: return .repeated([.value(earlier), .value(value)])
            case .repeated(var values)?:
                values.append(.value(value))
                return .repeated(values)
            case .object?, .array?:
                throw UsageError("\"\(item)\": the field \"\(field.name)\" is a value, but \(place) is already \(describe(node))")
            }
        }
        let rest = path.dropFirst()
        let next = place.isEmpty ? step.leadingText : place + step.text
        switch (step, node) {
        case (.key(let key), nil):
            var members = Members()
            members[key] = try insert(value, into: nil, along: rest, field: field, at: next)
            return .object(members)
        case (.key(let key), .object(var members)?):
            members[key] = try insert(value, into: members[key], along: rest, field: field, at: next)
            return .object(members)
        case (.append, nil):
            return .array([try insert(value, into: nil, along: rest, field: field, at: next)])
        case (.append, .array(var elements)?):
            elements.append(try insert(value, into: nil, along: rest, field: field, at: next))
            return .array(elements)
        case (.index(let index), nil):
            var elements = [Node?](repeating: nil, count: index + 1)
            elements[index] = try insert(value, into: nil, along: rest, field: field, at: next)
            return .array(elements)
        case (.index(let index), .array(var elements)?):
            if index >= elements.count { elements += [Node?](repeating: nil, count: index + 1 - elements.count) }
            if rest.isEmpty, elements[index] != nil {
                throw UsageError("\"\(item)\": \(next) is set twice; give each index once")
            }
            elements[index] = try insert(value, into: elements[index], along: rest, field: field, at: next)
            return .array(elements)
        default:
            let wanted = if case .key = step { "an object" } else { "an array" }
            let holder = place.isEmpty ? "the body" : place
            let origin = place.isEmpty ? " (from \"\(field.rootItem)\")" : ""
            throw UsageError(
                "\"\(item)\": the field \"\(field.name)\" needs \(holder) to be \(wanted), but \(holder) is already \(describe(node))\(origin)"
            )
        }
    }

    private static func describe(_ node: Node?) -> String {
        switch node {
        case nil: "empty"
        case .value?, .repeated?: "a value"
        case .object?: "an object"
        case .array?: "an array"
        }
    }
}
