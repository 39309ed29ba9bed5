import Foundation

// MARK: - FormKeyedContainer

/// The keyed container of ``FormTreeEncoder``.
///
/// It holds the slot it writes into rather than the object there, so that it writes into
/// whatever the slot holds when it writes (see ``FormEncodingState`` for how containers share
/// a slot).
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FormTreeEncoder
    let slot: FormSlot
    let path: EncodingPath

    var codingPath: [any CodingKey] { encoder.state.codingPath(path) }

    /// The object this container last wrote to, and ``FormEncodingState/replacements`` then:
    /// while that count stays the same, the slot still holds the object.
    private var lastObject = -1
    private var lastReplacements = -1

    init(encoder: FormTreeEncoder, slot: FormSlot, path: EncodingPath) {
        self.encoder = encoder
        self.slot = slot
        self.path = path
    }

    /// The object the slot holds, or a new one that replaces what it held.
    private mutating func object() -> Int {
        if lastReplacements == encoder.state.replacements { return lastObject }
        lastObject = encoder.state.writableContainer(in: slot, isObject: true)
        lastReplacements = encoder.state.replacements
        return lastObject
    }

    private mutating func put(_ value: JSONTree.Value, forKey key: Key) {
        let object = object()
        encoder.state.tree.append(value, key: encoder.state.name(of: key), to: object)
    }

    mutating func encodeNil(forKey key: Key) { put(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) { put(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) { put(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) { put(.double(value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) { put(.float(value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) { put(.integer(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { put(.unsigned(value), forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let leaf = JSONTree.leaf(value) { return put(leaf, forKey: key) }
        let object = object()
        let entry = encoder.state.tree.append(.nothing, key: encoder.state.name(of: key), to: object)
        var key = key
        try encoder.boxNonLeaf(value, into: FormSlot(container: object, entry: entry), parent: path, key: &key)
    }

    // MARK: Optionals

    // A synthesised conformance writes an `Optional` property with `encodeIfPresent`, whose
    // default leaves a `nil` out. Here a `nil` is an explicit `nil`, so `nilEncoding` decides:
    // left out (`.dropKey`, the default), `key=` or `key=null`, as in Alamofire.

    private mutating func putOptional<Value>(_ value: Value?, forKey key: Key, _ scalar: (Value) -> JSONTree.Value) {
        put(value.map(scalar) ?? .null, forKey: key)
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { putOptional(value, forKey: key) { .bool($0) } }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) { putOptional(value, forKey: key) { .string($0) } }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) { putOptional(value, forKey: key) { .double($0) } }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) { putOptional(value, forKey: key) { .float($0) } }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { putOptional(value, forKey: key) { .integer(Int64($0)) } }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) { putOptional(value, forKey: key) { .integer(Int64($0)) } }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) { putOptional(value, forKey: key) { .integer(Int64($0)) } }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) { putOptional(value, forKey: key) { .integer(Int64($0)) } }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) { putOptional(value, forKey: key) { .integer($0) } }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) { putOptional(value, forKey: key) { .unsigned(UInt64($0)) } }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) { putOptional(value, forKey: key) { .unsigned(UInt64($0)) } }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) { putOptional(value, forKey: key) { .unsigned(UInt64($0)) } }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) { putOptional(value, forKey: key) { .unsigned(UInt64($0)) } }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) { putOptional(value, forKey: key) { .unsigned($0) } }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            encodeNil(forKey: key)
        }
    }

    // MARK: Nested containers

    /// The slot of `key` in this container's object: the one already there if there is one.
    private mutating func existingOrNewSlot(forKey key: Key) -> FormSlot {
        let object = object()
        return encoder.state.existingOrNewSlot(forKey: encoder.state.name(of: key), in: object)
    }

    /// A keyed container under `key`: the one already there if there is one (entries merge).
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = existingOrNewSlot(forKey: key)
        encoder.state.makeContainerIfEmpty(nested, isObject: true)
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(encoder: encoder, slot: nested, path: encoder.state.keep(codingPath + [key])))
    }

    /// An unkeyed container under `key`: the array already there if there is one (elements
    /// append); a keyed container there is replaced when this one first writes.
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = existingOrNewSlot(forKey: key)
        encoder.state.makeContainerIfEmpty(nested, isObject: false)
        return FormUnkeyedContainer(encoder: encoder, slot: nested, path: encoder.state.keep(codingPath + [key]))
    }

    /// An encoder for this container's own slot, as Alamofire's is: a superclass's keys are
    /// written beside the subclass's, not under a `super` key.
    mutating func superEncoder() -> any Encoder {
        FormTreeEncoder(state: encoder.state, slot: slot, path: encoder.state.keep(codingPath))
    }

    /// An encoder for the value under `key`, which it writes into (merging with a container of
    /// the same kind there).
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let nested = existingOrNewSlot(forKey: key)
        return FormTreeEncoder(state: encoder.state, slot: nested, path: encoder.state.keep(codingPath + [key]))
    }
}
