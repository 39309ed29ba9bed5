import Foundation

// MARK: - ParameterEncodingError

/// The one error type of the `ParameterEncoding` module.
///
/// Each error says what went wrong (``code``), where (``keyPath`` for a bad parameter,
/// ``detail`` for the URL or header at fault) and, when another API failed, why
/// (``underlyingError``).
///
/// ```swift
/// do {
///     _ = try JSONEncoding.default.encode(request, with: ["user": ["scores": [1, 2, Double.nan]]])
/// } catch let error as ParameterEncodingError {
///     print(error) // Invalid JSON value at user.scores[2]: NaN is not a valid JSON number
/// }
/// ```
public struct ParameterEncodingError: Error, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members, e.g. `error.code == .nestingTooDeep`.
    public let code: Code

    /// A short, human readable explanation: the offending value, type, URL string or header.
    public let detail: String

    /// The error reported by Foundation (a serializer), if one caused this error.
    public let underlyingError: (any Error)?

    /// Path components from the top-level parameter down to the bad value, outermost first.
    package private(set) var path: [KeyPathComponent]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - detail: What was wrong, in words.
    ///   - underlyingError: The error that caused this one, if any.
    public init(_ code: Code, detail: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.underlyingError = underlyingError
        self.path = []
    }

    package init(_ code: Code, detail: String, path: [KeyPathComponent]) {
        self.init(code, detail: detail)
        self.path = path
    }

    /// The key path of the parameter at fault, written like `user.scores[2]`, or `nil` when
    /// the error is not about one parameter (a missing URL, a refused header).
    ///
    /// Keys that contain `.`, `[`, `]`, `"` or whitespace are written in brackets and quotes:
    /// `filters["a.b"][0]`.
    public var keyPath: String? {
        path.isEmpty ? nil : KeyPathComponent.render(path)
    }

    /// Adds the components of the enclosing containers, outermost first.
    package mutating func prepend(_ components: [KeyPathComponent]) {
        path.insert(contentsOf: components, at: 0)
    }

    /// A readable sentence naming the failure, its place and its cause.
    public var description: String {
        var text = code.summary
        if let keyPath {
            text += " at " + KeyPathComponent.abbreviated(keyPath)
        }
        if !detail.isEmpty {
            text += ": " + detail
        }
        if let underlyingError {
            text += " (\(underlyingError))"
        }
        return text
    }
}

// MARK: - Code

extension ParameterEncodingError {
    /// The kinds of ``ParameterEncodingError``. New kinds may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The name of the code, e.g. `missingURL`.
        public let description: String
        /// The first words of an error's description.
        let summary: String

        private init(_ name: String, summary: String) {
            self.description = name
            self.summary = summary
        }

        /// The request has no URL, so query parameters have nowhere to go.
        public static let missingURL = Code("missingURL", summary: "Missing URL")
        /// A string or set of URL components does not form a valid URL.
        public static let invalidURL = Code("invalidURL", summary: "Invalid URL")
        /// A parameter cannot be written as JSON: NaN, infinity, a non-string key or an unsupported type.
        public static let invalidJSONValue = Code("invalidJSONValue", summary: "Invalid JSON value")
        /// Text given as ``RawJSON`` is not one JSON value (RFC 8259): the detail says what is wrong
        /// and at which byte.
        public static let invalidJSONText = Code("invalidJSONText", summary: "Invalid JSON text")
        /// A parameter cannot be written in a property list: `nil`, a non-string key or an unsupported type.
        public static let invalidPropertyListValue = Code("invalidPropertyListValue", summary: "Invalid property list value")
        /// Parameters nest deeper than ``ParameterEncodingError/maximumDepth`` levels.
        public static let nestingTooDeep = Code("nestingTooDeep", summary: "Parameters nested too deeply")
        /// Foundation's serializer failed; see ``ParameterEncodingError/underlyingError``.
        public static let serializationFailed = Code("serializationFailed", summary: "Serialization failed")
        /// A header name or value contains a character HTTP does not allow there (CR, LF, NUL…).
        public static let invalidHeader = Code("invalidHeader", summary: "Invalid HTTP header")
        /// An HTTP method is not a valid token (empty, or containing spaces or separators).
        public static let invalidMethod = Code("invalidMethod", summary: "Invalid HTTP method")
        /// Parameter sets ask for two different body encodings; a request has one body.
        public static let conflictingBodies = Code("conflictingBodies", summary: "Conflicting request bodies")
        /// A multipart body cannot be written: an unreadable file, a bad MIME type or boundary, or
        /// content that contains the boundary the caller chose.
        public static let invalidMultipart = Code("invalidMultipart", summary: "Invalid multipart body")
    }

    /// How many container levels any encoder descends before it throws ``Code/nestingTooDeep``.
    ///
    /// Generous for real data, and far below what would exhaust a thread's stack.
    public static let maximumDepth = 512
}

// MARK: - KeyPathComponent

/// One step of a key path: a dictionary key or an array index.
package enum KeyPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)

    static func render(_ components: [KeyPathComponent]) -> String {
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key) where isPlain(key):
                if !text.isEmpty { text += "." }
                text += key
            case .key(let key):
                let quoted = key.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"")
                text += "[\"\(quoted)\"]"
            }
        }
        return text
    }

    /// A key is written bare when it cannot be mistaken for path punctuation.
    private static func isPlain(_ key: String) -> Bool {
        !key.isEmpty && !key.unicodeScalars.contains { scalar in
            scalar == "." || scalar == "[" || scalar == "]" || scalar == "\""
                || scalar.properties.isWhitespace || scalar.value < 0x20
        }
    }

    /// Shortens very long paths (a 512-level nesting) for the one-line description.
    static func abbreviated(_ keyPath: String) -> String {
        guard keyPath.count > 160 else { return keyPath }
        return String(keyPath.prefix(60)) + " … " + String(keyPath.suffix(60))
    }
}
