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
    /// The encoder's path length when the container was made; its path is the prefix of the
    /// encoder's, unless `pathIndex` names a path kept by the encoder (a nested container's).
    let depth: Int32
    /// The path length of the encoder that made the outermost container this one is nested in:
    /// `JSONEncoder` encodes values and makes super encoders with that path and their key,
    /// leaving out nested containers' keys.
    let encoderDepth: Int32
    let pathIndex: Int32

    init(encoder: JSONTreeEncoder, container: Int, path: [any CodingKey]?, encoderDepth: Int?) {
        self.container = Int32(truncatingIfNeeded: container)
        let depth = path?.count ?? encoder.codingPath.count
        self.depth = Int32(truncatingIfNeeded: depth)
        self.encoderDepth = Int32(truncatingIfNeeded: encoderDepth ?? depth)
        pathIndex = path.map { Int32(truncatingIfNeeded: encoder.keep($0)) } ?? -1
    }

    func codingPath(in encoder: JSONTreeEncoder) -> [any CodingKey] {
        pathIndex >= 0 ? encoder.keptPath(Int(pathIndex)) : Array(encoder.codingPath.prefix(Int(depth)))
    }
}

// MARK: - JSONTreeKeyedContainer

struct JSONTreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONTreeEncoder
    private let place: JSONTreePlace

    init(encoder: JSONTreeEncoder, container: Int, path: [any CodingKey]? = nil, encoderDepth: Int? = nil) {
        self.encoder = encoder
        place = JSONTreePlace(encoder: encoder, container: container, path: path, encoderDepth: encoderDepth)
    }

    private var container: Int { Int(place.container) }
    private var encoderDepth: Int { Int(place.encoderDepth) }
    var codingPath: [any CodingKey] { place.codingPath(in: encoder) }

    private func put(_ value: JSONTree.Value, forKey key: Key) {
        encoder.tree.append(value, key: encoder.convertedKey(key) { codingPath }, to: container)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try encoder.withKey(key, depth: encoderDepth) { try encoder.box(value) }, forKey: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try encoder.withKey(key, depth: encoderDepth) { try encoder.box(value) }, forKey: key)
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
        let boxed = try encoder.withKey(key, depth: encoderDepth) { try encoder.box(value) }
        if let boxed { put(boxed, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = nestedContainer(isObject: true, forKey: key)
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, container: nested, path: codingPath + [key],
                                                                          encoderDepth: encoderDepth))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONTreeUnkeyedContainer(encoder: encoder, container: nestedContainer(isObject: false, forKey: key), path: codingPath + [key],
                                 encoderDepth: encoderDepth)
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
        return JSONTreeEncoder(tree: encoder.tree, options: encoder.options, codingPath: Array(codingPath.prefix(encoderDepth)) + [key],
                               parentEntry: (container, entry))
    }
}

// MARK: - JSONTreeUnkeyedContainer

struct JSONTreeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONTreeEncoder
    private let place: JSONTreePlace

    init(encoder: JSONTreeEncoder, container: Int, path: [any CodingKey]? = nil, encoderDepth: Int? = nil) {
        self.encoder = encoder
        place = JSONTreePlace(encoder: encoder, container: container, path: path, encoderDepth: encoderDepth)
    }

    private var container: Int { Int(place.container) }
    private var encoderDepth: Int { Int(place.encoderDepth) }
    var codingPath: [any CodingKey] { place.codingPath(in: encoder) }
    var count: Int { encoder.tree.containers[container].entries.count }

    private func put(_ value: JSONTree.Value) {
        encoder.tree.append(value, to: container)
    }

    private func boxed<T: Encodable>(_ value: T) throws -> JSONTree.Value? {
        try encoder.withKey(JSONTreeKey(index: count), depth: encoderDepth) { try encoder.box(value) }
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws {
        put(try encoder.withKey(JSONTreeKey(index: count), depth: encoderDepth) { try encoder.box(value) })
    }
    mutating func encode(_ value: Float) throws {
        put(try encoder.withKey(JSONTreeKey(index: count), depth: encoderDepth) { try encoder.box(value) })
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
        if let value = try boxed(value) { put(value) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [JSONTreeKey(index: count)]
        let nested = encoder.tree.makeContainer(isObject: true)
        put(.container(nested))
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, container: nested, path: path,
                                                                          encoderDepth: encoderDepth))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [JSONTreeKey(index: count)]
        let nested = encoder.tree.makeContainer(isObject: false)
        put(.container(nested))
        return JSONTreeUnkeyedContainer(encoder: encoder, container: nested, path: path, encoderDepth: encoderDepth)
    }

    mutating func superEncoder() -> any Encoder {
        let path = Array(codingPath.prefix(encoderDepth)) + [JSONTreeKey(index: count)]
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
