import Foundation

// MARK: - RawJSON

/// JSON text, checked once, that the JSON writer copies into its output unchanged.
///
/// Put a `RawJSON` anywhere in parameters to send a value exactly as it was written: numbers keep
/// their digits (`12345678901234567890`, `1.0` and `1e3` are not rewritten as
/// `1.2345678901234567e+19`, `1` and `1000`), objects keep their key order and spacing.
///
/// ```swift
/// let parameters: Parameters = ["id": try RawJSON("12345678901234567890"), "price": try RawJSON("1.50")]
/// try JSONEncoding.default.data(for: parameters)   // {"id":12345678901234567890,"price":1.50}
/// ```
///
/// How each encoding writes it:
/// - ``JSONEncoding``: the text itself, verbatim; `.prettyPrinted` does not
///   re-indent it and `.withoutEscapingSlashes` does not touch its strings. A raw array or object
///   counts as a container at the top level.
/// - ``URLEncoding`` and ``FormBody``: the value the text spells. A number is written as its text
///   (`1.0` stays `1.0`), a string without its quotes, `true` and `false` by the `boolEncoding`,
///   `null` by the `nilEncoding`; arrays and objects nest as arrays and dictionaries do, objects in
///   the order their keys were written.
/// - ``PropertyListEncoding``: the value the text spells. A number without a fraction or exponent
///   is an integer and must fit 64 bits; any other number is a real (the nearest `Double`).
///   `null` and an object that repeats a key have no property-list form and are refused.
///
/// The name follows Go's `json.RawMessage` and JavaScript's `JSON.rawJSON`; it is not called a
/// fragment because `JSONSerialization` uses that word for a top-level scalar only, and a
/// `RawJSON` may hold an array or an object too.
public struct RawJSON: Sendable, Hashable, CustomStringConvertible {
    /// The JSON text, without the whitespace that surrounded it.
    public let text: String

    /// The parsed value, for the encodings that write what the text spells.
    let root: JSONTextNode

    /// Checks `text` against the JSON grammar (RFC 8259) and keeps it.
    ///
    /// - Parameter text: One JSON value: an object, array, string, number, `true`, `false` or
    ///   `null`, with optional whitespace around it.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidJSONText``
    ///   saying what is wrong and at which byte (a missing value, a leading zero, an unescaped
    ///   control character, an unpaired surrogate, text after the value…), or
    ///   ``ParameterEncodingError/Code/nestingTooDeep`` past ``ParameterEncodingError/maximumDepth``
    ///   levels.
    public init(_ text: String) throws {
        let bytes = Array(text.utf8)
        var parser = JSONTextParser(bytes)
        let parsed = try parser.parse()
        self.root = parsed.node
        self.text = parsed.range == bytes.indices ? text : String(decoding: bytes[parsed.range], as: UTF8.self)
    }

    /// Checks UTF-8 `data` against the JSON grammar (RFC 8259) and keeps its text.
    ///
    /// - Parameter data: One JSON value in UTF-8, such as the contents of a `.json` file.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidJSONText``
    ///   when `data` is not UTF-8 or not JSON, as ``init(_:)``.
    public init(_ data: Data) throws {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ParameterEncodingError(.invalidJSONText, detail: "the data is not valid UTF-8")
        }
        try self.init(text)
    }

    /// Whether the value is an array or an object.
    var isContainer: Bool {
        switch root {
        case .array, .object: true
        case .string, .number, .bool, .null: false
        }
    }

    /// The JSON text.
    public var description: String { text }

    /// Whether two values have the same text.
    ///
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    /// - Returns: `true` when the texts are equal; `1.0` and `1` differ.
    public static func == (lhs: RawJSON, rhs: RawJSON) -> Bool {
        lhs.text == rhs.text
    }

    /// Hashes the text.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}

// MARK: - JSONTextNode

/// A parsed JSON value whose numbers are kept as their text, and objects in their written order.
indirect enum JSONTextNode: Sendable {
    case string(String)
    /// A number's text, exactly as written: `-0`, `1.50`, `1E+3`.
    case number(String)
    case bool(Bool)
    case null
    case array([JSONTextNode])
    /// Keys and values in the order written; a key may repeat.
    case object(keys: [String], values: [JSONTextNode])
}
