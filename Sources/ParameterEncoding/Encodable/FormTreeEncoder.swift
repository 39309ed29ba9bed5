import Foundation

// The `Encoder` that turns an `Encodable` value into a tree of ``FormNode``s.

// MARK: - FormEncodingState

/// The options and the first error of one encoding; shared by every encoder and container of it.
final class FormEncodingState {
    let options: URLEncodedFormEncoder
    /// The first misuse found by a method that cannot throw, thrown once encoding ends.
    private(set) var error: EncodingError?

    init(options: URLEncodedFormEncoder) {
        self.options = options
    }

    /// Encodes `value` into `node`, applying the date and data strategies.
    func box<T: Encodable>(_ value: T, into node: FormNode, codingPath: [any CodingKey]) throws {
        // Common leaf types are stored directly; comparing `T` is far cheaper than encoding them.
        if T.self == String.self, let string = value as? String {
            return setScalar(string, in: node, codingPath: codingPath)
        }
        if T.self == Int.self, let integer = value as? Int {
            return setScalar(integer, in: node, codingPath: codingPath)
        }
        if T.self == Bool.self, let bool = value as? Bool {
            return setScalar(bool, in: node, codingPath: codingPath)
        }
        if T.self == Double.self, let double = value as? Double {
            return setScalar(double, in: node, codingPath: codingPath)
        }
        if T.self == Date.self, let date = value as? Date {
            return try boxDate(date, into: node, codingPath: codingPath)
        }
        if T.self == Data.self, let data = value as? Data {
            return try boxData(data, into: node, codingPath: codingPath)
        }
        if T.self == URL.self, let url = value as? URL {
            return setScalar(url.absoluteString, in: node, codingPath: codingPath)
        }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            return setScalar(decimal, in: node, codingPath: codingPath)
        }
        try value.encode(to: FormTreeEncoder(state: self, node: node, codingPath: codingPath))
    }

    private func boxDate(_ date: Date, into node: FormNode, codingPath: [any CodingKey]) throws {
        switch options.dateEncoding {
        case .deferredToDate:
            try date.encode(to: FormTreeEncoder(state: self, node: node, codingPath: codingPath))
        case .secondsSince1970:
            setScalar(date.timeIntervalSince1970, in: node, codingPath: codingPath)
        case .millisecondsSince1970:
            setScalar(date.timeIntervalSince1970 * 1_000, in: node, codingPath: codingPath)
        case .iso8601:
            guard let time = CivilTime(date) else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: codingPath, debugDescription: "ISO 8601 dates must fall in years 1 to 9999, not \(date.timeIntervalSince1970) s since 1970"
                ))
            }
            setScalar(time.iso8601, in: node, codingPath: codingPath)
        case .formatted(let formatter):
            setScalar(formatter.string(from: date), in: node, codingPath: codingPath)
        case .custom(let write):
            setScalar(try wrapped(codingPath) { try write(date) }, in: node, codingPath: codingPath)
        }
    }

    private func boxData(_ data: Data, into node: FormNode, codingPath: [any CodingKey]) throws {
        switch options.dataEncoding {
        case .deferredToData:
            try data.encode(to: FormTreeEncoder(state: self, node: node, codingPath: codingPath))
        case .base64:
            setScalar(data.base64EncodedString(), in: node, codingPath: codingPath)
        case .custom(let write):
            setScalar(try wrapped(codingPath) { try write(data) }, in: node, codingPath: codingPath)
        }
    }

    /// Runs a custom strategy; an error that is not an `EncodingError` is wrapped in one that
    /// names the coding path.
    private func wrapped(_ codingPath: [any CodingKey], _ body: () throws -> String) throws -> String {
        do {
            return try body()
        } catch let error as EncodingError {
            throw error
        } catch {
            throw EncodingError.invalidValue(String(), EncodingError.Context(
                codingPath: codingPath, debugDescription: "the custom strategy failed: \(error)", underlyingError: error
            ))
        }
    }

    /// Stores a leaf value; a second value for the same node is recorded as an error.
    func setScalar(_ value: any Sendable, in node: FormNode, codingPath: [any CodingKey]) {
        if case .empty = node.content {
            node.content = .scalar(value)
        } else {
            record("a second value was encoded where one was already", codingPath)
        }
    }

    /// The keyed storage of `node`, created if the node is empty.
    func keyedStorage(of node: FormNode, codingPath: [any CodingKey]) -> KeyedFormStorage {
        switch node.content {
        case .keyed(let storage):
            return storage
        case .empty:
            break
        case .scalar, .unkeyed:
            record("a keyed container was asked for where another kind of value was encoded", codingPath)
        }
        let storage = KeyedFormStorage()
        node.content = .keyed(storage)
        return storage
    }

    /// The unkeyed storage of `node`, created if the node is empty.
    func unkeyedStorage(of node: FormNode, codingPath: [any CodingKey]) -> UnkeyedFormStorage {
        switch node.content {
        case .unkeyed(let storage):
            return storage
        case .empty:
            break
        case .scalar, .keyed:
            record("an unkeyed container was asked for where another kind of value was encoded", codingPath)
        }
        let storage = UnkeyedFormStorage()
        node.content = .unkeyed(storage)
        return storage
    }

    private func record(_ message: String, _ codingPath: [any CodingKey]) {
        guard error == nil else { return }
        error = .invalidValue(message, EncodingError.Context(codingPath: codingPath, debugDescription: message))
    }

    /// The key as written, after ``URLEncodedFormEncoder/keyEncoding``.
    func name(of key: some CodingKey) -> String {
        options.keyEncoding.encode(key.stringValue)
    }
}

