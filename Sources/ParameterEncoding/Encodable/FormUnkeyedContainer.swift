import Foundation

// MARK: - FormUnkeyedContainer

/// The unkeyed container of ``FormTreeEncoder``: it appends to the array its slot holds,
/// replacing what the slot held when that is not an array (see ``FormEncodingState``).
///
/// Three words, so that it fits an existential's inline buffer instead of a heap box.
struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: FormTreeEncoder
    let slot: FormSlot
    let path: EncodingPath

    var codingPath: [any CodingKey] { encoder.state.codingPath(path) }

    var count: Int {
        guard let array = encoder.state.container(in: slot, isObject: false) else { return 0 }
        return encoder.state.tree.containers[array].entries.count
    }

    /// The array the slot holds, or a new one that replaces what it held.
    private var array: Int { encoder.state.writableContainer(in: slot, isObject: false) }

    /// Appends `value` and returns its slot.
    @discardableResult
    private func append(_ value: JSONTree.Value) -> FormSlot {
        let array = array
        return FormSlot(container: array, entry: encoder.state.tree.append(value, to: array))
    }

    mutating func encodeNil() { append(.null) }
    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Double) { append(.double(value)) }
    mutating func encode(_ value: Float) { append(.float(value)) }
    mutating func encode(_ value: Int) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) { append(.integer(value)) }
    mutating func encode(_ value: UInt) { append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) { append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) { append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) { append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) { append(.unsigned(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let leaf = JSONTree.leaf(value) {
            append(leaf)
            return
        }
        // Its index is its entry's position: `count` before it was appended, or 0 in an array
        // that replaced what the slot held.
        try encoder.boxNonLeaf(value, into: append(.nothing), parent: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nestedPath = codingPath + [FormCodingKey(intValue: count)]
        let element = append(.container(encoder.state.tree.makeContainer(isObject: true)))
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(encoder: encoder, slot: element, path: encoder.state.keep(nestedPath)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nestedPath = codingPath + [FormCodingKey(intValue: count)]
        let element = append(.container(encoder.state.tree.makeContainer(isObject: false)))
        return FormUnkeyedContainer(encoder: encoder, slot: element, path: encoder.state.keep(nestedPath))
    }

    /// An encoder for the array's own slot, as Alamofire's is: a keyed container from it turns
    /// the array into a dictionary when it writes; an unkeyed one appends to the array.
    mutating func superEncoder() -> any Encoder {
        FormTreeEncoder(state: encoder.state, slot: slot, path: encoder.state.keep(codingPath))
    }
}

// MARK: - FormSingleValueContainer

/// The single-value container of ``FormTreeEncoder``: it stores one value in its slot, and
/// throws if the slot holds something already.
struct FormSingleValueContainer: SingleValueEncodingContainer {
    let encoder: FormTreeEncoder
    let slot: FormSlot
    let path: EncodingPath

    var codingPath: [any CodingKey] { encoder.state.codingPath(path) }

    private func set(_ scalar: JSONTree.Value, _ value: @autoclosure () -> Any) throws {
        try encoder.setScalar(scalar, in: slot, path: path, value())
    }

    mutating func encodeNil() throws { try set(.null, NSNull()) }
    mutating func encode(_ value: Bool) throws { try set(.bool(value), value) }
    mutating func encode(_ value: String) throws { try set(.string(value), value) }
    mutating func encode(_ value: Double) throws { try set(.double(value), value) }
    mutating func encode(_ value: Float) throws { try set(.float(value), value) }
    mutating func encode(_ value: Int) throws { try set(.integer(Int64(value)), value) }
    mutating func encode(_ value: Int8) throws { try set(.integer(Int64(value)), value) }
    mutating func encode(_ value: Int16) throws { try set(.integer(Int64(value)), value) }
    mutating func encode(_ value: Int32) throws { try set(.integer(Int64(value)), value) }
    mutating func encode(_ value: Int64) throws { try set(.integer(value), value) }
    mutating func encode(_ value: UInt) throws { try set(.unsigned(UInt64(value)), value) }
    mutating func encode(_ value: UInt8) throws { try set(.unsigned(UInt64(value)), value) }
    mutating func encode(_ value: UInt16) throws { try set(.unsigned(UInt64(value)), value) }
    mutating func encode(_ value: UInt32) throws { try set(.unsigned(UInt64(value)), value) }
    mutating func encode(_ value: UInt64) throws { try set(.unsigned(value), value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.checkEmpty(slot, path: path, before: value)
        try encoder.box(value, into: slot, path: path)
    }
}
