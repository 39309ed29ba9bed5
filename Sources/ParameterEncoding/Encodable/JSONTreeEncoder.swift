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
    /// The path of the value being encoded.
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// What the value being encoded has written so far: a scalar or a container, or nothing.
    private(set) var slot: JSONTree.Value?
    /// For an encoder from `superEncoder()`: the entry its value goes to.
    private let parentEntry: (container: Int, entry: Int)?
    /// How many values are being encoded inside the one this encoder was made for.
    private var nesting = 0
    /// The coding paths of nested containers, which ``JSONTreePlace`` refers to by position.
    private var keptPaths: [[any CodingKey]] = []
    /// Snake-case spellings already worked out, by key.
    private var snakeCaseKeys: [String: String] = [:]

    init(tree: JSONTree, options: JSONTreeOptions, codingPath: [any CodingKey] = [], parentEntry: (container: Int, entry: Int)? = nil) {
        self.tree = tree
        self.options = options
        self.codingPath = codingPath
        self.parentEntry = parentEntry
    }

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
        KeyedEncodingContainer(JSONTreeKeyedContainer(encoder: self, container: slotContainer(isObject: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONTreeUnkeyedContainer(encoder: self, container: slotContainer(isObject: false))
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

    /// Keeps a nested container's path and returns its position.
    func keep(_ path: [any CodingKey]) -> Int {
        keptPaths.append(path)
        return keptPaths.count - 1
    }

    func keptPath(_ index: Int) -> [any CodingKey] {
        keptPaths.indices.contains(index) ? keptPaths[index] : codingPath
    }

    // MARK: Boxing

    /// `value` as a tree value, with the date, data and float strategies applied. A value that
    /// encodes nothing is an empty object, as in `JSONEncoder`; `orNothing` asks for `nil` instead.
    func box<T: Encodable>(_ value: T, orNothing: Bool = false) throws -> JSONTree.Value? {
        // Comparing `T` is far cheaper than a cast; the common leaves come first.
        if T.self == String.self, let string = value as? String { return .string(string) }
        if T.self == Int.self, let integer = value as? Int { return .integer(Int64(integer)) }
        if T.self == Bool.self, let bool = value as? Bool { return .bool(bool) }
        if T.self == Double.self, let double = value as? Double { return try box(double) }
        // Types compared rather than cast: a cast costs a conformance lookup.
        if T.self == Date.self, let date = value as? Date { return try box(date) }
        if T.self == Data.self, let data = value as? Data { return try box(data) }
        if T.self == URL.self, let url = value as? URL { return .string(url.absoluteString) }
        if T.self == Decimal.self, let decimal = value as? Decimal { return .numberText(decimal.description) }
        // With the keys as they are, a `[String: Value]` writes the same through its own
        // `encode(to:)`, so only other key strategies pay for the cast.
        if !options.keepsKeys, let dictionary = value as? any StringKeyedEncodable { return try dictionary.boxEntries(in: self) }
        return try encoding(orNothing: orNothing) { try value.encode(to: self) }
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

    /// Runs `body` with `key` on the coding path, after the first `depth` keys of the path.
    ///
    /// A container passes the path length of the encoder that made its outermost container:
    /// `JSONEncoder` encodes a value of a nested container with that encoder's path and the
    /// value's key, leaving out the nested containers' keys (a custom key strategy still sees
    /// them), and this encoder does the same, so that paths and the bytes a strategy writes
    /// from them are `JSONEncoder`'s.
    @inline(__always)
    func withKey<Result>(_ key: any CodingKey, depth: Int, _ body: () throws -> Result) rethrows -> Result {
        guard codingPath.count == depth else {
            let saved = codingPath
            codingPath = Array(codingPath.prefix(depth)) + [key]
            defer { codingPath = saved }
            return try body()
        }
        codingPath.append(key)
        defer { codingPath.removeLast() }
        return try body()
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
        for (key, value) in self {
            encoder.codingPath.append(JSONTreeKey(stringValue: key))
            defer { encoder.codingPath.removeLast() }
            if let boxed = try encoder.box(value) {
                encoder.tree.append(boxed, key: key, to: container)
            }
        }
        return .container(container)
    }
}