// MARK: - FormCodingKey

/// A coding key for array positions and `super`.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

// MARK: - FormTreeEncoder

struct FormTreeEncoder: Encoder {
    let state: FormEncodingState
    let node: FormNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let storage = state.keyedStorage(of: node, codingPath: codingPath)
        return KeyedEncodingContainer(FormKeyedContainer(state: state, storage: storage, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FormUnkeyedContainer(state: state, storage: state.unkeyedStorage(of: node, codingPath: codingPath), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(state: state, node: node, codingPath: codingPath)
    }
}

// MARK: - FormKeyedContainer

struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: FormEncodingState
    let storage: KeyedFormStorage
    let codingPath: [any CodingKey]

    private func set(_ value: any Sendable, forKey key: Key) {
        storage.node(forKey: state.name(of: key)).content = .scalar(value)
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

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let node = storage.existingOrNewNode(forKey: state.name(of: key))
        let path = codingPath + [key]
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(state: state, storage: state.keyedStorage(of: node, codingPath: path), codingPath: path))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let node = storage.existingOrNewNode(forKey: state.name(of: key))
        let path = codingPath + [key]
        return FormUnkeyedContainer(state: state, storage: state.unkeyedStorage(of: node, codingPath: path), codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let key = FormCodingKey(stringValue: "super")
        return FormTreeEncoder(state: state, node: storage.existingOrNewNode(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FormTreeEncoder(state: state, node: storage.existingOrNewNode(forKey: state.name(of: key)), codingPath: codingPath + [key])
    }
}

// MARK: - FormUnkeyedContainer

struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let state: FormEncodingState
    let storage: UnkeyedFormStorage
    let codingPath: [any CodingKey]

    var count: Int { storage.nodes.count }

    private var nextPath: [any CodingKey] { codingPath + [FormCodingKey(intValue: count)] }

    private func append(_ value: any Sendable) {
        storage.appendNode().content = .scalar(value)
    }

    mutating func encodeNil() { append(NSNull()) }
    mutating func encode(_ value: Bool) { append(value) }
    mutating func encode(_ value: String) { append(value) }
    mutating func encode(_ value: Double) { append(value) }
    mutating func encode(_ value: Float) { append(value) }
    mutating func encode(_ value: Int) { append(value) }
    mutating func encode(_ value: Int8) { append(value) }
    mutating func encode(_ value: Int16) { append(value) }
    mutating func encode(_ value: Int32) { append(value) }
    mutating func encode(_ value: Int64) { append(value) }
    mutating func encode(_ value: UInt) { append(value) }
    mutating func encode(_ value: UInt8) { append(value) }
    mutating func encode(_ value: UInt16) { append(value) }
    mutating func encode(_ value: UInt32) { append(value) }
    mutating func encode(_ value: UInt64) { append(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try state.box(value, into: storage.appendNode(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let storage = state.keyedStorage(of: storage.appendNode(), codingPath: path)
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(state: state, storage: storage, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return FormUnkeyedContainer(state: state, storage: state.unkeyedStorage(of: storage.appendNode(), codingPath: path), codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return FormTreeEncoder(state: state, node: storage.appendNode(), codingPath: path)
    }
}

// MARK: - FormSingleValueContainer

struct FormSingleValueContainer: SingleValueEncodingContainer {
    let state: FormEncodingState
    let node: FormNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() { state.setScalar(NSNull(), in: node, codingPath: codingPath) }
    mutating func encode(_ value: Bool) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: String) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Double) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Float) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Int) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Int8) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Int16) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Int32) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: Int64) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) { state.setScalar(value, in: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) { state.setScalar(value, in: node, codingPath: codingPath) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try state.box(value, into: node, codingPath: codingPath)
    }
}
