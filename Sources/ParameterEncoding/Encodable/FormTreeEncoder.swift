import Foundation

// The `Encoder` that turns an `Encodable` value into a tree of ``FormNode``s.

// MARK: - FormEncodingState

/// The options of one encoding; shared by every encoder and container of it.
///
/// How containers share a node, as Alamofire's encoder does: a container asked for where one of
/// the same kind is writes into it (keyed entries and array elements merge); a container of the
/// other kind, or one asked for where a single value was written, replaces what is there when it
/// first writes, not when it is asked for. A single value written where anything else already
/// was is an error, as is a second value through one single-value container.
final class FormEncodingState {
    let options: URLEncodedFormEncoder

    init(options: URLEncodedFormEncoder) {
        self.options = options
    }

    /// Encodes `value` into `node`, applying the date and data strategies.
    func box<T: Encodable>(_ value: T, into node: FormNode, codingPath: [any CodingKey]) throws {
        // Common leaf types are stored directly; comparing `T` is far cheaper than encoding them.
        if T.self == String.self, let string = value as? String {
            return try setScalar(string, in: node, codingPath: codingPath)
        }
        if T.self == Int.self, let integer = value as? Int {
            return try setScalar(integer, in: node, codingPath: codingPath)
        }
        if T.self == Bool.self, let bool = value as? Bool {
            return try setScalar(bool, in: node, codingPath: codingPath)
        }
        if T.self == Double.self, let double = value as? Double {
            return try setScalar(double, in: node, codingPath: codingPath)
        }
        if T.self == Date.self, let date = value as? Date {
            return try boxDate(date, into: node, codingPath: codingPath)
        }
        if T.self == Data.self, let data = value as? Data {
            return try boxData(data, into: node, codingPath: codingPath)
        }
        if T.self == URL.self, let url = value as? URL {
            return try setScalar(url.absoluteString, in: node, codingPath: codingPath)
        }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            return try setScalar(decimal, in: node, codingPath: codingPath)
        }
        try value.encode(to: FormTreeEncoder(state: self, node: node, codingPath: codingPath))
    }

    /// Writes a date as ``URLEncodedFormEncoder/dateEncoding`` says. An error of a custom
    /// strategy is the caller's own and is thrown as it is.
    private func boxDate(_ date: Date, into node: FormNode, codingPath: [any CodingKey]) throws {
        switch options.dateEncoding {
        case .deferredToDate:
            try date.encode(to: FormTreeEncoder(state: self, node: node, codingPath: codingPath))
        case .secondsSince1970:
            try setScalar(date.timeIntervalSince1970, in: node, codingPath: codingPath)
        case .millisecondsSince1970:
            try setScalar(date.timeIntervalSince1970 * 1_000, in: node, codingPath: codingPath)
        case .iso8601:
            guard let time = CivilTime(date) else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: codingPath, debugDescription: "ISO 8601 dates must fall in years 1 to 9999, not \(date.timeIntervalSince1970) s since 1970"
                ))
            }
            try setScalar(time.iso8601, in: node, codingPath: codingPath)
        case .formatted(let formatter):
            try setScalar(formatter.string(from: date), in: node, codingPath: codingPath)
        case .custom(let write):
            try setScalar(write(date), in: node, codingPath: codingPath)
        }
    }

    /// Writes data as ``URLEncodedFormEncoder/dataEncoding`` says. An error of a custom
    /// strategy is the caller's own and is thrown as it is.
    private func boxData(_ data: Data, into node: FormNode, codingPath: [any CodingKey]) throws {
        switch options.dataEncoding {
        case .deferredToData:
            try data.encode(to: FormTreeEncoder(state: self, node: node, codingPath: codingPath))
        case .base64:
            try setScalar(data.base64EncodedString(), in: node, codingPath: codingPath)
        case .custom(let write):
            try setScalar(write(data), in: node, codingPath: codingPath)
        }
    }

    /// Stores a leaf value in an empty node; a node that holds something already is an error
    /// naming the coding path, not a silent loss.
    func setScalar(_ value: any Sendable, in node: FormNode, codingPath: [any CodingKey]) throws {
        try checkEmpty(node, before: value, codingPath: codingPath)
        node.content = .scalar(value)
    }

    /// Throws unless `node` is empty, so that a single value never replaces another value.
    func checkEmpty(_ node: FormNode, before value: Any, codingPath: [any CodingKey]) throws {
        guard case .empty = node.content else {
            let message = "a single value was encoded where a value or container was already encoded"
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: message))
        }
    }

    /// The keyed storage of `node`: its own if it is keyed, else a fresh one that replaces what
    /// the node held (called when a keyed container writes, so the replacement is lazy).
    func keyedStorage(of node: FormNode) -> KeyedFormStorage {
        if case .keyed(let storage) = node.content { return storage }
        let storage = KeyedFormStorage()
        node.content = .keyed(storage)
        return storage
    }

    /// The unkeyed storage of `node`: its own if it is unkeyed, else a fresh one that replaces
    /// what the node held.
    func unkeyedStorage(of node: FormNode) -> UnkeyedFormStorage {
        if case .unkeyed(let storage) = node.content { return storage }
        let storage = UnkeyedFormStorage()
        node.content = .unkeyed(storage)
        return storage
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
        if case .empty = node.content { node.content = .keyed(KeyedFormStorage()) }
        return KeyedEncodingContainer(FormKeyedContainer(state: state, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = node.content { node.content = .unkeyed(UnkeyedFormStorage()) }
        return FormUnkeyedContainer(state: state, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(state: state, node: node, codingPath: codingPath)
    }
}

// MARK: - FormUnkeyedContainer

struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let state: FormEncodingState
    /// The node the array is written into; see ``FormEncodingState`` for how it is shared.
    let node: FormNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .unkeyed(let storage) = node.content { return storage.nodes.count }
        return 0
    }

    private var nextPath: [any CodingKey] { codingPath + [FormCodingKey(intValue: count)] }

    private func append(_ value: any Sendable) {
        state.unkeyedStorage(of: node).appendNode().content = .scalar(value)
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
        try state.box(value, into: state.unkeyedStorage(of: node).appendNode(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let element = state.unkeyedStorage(of: node).appendNode()
        element.content = .keyed(KeyedFormStorage())
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(state: state, node: element, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let element = state.unkeyedStorage(of: node).appendNode()
        element.content = .unkeyed(UnkeyedFormStorage())
        return FormUnkeyedContainer(state: state, node: element, codingPath: path)
    }

    /// An encoder for the array's own node, as Alamofire's is: a keyed container from it turns
    /// the array into a dictionary when it writes; an unkeyed one appends to the array.
    mutating func superEncoder() -> any Encoder {
        FormTreeEncoder(state: state, node: node, codingPath: codingPath)
    }
}

// MARK: - FormSingleValueContainer

struct FormSingleValueContainer: SingleValueEncodingContainer {
    let state: FormEncodingState
    let node: FormNode
    let codingPath: [any CodingKey]

    private func set(_ value: any Sendable) throws {
        try state.setScalar(value, in: node, codingPath: codingPath)
    }

    mutating func encodeNil() throws { try set(NSNull()) }
    mutating func encode(_ value: Bool) throws { try set(value) }
    mutating func encode(_ value: String) throws { try set(value) }
    mutating func encode(_ value: Double) throws { try set(value) }
    mutating func encode(_ value: Float) throws { try set(value) }
    mutating func encode(_ value: Int) throws { try set(value) }
    mutating func encode(_ value: Int8) throws { try set(value) }
    mutating func encode(_ value: Int16) throws { try set(value) }
    mutating func encode(_ value: Int32) throws { try set(value) }
    mutating func encode(_ value: Int64) throws { try set(value) }
    mutating func encode(_ value: UInt) throws { try set(value) }
    mutating func encode(_ value: UInt8) throws { try set(value) }
    mutating func encode(_ value: UInt16) throws { try set(value) }
    mutating func encode(_ value: UInt32) throws { try set(value) }
    mutating func encode(_ value: UInt64) throws { try set(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try state.checkEmpty(node, before: value, codingPath: codingPath)
        try state.box(value, into: node, codingPath: codingPath)
    }
}
