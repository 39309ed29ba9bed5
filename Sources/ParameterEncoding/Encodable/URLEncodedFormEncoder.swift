import Foundation

// MARK: - URLEncodedFormEncoder

/// Encodes an `Encodable` value as `application/x-www-form-urlencoded` text, with the same keys,
/// order and escaping as ``URLEncoding`` writes for the same data as `Parameters`.
///
/// Nested values become `key[nested]`, arrays `key[]` (or per ``arrayEncoding``), booleans
/// `1`/`0` (or per ``boolEncoding``), and keys are sorted at every level unless
/// ``alphabetizeKeyValuePairs`` is `false`.
///
/// ```swift
/// struct Search: Encodable { let q: String; let page: Page; struct Page: Encodable { let size: Int } }
/// try URLEncodedFormEncoder().encode(Search(q: "swift nio", page: .init(size: 20)))
/// // "page%5Bsize%5D=20&q=swift%20nio"
/// ```
///
/// The value is first turned into the same tree of strings, numbers, booleans, arrays and
/// dictionaries that `Parameters` holds, then written by ``URLEncoding``'s own writer: the two
/// cannot drift apart.
public struct URLEncodedFormEncoder: Sendable {
    /// How array elements are keyed; `.brackets` by default.
    public var arrayEncoding: URLEncoding.ArrayEncoding
    /// How booleans are written; `.numeric` by default.
    public var boolEncoding: URLEncoding.BoolEncoding
    /// How `nil` values that are encoded (with `encodeNil`) are written; `.dropKey` by default.
    /// Synthesised `Encodable` conformances leave `nil` optionals out altogether.
    public var nilEncoding: URLEncoding.NilEncoding
    /// Which characters stay unencoded (and whether space is `+`); `.rfc3986` by default.
    public var escaping: URLEncoding.Escaping
    /// How dates are written; `.deferredToDate` by default.
    public var dateEncoding: DateEncoding
    /// How `Data` is written; `.base64` by default.
    public var dataEncoding: DataEncoding
    /// How keys are rewritten; `.useDefaultKeys` by default.
    public var keyEncoding: KeyEncoding
    /// Whether keys are sorted at every level (the default, as ``URLEncoding`` does), or kept in
    /// the order the value encodes them.
    public var alphabetizeKeyValuePairs: Bool

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - arrayEncoding: How array elements are keyed.
    ///   - boolEncoding: How booleans are written.
    ///   - nilEncoding: How encoded `nil`s are written.
    ///   - escaping: Which characters stay unencoded.
    ///   - dateEncoding: How dates are written.
    ///   - dataEncoding: How `Data` is written.
    ///   - keyEncoding: How keys are rewritten.
    ///   - alphabetizeKeyValuePairs: Whether keys are sorted at every level.
    public init(
        arrayEncoding: URLEncoding.ArrayEncoding = .brackets,
        boolEncoding: URLEncoding.BoolEncoding = .numeric,
        nilEncoding: URLEncoding.NilEncoding = .dropKey,
        escaping: URLEncoding.Escaping = .rfc3986,
        dateEncoding: DateEncoding = .deferredToDate,
        dataEncoding: DataEncoding = .base64,
        keyEncoding: KeyEncoding = .useDefaultKeys,
        alphabetizeKeyValuePairs: Bool = true
    ) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.nilEncoding = nilEncoding
        self.escaping = escaping
        self.dateEncoding = dateEncoding
        self.dataEncoding = dataEncoding
        self.keyEncoding = keyEncoding
        self.alphabetizeKeyValuePairs = alphabetizeKeyValuePairs
    }

    /// Encodes a value as form text.
    ///
    /// - Parameter value: A value that encodes a keyed container: a struct, a class or a
    ///   dictionary with string or integer keys.
    /// - Returns: `key=value` pairs joined by `&`.
    /// - Throws: `EncodingError.invalidValue` naming the coding path, for a top-level value that
    ///   is not keyed, a date outside what ``dateEncoding`` can write, an error of a custom
    ///   strategy, or an `Encodable` implementation that mixes containers; and
    ///   ``ParameterEncodingError`` for values nested too deeply.
    public func encode(_ value: some Encodable) throws -> String {
        try queryBuffer(value).text
    }

    /// The ``URLEncoding`` with this encoder's writing options and the given destination.
    ///
    /// - Parameter destination: Where the query goes.
    /// - Returns: The encoding.
    public func urlEncoding(destination: URLEncoding.Destination = .methodDependent) -> URLEncoding {
        URLEncoding(destination: destination, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding,
                    nilEncoding: nilEncoding, escaping: escaping)
    }

    /// The encoded bytes; every entry point ends here.
    func queryBuffer(_ value: some Encodable) throws -> ByteBuffer {
        let parameters = try parameters(from: value)
        return try urlEncoding().queryBuffer(parameters)
    }

    /// The value as the children of a top-level `Parameters` tree.
    func parameters(from value: some Encodable) throws -> ParameterChildren {
        let root = FormNode()
        let state = FormEncodingState(options: self)
        try state.box(value, into: root, codingPath: [])
        if let error = state.error { throw error }
        switch root.content {
        case .empty:
            return .parameters([:])
        case .keyed(let storage):
            return alphabetizeKeyValuePairs
                ? .parameters(storage.dictionary(sorted: true))
                : .ordered(storage.pairs(sorted: false))
        case .scalar, .unkeyed:
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [],
                debugDescription: "a form needs a keyed top-level value (a struct or a dictionary), not \(type(of: value))"
            ))
        }
    }
}
