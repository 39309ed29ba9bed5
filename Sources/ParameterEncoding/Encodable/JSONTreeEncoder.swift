import Foundation

// MARK: - JSONTreeEncoder

/// The `Encoder` behind the fast `Encodable` → JSON path: it turns a value into a ``JSONTree``
/// the way `JSONEncoder` turns it into its own, applying the same strategies, so that
/// ``JSONTreeWriter`` writes the bytes `JSONEncoder` would.
///
/// One encoder serves a whole value: a nested value is encoded by the same object, its result
/// taken from ``slot``, instead of by a new encoder per value. Only `superEncoder()` makes
/// another, which writes into the entry it was made for.
final class JSONTreeEncoder: Encoder {
    let tree: JSONTree
    let options: JSONTreeOptions
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// The coding paths of this encoder's values and containers. Like the mutable state
    /// below, not checked for overlapping access at run time: every access is a single read,
    /// write or call that calls out to nothing.
    @exclusivity(unchecked) private(set) var links = CodingPathLinks(indexKeys: .jsonEncoder)
    /// The path of the value being encoded.
    @exclusivity(unchecked) private(set) var path: EncodingPath
    /// What the value being encoded has written so far: a scalar or a container, or nothing.
    @exclusivity(unchecked) private(set) var slot: JSONTree.Value?
    /// For an encoder from `superEncoder()`: the entry its value goes to.
    private let parentEntry: (container: Int, entry: Int)?
    /// How many values are being encoded inside the one this encoder was made for.
    @exclusivity(unchecked) private var nesting = 0
    /// Snake-case spellings already worked out, by key.
    private var snakeCaseKeys: [String: String] = [:]
    /// Whether keys are written as they are, read once: every key asks.
    private let keepsKeys: Bool

    init(tree: JSONTree, options: JSONTreeOptions, codingPath: [any CodingKey] = [], parentEntry: (container: Int, entry: Int)? = nil) {
        self.tree = tree
        self.options = options
        self.parentEntry = parentEntry
        keepsKeys = options.keepsKeys
        path = .topLevel
        if !codingPath.isEmpty { path = links.keep(codingPath) }
    }

    /// The path of the value being encoded.
    var codingPath: [any CodingKey] { links.codingPath(path) }

