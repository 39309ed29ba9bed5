import Foundation

// The containers of ``JSONTreeEncoder``: each writes into one container of the tree, found by
// its position, so it may be written to after others were made.

// MARK: - JSONTreeKey

/// A coding key made by the encoder: a dictionary's key, an array index (`"Index 3"`, as
/// `JSONEncoder` names it) or `super`.
struct JSONTreeKey: CodingKey {
    private let text: String?
    let intValue: Int?

    init(stringValue: String) {
        text = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        text = nil
        self.intValue = intValue
    }

    /// The key of the element at `index` of an unkeyed container; its text is made only when asked for.
    init(index: Int) {
        self.init(intValue: index)
    }

    var stringValue: String { text ?? "Index \(intValue ?? 0)" }

    /// The key `superEncoder()` writes under.
    static let `super` = JSONTreeKey(stringValue: "super")
}

// MARK: - JSONTreePlace

/// Where a container writes, kept small so that an unkeyed container fits an existential's
/// inline buffer instead of a heap box.
struct JSONTreePlace {
    /// The container's position in the tree.
    let container: Int32
    /// The container's own coding path.
    let path: EncodingPath
    /// The path its values are encoded under (with their key) and its super encoders made
    /// with: that of the encoder that made the outermost container this one is nested in.
    /// `JSONEncoder` leaves nested containers' keys out of those paths, and so does this.
    let encoderPath: EncodingPath

    /// The place of a container made by `encoder` for the value it is encoding.
    init(encoder: JSONTreeEncoder, container: Int) {
        self.container = Int32(truncatingIfNeeded: container)
        path = encoder.path
        encoderPath = encoder.path
    }

    /// The place of a nested container, whose path is `path`, inside a container at `parent`.
    init(encoder: JSONTreeEncoder, container: Int, path: [any CodingKey], parent: JSONTreePlace) {
        self.container = Int32(truncatingIfNeeded: container)
        self.path = encoder.keep(path)
        encoderPath = parent.encoderPath
    }
}

// MARK: - JSONTreeKeyedContainer

