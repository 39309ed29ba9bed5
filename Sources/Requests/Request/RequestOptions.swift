import Foundation

// MARK: - RequestOptionKey

/// A key for one per-request setting: its type, and the value a request has when nobody set it.
///
/// Declare a key as a type, and read or set its value through ``RequestOptions``:
///
/// ```swift
/// enum TraceID: RequestOptionKey {
///     static let defaultValue: String? = nil
/// }
/// request.options[TraceID.self] = "4bf92f35"
/// ```
public protocol RequestOptionKey {
    /// The type of the setting's value.
    associatedtype Value: Sendable
    /// The value of a request that does not set this key.
    static var defaultValue: Value { get }
}

// MARK: - RequestOptions

/// Per-request settings, each under a typed key with a default value: the call's timeout, its
/// redirect policy, whether retry applies, the operation's name, and any key of your own.
///
/// Every stage of the pipeline can read them; a session's options apply to each of its calls,
/// and a call's options replace the session's key by key (``merging(_:)``).
public struct RequestOptions: Sendable {
    /// The keys set, in the order they were first set, and their values. A request sets a few
    /// keys at most, so a list is quicker than a dictionary here.
    private var entries: [(key: ObjectIdentifier, value: any Sendable)] = []

    /// Options with no key set: every key reads its default.
    public init() {}

    /// The value set for `key`, or its default.
    ///
    /// - Parameter key: The key's type.
    public subscript<Key: RequestOptionKey>(key: Key.Type) -> Key.Value {
        get {
            let id = ObjectIdentifier(key)
            for entry in entries where entry.key == id {
                // Values are stored under their key's identity only through this subscript,
                // with the key's own type.
                if let value = entry.value as? Key.Value { return value }
            }
            return Key.defaultValue
        }
        set {
            let id = ObjectIdentifier(key)
            if let index = entries.firstIndex(where: { $0.key == id }) {
                entries[index].value = newValue
            } else {
                entries.append((id, newValue))
            }
        }
    }

    /// Whether `key` was set, rather than reading its default.
    ///
    /// - Parameter key: The key's type.
    /// - Returns: `true` once a value was set for it.
    public func contains<Key: RequestOptionKey>(_ key: Key.Type) -> Bool {
        let id = ObjectIdentifier(key)
        return entries.contains { $0.key == id }
    }

    /// Forgets the value set for `key`, which reads its default again.
    ///
    /// - Parameter key: The key's type.
    public mutating func remove<Key: RequestOptionKey>(_ key: Key.Type) {
        let id = ObjectIdentifier(key)
        entries.removeAll { $0.key == id }
    }

    /// These options with every key that `other` sets taken from `other`: a call's options over
    /// its session's.
    ///
    /// - Parameter other: The options that win.
    /// - Returns: The merged options.
    public func merging(_ other: RequestOptions) -> RequestOptions {
        guard !entries.isEmpty else { return other }
        var merged = self
        for entry in other.entries {
            if let index = merged.entries.firstIndex(where: { $0.key == entry.key }) {
                merged.entries[index].value = entry.value
            } else {
                merged.entries.append(entry)
            }
        }
        return merged
    }

    /// How many keys are set.
    public var count: Int { entries.count }
}