    /// Encodes a top-level value and returns it, failing as `JSONEncoder` does for a value
    /// that encodes nothing.
    func encodeTopLevel<T: Encodable>(_ value: T) throws -> JSONTree.Value {
        guard let result = try box(value, orNothing: true) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."
            ))
        }
        return result
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONTreeKeyedContainer(encoder: self, place: JSONTreePlace(encoder: self, container: slotContainer(isObject: true))))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONTreeUnkeyedContainer(encoder: self, place: JSONTreePlace(encoder: self, container: slotContainer(isObject: false)))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONTreeSingleValueContainer(encoder: self)
    }

    /// The container the slot holds if it is of the kind asked for (containers asked for twice
    /// merge, as in `JSONEncoder`), else a new one put in the slot.
    private func slotContainer(isObject: Bool) -> Int {
        if case .container(let index)? = slot as JSONTree.Value?, tree.containers[index].isObject == isObject {
            return index
        }
        let index = tree.makeContainer(isObject: isObject)
        setSlot(.container(index))
        return index
    }

    /// Sets what the value being encoded is.
    func setSlot(_ value: JSONTree.Value) {
        slot = value
        if nesting == 0, let parentEntry {
            tree.containers[parentEntry.container].entries[parentEntry.entry].value = value
        }
    }

    /// Keeps a nested container's or a super encoder's path built.
    func keep(_ path: [any CodingKey]) -> EncodingPath {
        links.keep(path)
    }

    /// The coding path `path` stands for.
    func codingPath(_ path: EncodingPath) -> [any CodingKey] {
        links.codingPath(path)
    }

    // MARK: Boxing

    /// `value` as a tree value, with the date, data and float strategies applied. A value that
    /// encodes nothing is an empty object, as in `JSONEncoder`; `orNothing` asks for `nil` instead.
    func box<T: Encodable>(_ value: T, orNothing: Bool = false) throws -> JSONTree.Value? {
        if let leaf = Self.leaf(value) { return leaf }
        if T.self == Double.self { return try box(unsafeBitCast(value, to: Double.self)) }
        // Types compared rather than cast: a cast costs a conformance lookup.
        if T.self == Date.self { return try box(unsafeBitCast(value, to: Date.self)) }
        if T.self == Data.self { return try box(unsafeBitCast(value, to: Data.self)) }
        // With the keys as they are, a `[String: Value]` writes the same through its own
        // `encode(to:)`, so only other key strategies pay for the cast.
        if !keepsKeys, let dictionary = value as? any StringKeyedEncodable { return try dictionary.boxEntries(in: self) }
        return try encoding(orNothing: orNothing) { try value.encode(to: self) }
    }

    /// A ``JSONTree/leaf(_:)`` that JSON can hold as it is: not a NaN or infinite `Double`,
    /// which the float strategy decides.
    @inline(__always)
    static func leaf<T: Encodable>(_ value: T) -> JSONTree.Value? {
        guard let leaf = JSONTree.leaf(value) else { return nil }
        if case .double(let double) = leaf, !double.isFinite { return nil }
        return leaf
    }

    /// Runs `body`, which encodes one value through this encoder, and returns that value.
    private func encoding(orNothing: Bool = false, _ body: () throws -> Void) throws -> JSONTree.Value? {
        let saved = slot
        slot = nil
        nesting += 1
        defer {
            slot = saved
            nesting -= 1
        }
        try body()
        if let slot { return slot }
        return orNothing ? nil : .container(tree.makeContainer(isObject: true))
    }

    func box(_ double: Double) throws -> JSONTree.Value {
        if double.isFinite { return .double(double) }
        return try nonConforming(double, isNaN: double.isNaN, isNegative: double < 0)
    }

    func box(_ float: Float) throws -> JSONTree.Value {
        if float.isFinite { return .float(float) }
        return try nonConforming(float, isNaN: float.isNaN, isNegative: float < 0)
    }

    private func nonConforming<Float: BinaryFloatingPoint>(_ value: Float, isNaN: Bool, isNegative: Bool) throws -> JSONTree.Value {
        guard case .convertToString(let positive, let negative, let nan) = options.nonConformingFloats else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "Unable to encode \(Float.self).\(value) directly in JSON. Use JSONEncoder.NonConformingFloatEncodingStrategy.convertToString to specify how the value should be encoded."
            ))
        }
        return .string(isNaN ? nan : (isNegative ? negative : positive))
    }

    /// A date as the date strategy says. An error of a custom strategy is thrown as it is.
    private func box(_ date: Date) throws -> JSONTree.Value? {
        switch options.dateEncoding {
        case .secondsSince1970: return try box(date.timeIntervalSince1970)
        case .millisecondsSince1970: return try box(1_000.0 * date.timeIntervalSince1970)
        case .iso8601:
            // Foundation's calendar is Julian before 1582-10-15; `CivilTime` is Gregorian throughout.
            guard date.timeIntervalSince1970 >= Self.gregorianCutover, let time = CivilTime(date) else {
                return .string(date.formatted(.iso8601))
            }
            return .string(time.iso8601)
        case .custom(let write): return try encoding { try write(date, self) }
        default: return try encoding { try date.encode(to: self) }
        }
    }

    /// Data as the data strategy says. An error of a custom strategy is thrown as it is.
    private func box(_ data: Data) throws -> JSONTree.Value? {
        switch options.dataEncoding {
        case .base64: return .string(data.base64EncodedString())
        case .custom(let write): return try encoding { try write(data, self) }
        default: return try encoding { try data.encode(to: self) }
        }
    }

    /// 1582-10-15T00:00:00Z, in seconds since 1970: the first day of the Gregorian calendar.
    private static let gregorianCutover: Double = -12_219_292_800

    // MARK: Keys

    /// The key as written, after the key strategy.
    ///
    /// - Parameters:
    ///   - key: The key of the value being written.
    ///   - containerPath: The coding path of its container, for a custom strategy.
    func convertedKey(_ key: some CodingKey, containerPath: () -> [any CodingKey]) -> String {
        if keepsKeys { return key.stringValue }
        switch options.keyEncoding {
        case .useDefaultKeys:
            return key.stringValue
        case .convertToSnakeCase:
            let raw = key.stringValue
            if let known = snakeCaseKeys[raw] { return known }
            let converted = SnakeCase.converted(raw)
            snakeCaseKeys[raw] = converted
            return converted
        case .custom(let convert):
            return convert(containerPath() + [key]).stringValue
        }
    }

    /// Encodes `value`, whose container's values are encoded under `parent` (see
    /// ``JSONTreePlace/encoderPath``), under the key at `key`, which is valid until this returns.
    /// (A pointer made from an `inout` argument costs less than `withUnsafePointer` and its
    /// closure, and keeps the key out of an existential box.)
    func box<T: Encodable, Key: CodingKey>(_ value: T, parent: EncodingPath, key: UnsafePointer<Key>) throws -> JSONTree.Value? {
        try boxed(value, at: EncodingPath.Link(parent: parent, key: .codingKey(UnsafeRawPointer(key), Key.self)))
    }

    /// Encodes `value`, the element at `index` of an array whose values are encoded under `parent`.
    func box<T: Encodable>(_ value: T, parent: EncodingPath, index: Int) throws -> JSONTree.Value? {
        try boxed(value, at: EncodingPath.Link(parent: parent, key: .index(index)))
    }

    /// Encodes `value` with `link` ending its coding path.
    @inline(__always)
    private func boxed<T: Encodable>(_ value: T, at link: EncodingPath.Link) throws -> JSONTree.Value? {
        let saved = path
        path = links.push(link)
        defer {
            links.pop(path)
            path = saved
        }
        return try box(value)
    }
}

// MARK: - StringKeyedEncodable

/// A `[String: Value]` dictionary, whose keys `JSONEncoder` writes as they are, whatever the key
/// strategy (a `[Int: Value]` dictionary's keys do go through it).
protocol StringKeyedEncodable {
    /// The dictionary as an object of the tree.
    func boxEntries(in encoder: JSONTreeEncoder) throws -> JSONTree.Value
}

extension Dictionary: StringKeyedEncodable where Key == String, Value: Encodable {
    func boxEntries(in encoder: JSONTreeEncoder) throws -> JSONTree.Value {
        let container = encoder.tree.makeContainer(isObject: true)
        encoder.tree.containers[container].entries.reserveCapacity(count)
        let parent = encoder.path
        for (key, value) in self {
            var codingKey = JSONTreeKey(stringValue: key)
            if let boxed = try encoder.box(value, parent: parent, key: &codingKey) {
                encoder.tree.append(boxed, key: key, to: container)
            }
        }
        return .container(container)
    }
}