struct JSONTreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONTreeEncoder
    private let place: JSONTreePlace

    init(encoder: JSONTreeEncoder, place: JSONTreePlace) {
        self.encoder = encoder
        self.place = place
    }

    private var container: Int { Int(place.container) }
    var codingPath: [any CodingKey] { encoder.codingPath(place.path) }

    private func put(_ value: JSONTree.Value, forKey key: Key) {
        encoder.tree.append(value, key: encoder.convertedKey(key) { codingPath }, to: container)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        if value.isFinite { return put(.double(value), forKey: key) }
        try encodeBoxed(value, forKey: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        if value.isFinite { return put(.float(value), forKey: key) }
        try encodeBoxed(value, forKey: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.unsigned(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.unsigned(value), forKey: key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { put(.numberText(String(value)), forKey: key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { put(.numberText(String(value)), forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let leaf = JSONTreeEncoder.leaf(value) { return put(leaf, forKey: key) }
        try encodeBoxed(value, forKey: key)
    }

    /// Encodes a value that is not a leaf, with `key` ending its coding path.
    private func encodeBoxed<T: Encodable>(_ value: T, forKey key: Key) throws {
        var key = key
        if let boxed = try encoder.box(value, parent: place.encoderPath, key: &key) { put(boxed, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTreePlace(encoder: encoder, container: nestedContainer(isObject: true, forKey: key), path: codingPath + [key], parent: place)
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, place: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONTreePlace(encoder: encoder, container: nestedContainer(isObject: false, forKey: key), path: codingPath + [key], parent: place)
        return JSONTreeUnkeyedContainer(encoder: encoder, place: nested)
    }

    /// The container of that kind already under `key` (they merge), else a new one.
    private func nestedContainer(isObject: Bool, forKey key: Key) -> Int {
        let converted = encoder.convertedKey(key) { codingPath }
        if let existing = encoder.tree.existingContainer(forKey: converted, in: container, isObject: isObject) {
            return existing
        }
        let nested = encoder.tree.makeContainer(isObject: isObject)
        encoder.tree.append(.container(nested), key: converted, to: container)
        return nested
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: JSONTreeKey.super, converted: encoder.convertedKey(JSONTreeKey.super) { codingPath })
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key, converted: encoder.convertedKey(key) { codingPath })
    }

    private func superEncoder(key: any CodingKey, converted: String) -> any Encoder {
        // An empty object until the encoder writes, as `JSONEncoder` leaves it.
        let entry = encoder.tree.append(.container(encoder.tree.makeContainer(isObject: true)), key: converted, to: container)
        return JSONTreeEncoder(tree: encoder.tree, options: encoder.options, codingPath: encoder.codingPath(place.encoderPath) + [key],
                               parentEntry: (container, entry))
    }
}

// MARK: - JSONTreeUnkeyedContainer

struct JSONTreeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONTreeEncoder
    private let place: JSONTreePlace

    init(encoder: JSONTreeEncoder, place: JSONTreePlace) {
        self.encoder = encoder
        self.place = place
    }

    private var container: Int { Int(place.container) }
    var codingPath: [any CodingKey] { encoder.codingPath(place.path) }
    var count: Int { encoder.tree.containers[container].entries.count }

    private func put(_ value: JSONTree.Value) {
        encoder.tree.append(value, to: container)
    }

    private func boxed<T: Encodable>(_ value: T) throws -> JSONTree.Value? {
        try encoder.box(value, parent: place.encoderPath, index: count)
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws {
        if value.isFinite { return put(.double(value)) }
        if let value = try boxed(value) { put(value) }
    }
    mutating func encode(_ value: Float) throws {
        if value.isFinite { return put(.float(value)) }
        if let value = try boxed(value) { put(value) }
    }
    mutating func encode(_ value: Int) throws { put(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) throws { put(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) throws { put(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) throws { put(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) throws { put(.integer(value)) }
    mutating func encode(_ value: UInt) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { put(.unsigned(value)) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { put(.numberText(String(value))) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { put(.numberText(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let leaf = JSONTreeEncoder.leaf(value) { return put(leaf) }
        if let value = try boxed(value) { put(value) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [JSONTreeKey(index: count)]
        let nested = encoder.tree.makeContainer(isObject: true)
        put(.container(nested))
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, place: JSONTreePlace(encoder: encoder, container: nested,
                                                                                                              path: path, parent: place)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [JSONTreeKey(index: count)]
        let nested = encoder.tree.makeContainer(isObject: false)
        put(.container(nested))
        return JSONTreeUnkeyedContainer(encoder: encoder, place: JSONTreePlace(encoder: encoder, container: nested, path: path, parent: place))
    }

    mutating func superEncoder() -> any Encoder {
        let path = encoder.codingPath(place.encoderPath) + [JSONTreeKey(index: count)]
        let entry = encoder.tree.append(.container(encoder.tree.makeContainer(isObject: true)), to: container)
        return JSONTreeEncoder(tree: encoder.tree, options: encoder.options, codingPath: path, parentEntry: (container, entry))
    }
}

// MARK: - JSONTreeSingleValueContainer

struct JSONTreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONTreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.setSlot(.null) }
    mutating func encode(_ value: Bool) throws { encoder.setSlot(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.setSlot(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.setSlot(try encoder.box(value)) }
    mutating func encode(_ value: Float) throws { encoder.setSlot(try encoder.box(value)) }
    mutating func encode(_ value: Int) throws { encoder.setSlot(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) throws { encoder.setSlot(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) throws { encoder.setSlot(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) throws { encoder.setSlot(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) throws { encoder.setSlot(.integer(value)) }
    mutating func encode(_ value: UInt) throws { encoder.setSlot(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { encoder.setSlot(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.setSlot(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.setSlot(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.setSlot(.unsigned(value)) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { encoder.setSlot(.numberText(String(value))) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { encoder.setSlot(.numberText(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let value = try encoder.box(value) { encoder.setSlot(value) }
    }
}
