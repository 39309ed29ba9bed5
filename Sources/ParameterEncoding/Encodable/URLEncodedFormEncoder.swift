import Foundation

// MARK: - URLEncodedFormEncoder

/// Encodes an `Encodable` value as `application/x-www-form-urlencoded` text, with the same keys,
/// order and escaping as ``URLEncoding`` writes for the same data as `Parameters`.
///
/// Nested values become `key[nested]` (or per ``keyPathEncoding``), arrays `key[]` (or per
/// ``arrayEncoding``), booleans `1`/`0` (or per ``boolEncoding``), and keys are sorted at every
/// level unless ``alphabetizeKeyValuePairs`` is `false`.
///
/// ```swift
/// struct Search: Encodable { let q: String; let page: Page; struct Page: Encodable { let size: Int } }
/// try URLEncodedFormEncoder().encode(Search(q: "swift nio", page: .init(size: 20)))
/// // "page%5Bsize%5D=20&q=swift%20nio"
/// ```
///
/// Optional properties follow ``nilEncoding`` (left out by default). An `encode(to:)` written by
/// hand is encoded as Alamofire encodes it: containers of one kind asked for under one key merge,
/// one of the other kind replaces what is there when it first writes, and `superEncoder()` writes
/// into the current container, so a superclass's keys sit beside the subclass's.
///
/// The value is first turned into a flat tree of typed values (the one the `Encodable` → JSON
/// path fills), then written by ``URLEncoding``'s own writer, which reads the tree as it reads
/// `Parameters`: the two cannot drift apart.
public struct URLEncodedFormEncoder: Sendable {
    /// How array elements are keyed; `.brackets` by default.
    public var arrayEncoding: ArrayEncoding
    /// How booleans are written; `.numeric` by default.
    public var boolEncoding: BoolEncoding
    /// How `nil` is written, whether encoded with `encodeNil` or an `Optional` property of a
    /// synthesised conformance (`encodeIfPresent`); `.dropKey`, leaving the key out, by default.
    public var nilEncoding: NilEncoding
    /// Which characters stay unencoded, and whether space is `+`; `.rfc3986` by default.
    /// ``allowedCharacters`` and ``spaceEncoding`` are Alamofire's two views of it.
    public var escaping: URLEncoding.Escaping
    /// How dates are written; `.deferredToDate` by default.
    public var dateEncoding: DateEncoding
    /// How `Data` is written; `.base64` by default.
    public var dataEncoding: DataEncoding
    /// How keys are rewritten; `.useDefaultKeys` by default.
    public var keyEncoding: KeyEncoding
    /// How a nested key is joined to its parent's; `.brackets` (`parent[child]`) by default.
    public var keyPathEncoding: KeyPathEncoding
    /// Whether keys are sorted at every level (the default, as ``URLEncoding`` does), or kept in
    /// the order the value encodes them.
    public var alphabetizeKeyValuePairs: Bool

    /// Creates an encoder with Alamofire's parameters, in Alamofire's order.
    ///
    /// - Parameters:
    ///   - alphabetizeKeyValuePairs: Whether keys are sorted at every level; `true` by default.
    ///   - arrayEncoding: How array elements are keyed; `.brackets` by default.
    ///   - boolEncoding: How booleans are written; `.numeric` by default.
    ///   - dataEncoding: How `Data` is written; `.base64` by default.
    ///   - dateEncoding: How dates are written; `.deferredToDate` by default.
    ///   - keyEncoding: How keys are rewritten; `.useDefaultKeys` by default.
    ///   - keyPathEncoding: How nested keys are joined; `.brackets` by default.
    ///   - nilEncoding: How `nil` is written; `.dropKey` by default.
    ///   - spaceEncoding: Whether a space is `%20` (`.percentEscaped`, the default) or `+`.
    ///   - allowedCharacters: The characters written as they are; `nil`, the default, is
    ///     `.afURLQueryAllowed`. Only visible ASCII counts, and `%&=#+` are always encoded (see
    ///     ``URLEncoding/Escaping/init(allowedCharacters:encodesSpaceAsPlus:)-(CharacterSet,_)``).
    public init(
        alphabetizeKeyValuePairs: Bool = true,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        dataEncoding: DataEncoding = .base64,
        dateEncoding: DateEncoding = .deferredToDate,
        keyEncoding: KeyEncoding = .useDefaultKeys,
        keyPathEncoding: KeyPathEncoding = .brackets,
        nilEncoding: NilEncoding = .dropKey,
        spaceEncoding: SpaceEncoding = .percentEscaped,
        allowedCharacters: CharacterSet? = nil
    ) {
        let plus = spaceEncoding == .plusReplaced
        let escaping = allowedCharacters.map { URLEncoding.Escaping(allowedCharacters: $0, encodesSpaceAsPlus: plus) }
            ?? (plus ? Self.rfc3986PlusForSpace : .rfc3986)
        self.init(alphabetizeKeyValuePairs: alphabetizeKeyValuePairs, arrayEncoding: arrayEncoding,
                  boolEncoding: boolEncoding, dataEncoding: dataEncoding, dateEncoding: dateEncoding,
                  keyEncoding: keyEncoding, keyPathEncoding: keyPathEncoding, nilEncoding: nilEncoding,
                  escaping: escaping)
    }

