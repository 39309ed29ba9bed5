import Foundation

// MARK: - FormKeyedContainer

/// The keyed container of ``FormTreeEncoder``.
///
/// It holds the node it writes into rather than that node's storage, so that it writes into
/// whatever the node holds when it writes (see ``FormEncodingState`` for how containers share a node).
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: FormEncodingState
    let node: FormNode
    let codingPath: [any CodingKey]

    private var storage: KeyedFormStorage { state.keyedStorage(of: node) }

    private func set(_ value: any Sendable, forKey key: Key) {
        storage.node(forKey: state.name(of: key)).content = .scalar(value)
    }

    private func setOptional(_ value: (some Sendable)?, forKey key: Key) {
        if let value {
            set(value, forKey: key)
        } else {
            set(NSNull(), forKey: key)
        }
    }

    mutating func encodeNil(forKey key: Key) { set(NSNull(), forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(value, forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try state.box(value, into: storage.node(forKey: state.name(of: key)), codingPath: codingPath + [key])
    }

    // MARK: Optionals

    // A synthesised conformance writes an `Optional` property with `encodeIfPresent`, whose
    // default leaves a `nil` out. Here a `nil` is an explicit `nil`, so `nilEncoding` decides:
    // left out (`.dropKey`, the default), `key=` or `key=null`, as in Alamofire.

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) { setOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) { setOptional(value, forKey: key) }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            encodeNil(forKey: key)
        }
    }

    // MARK: Nested containers

    /// A keyed container under `key`: the one already there if there is one (entries merge).
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = storage.existingOrNewNode(forKey: state.name(of: key))
        if case .empty = nested.content { nested.content = .keyed(KeyedFormStorage()) }
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(state: state, node: nested, codingPath: codingPath + [key]))
    }

    /// An unkeyed container under `key`: the array already there if there is one (elements
    /// append); a keyed container there is replaced when this one first writes.
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = storage.existingOrNewNode(forKey: state.name(of: key))
        if case .empty = nested.content { nested.content = .unkeyed(UnkeyedFormStorage()) }
        return FormUnkeyedContainer(state: state, node: nested, codingPath: codingPath + [key])
    }

    /// An encoder for this container's own node, as Alamofire's is: a superclass's keys are
    /// written beside the subclass's, not under a `super` key.
    mutating func superEncoder() -> any Encoder {
        FormTreeEncoder(state: state, node: node, codingPath: codingPath)
    }

    /// An encoder for the value under `key`, which it writes into (merging with a container of
    /// the same kind there).
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FormTreeEncoder(state: state, node: storage.existingOrNewNode(forKey: state.name(of: key)), codingPath: codingPath + [key])
    }
}
