import Foundation

// MARK: - FormTreeEncoder

/// The `Encoder` behind ``URLEncodedFormEncoder``: it turns a value into a ``JSONTree``, the
/// tree the `Encodable` → JSON path fills too, which ``QueryWriter`` then writes.
///
/// One encoder serves a whole value: a nested value is encoded by the same object, pointed at
/// the slot the value goes to, instead of by a new encoder per value. Only `superEncoder()`
/// makes another, which writes into the slot it was made for. How containers share a slot is
/// told at ``FormEncodingState``.
final class FormTreeEncoder: Encoder {
    let state: FormEncodingState
    /// Where the value being encoded goes. Not checked for overlapping access at run time:
    /// every access is a single read or write.
    @exclusivity(unchecked) private var slot: FormSlot
    /// The coding path of the value being encoded.
    @exclusivity(unchecked) private var path: EncodingPath

    init(state: FormEncodingState, slot: FormSlot = .topLevel, path: EncodingPath = .topLevel) {
        self.state = state
        self.slot = slot
        self.path = path
    }

    var codingPath: [any CodingKey] { state.codingPath(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        state.makeContainerIfEmpty(slot, isObject: true)
        return KeyedEncodingContainer(FormKeyedContainer(encoder: self, slot: slot, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        state.makeContainerIfEmpty(slot, isObject: false)
        return FormUnkeyedContainer(encoder: self, slot: slot, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(encoder: self, slot: slot, path: path)
    }

    // MARK: Boxing

    /// Encodes `value` into `slot`, whose coding path is `path`, applying the date and data
    /// strategies.
    func box<T: Encodable>(_ value: T, into slot: FormSlot, path: EncodingPath) throws {
        if let leaf = JSONTree.leaf(value) { return try setScalar(leaf, in: slot, path: path, value) }
        try boxNonLeaf(value, into: slot, path: path)
    }

    /// ``box(_:into:path:)`` for a value known not to be a ``leaf(_:)``.
    private func boxNonLeaf<T: Encodable>(_ value: T, into slot: FormSlot, path: EncodingPath) throws {
        if T.self == Date.self { return try boxDate(unsafeBitCast(value, to: Date.self), into: slot, path: path) }
        if T.self == Data.self { return try boxData(unsafeBitCast(value, to: Data.self), into: slot, path: path) }
        try encodeItself(value, into: slot, path: path)
    }

    /// Encodes a value that is not a ``leaf(_:)`` into the empty entry `slot` of a keyed
    /// container whose path is `parent`, under the key at `key`, which is valid until this
    /// returns. (A pointer made from an `inout` argument costs less than `withUnsafePointer`
    /// and its closure, which are not inlined in unspecialized code.)
    func boxNonLeaf<T: Encodable, Key: CodingKey>(_ value: T, into slot: FormSlot, parent: EncodingPath, key: UnsafePointer<Key>) throws {
        let path = state.push(EncodingPath.Link(parent: parent, key: .codingKey(UnsafeRawPointer(key), Key.self)))
        defer { state.pop(path) }
        try boxNonLeaf(value, into: slot, path: path)
    }

    /// Encodes a value that is not a ``leaf(_:)`` into the empty element `slot` of an array
    /// whose path is `parent`; the element's index is its entry's position.
    @inline(__always)
    func boxNonLeaf<T: Encodable>(_ value: T, into slot: FormSlot, parent: EncodingPath) throws {
        let path = state.push(EncodingPath.Link(parent: parent, key: .index(Int(slot.entry))))
        defer { state.pop(path) }
        try boxNonLeaf(value, into: slot, path: path)
    }

    /// Runs the value's own `encode(to:)` with this encoder pointed at `slot`.
    private func encodeItself<T: Encodable>(_ value: T, into slot: FormSlot, path: EncodingPath) throws {
        let saved = (self.slot, self.path)
        self.slot = slot
        self.path = path
        defer { (self.slot, self.path) = saved }
        try value.encode(to: self)
    }

    /// Writes a date as ``URLEncodedFormEncoder/dateEncoding`` says. An error of a custom
    /// strategy is the caller's own and is thrown as it is.
    private func boxDate(_ date: Date, into slot: FormSlot, path: EncodingPath) throws {
        switch state.options.dateEncoding {
        case .deferredToDate:
            try encodeItself(date, into: slot, path: path)
        case .secondsSince1970:
            try setScalar(.double(date.timeIntervalSince1970), in: slot, path: path, date.timeIntervalSince1970)
        case .millisecondsSince1970:
            try setScalar(.double(date.timeIntervalSince1970 * 1_000), in: slot, path: path, date.timeIntervalSince1970 * 1_000)
        case .iso8601:
            guard let time = CivilTime(date) else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: state.codingPath(path),
                    debugDescription: "ISO 8601 dates must fall in years 1 to 9999, not \(date.timeIntervalSince1970) s since 1970"
                ))
            }
            let text = time.iso8601
            try setScalar(.string(text), in: slot, path: path, text)
        case .formatted(let formatter):
            let text = formatter.string(from: date)
            try setScalar(.string(text), in: slot, path: path, text)
        case .custom(let write):
            let text = try write(date)
            try setScalar(.string(text), in: slot, path: path, text)
        }
    }

    /// Writes data as ``URLEncodedFormEncoder/dataEncoding`` says. An error of a custom
    /// strategy is the caller's own and is thrown as it is.
    private func boxData(_ data: Data, into slot: FormSlot, path: EncodingPath) throws {
        switch state.options.dataEncoding {
        case .deferredToData:
            try encodeItself(data, into: slot, path: path)
        case .base64:
            let text = data.base64EncodedString()
            try setScalar(.string(text), in: slot, path: path, text)
        case .custom(let write):
            let text = try write(data)
            try setScalar(.string(text), in: slot, path: path, text)
        }
    }

    // MARK: Single values

    /// Stores a leaf value in an empty slot; a slot that holds something already is an error
    /// naming the coding path, not a silent loss.
    @inline(__always)
    func setScalar(_ scalar: JSONTree.Value, in slot: FormSlot, path: EncodingPath, _ value: @autoclosure () -> Any) throws {
        try checkEmpty(slot, path: path, before: value())
        state[slot] = scalar
    }

    /// Throws unless `slot` is empty, so that a single value never replaces another value.
    @inline(__always)
    func checkEmpty(_ slot: FormSlot, path: EncodingPath, before value: @autoclosure () -> Any) throws {
        guard case .nothing = state[slot] else {
            let message = "a single value was encoded where a value or container was already encoded"
            throw EncodingError.invalidValue(value(), EncodingError.Context(codingPath: state.codingPath(path), debugDescription: message))
        }
    }
}