    /// Creates an encoder that escapes with an ``URLEncoding/Escaping`` table, such as
    /// `.whatwgForm`.
    ///
    /// - Parameters:
    ///   - alphabetizeKeyValuePairs: Whether keys are sorted at every level; `true` by default.
    ///   - arrayEncoding: How array elements are keyed; `.brackets` by default.
    ///   - boolEncoding: How booleans are written; `.numeric` by default.
    ///   - dataEncoding: How `Data` is written; `.base64` by default.
    ///   - dateEncoding: How dates are written; `.deferredToDate` by default.
    ///   - keyEncoding: How keys are rewritten; `.useDefaultKeys` by default.
    ///   - keyPathEncoding: How nested keys are joined; `.brackets` by default.
    ///   - nilEncoding: How `nil` is written; `.dropKey` by default.
    ///   - escaping: Which characters stay unencoded, and how a space is written.
    public init(
        alphabetizeKeyValuePairs: Bool = true,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        dataEncoding: DataEncoding = .base64,
        dateEncoding: DateEncoding = .deferredToDate,
        keyEncoding: KeyEncoding = .useDefaultKeys,
        keyPathEncoding: KeyPathEncoding = .brackets,
        nilEncoding: NilEncoding = .dropKey,
        escaping: URLEncoding.Escaping
    ) {
        self.alphabetizeKeyValuePairs = alphabetizeKeyValuePairs
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dataEncoding = dataEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
        self.keyPathEncoding = keyPathEncoding
        self.nilEncoding = nilEncoding
        self.escaping = escaping
    }

    /// Alamofire's default set with a space written as `+`: built once, not per encoder.
    private static let rfc3986PlusForSpace = URLEncoding.Escaping(
        allowedCharacters: URLEncoding.Escaping.rfc3986.allowedCharacters, encodesSpaceAsPlus: true
    )

    /// Whether a space is written `%20` or `+`: ``escaping``'s
    /// ``URLEncoding/Escaping/encodesSpaceAsPlus``, under Alamofire's name.
    public var spaceEncoding: SpaceEncoding {
        get { escaping.encodesSpaceAsPlus ? .plusReplaced : .percentEscaped }
        set { escaping = URLEncoding.Escaping(allowedCharacters: escaping.allowedCharacters, encodesSpaceAsPlus: newValue == .plusReplaced) }
    }

    /// The characters written as they are: ``escaping``'s, under Alamofire's name. Setting it
    /// keeps ``spaceEncoding``; only visible ASCII counts, and `%&=#+` are always encoded.
    public var allowedCharacters: CharacterSet {
        get { escaping.allowedCharacterSet }
        set { escaping = URLEncoding.Escaping(allowedCharacters: newValue, encodesSpaceAsPlus: escaping.encodesSpaceAsPlus) }
    }

    /// Encodes a value as form text.
    ///
    /// - Parameter value: A value that encodes a keyed container: a struct, a class or a
    ///   dictionary with string or integer keys.
    /// - Returns: `key=value` pairs joined by `&`.
    /// - Throws: `EncodingError.invalidValue` naming the coding path, for a top-level value that
    ///   is not keyed, a date outside what ``dateEncoding`` can write, or a single value encoded
    ///   where a value was already encoded; ``ParameterEncodingError`` for values nested too
    ///   deeply; and, unchanged, any error of your own: of a custom date or data strategy, or of
    ///   the value's `encode(to:)`.
    public func encode(_ value: some Encodable) throws -> String {
        try queryBuffer(value).text
    }

    /// The ``URLEncoding`` with this encoder's writing options and the given destination.
    ///
    /// `URLEncoding` has no key-path option: its nested keys are always `parent[child]`, whatever
    /// ``keyPathEncoding`` says.
    ///
    /// - Parameter destination: Where the query goes.
    /// - Returns: The encoding.
    public func urlEncoding(destination: URLEncoding.Destination = .methodDependent) -> URLEncoding {
        URLEncoding(destination: destination, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding,
                    nilEncoding: nilEncoding, escaping: escaping)
    }

    /// The encoded bytes; every entry point ends here.
    func queryBuffer(_ value: some Encodable) throws -> ByteBuffer {
        let (root, tree) = try object(of: value)
        return try urlEncoding().queryBuffer(root, of: tree, keyPathEncoding: keyPathEncoding, sortsKeys: alphabetizeKeyValuePairs)
    }

    /// The object the value encodes, as a container of the ``JSONTree`` that holds it.
    func object(of value: some Encodable) throws -> (TreeContainer, JSONTree) {
        let state = FormEncodingState(options: self)
        try FormTreeEncoder(state: state).box(value, into: .topLevel, path: .topLevel)
        switch state.topLevel {
        case .nothing:
            return (TreeContainer(entries: [], isObject: true), state.tree)
        case .container(let index) where state.tree.containers[index].isObject:
            return (TreeContainer(state.tree, at: index), state.tree)
        default:
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [],
                debugDescription: "a form needs a keyed top-level value (a struct or a dictionary), not \(type(of: value))"
            ))
        }
    }
}
