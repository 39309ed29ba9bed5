import Foundation

// MARK: - URLConvertible

/// A value that can become a `URL`: `String`, `URL` and `URLComponents` conform.
public protocol URLConvertible: Sendable {
    /// Returns the value as a URL.
    ///
    /// - Returns: The URL.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidURL``
    ///   and the offending text when the value does not form a URL.
    func asURL() throws -> URL
}

extension String: URLConvertible {
    /// Parses the string with `URL(string:)`.
    ///
    /// - Returns: The URL.
    /// - Throws: ``ParameterEncodingError/Code/invalidURL`` naming the string when it is not a URL.
    public func asURL() throws -> URL {
        guard let url = URL(string: self) else {
            throw ParameterEncodingError(.invalidURL, detail: Self.notAURL(self))
        }
        return url
    }

    /// Why `text` is not a URL: the fix when it lacks only its scheme (`127.0.0.1:8080/get`,
    /// `localhost:8080`, which `URL(string:)` refuses or reads as a scheme), or where a space or
    /// a control character is.
    static func notAURL(_ text: String) -> String {
        if let fixed = URLText.withScheme(text) {
            return "\"\(text)\" is not a URL: it has no scheme; write \"\(fixed)\""
        }
        if let (offset, character) = text.enumerated().first(where: { $0.element.isWhitespace || $0.element.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) {
            let what = character == " " ? "a space" : "the character U+\(String(format: "%04X", character.unicodeScalars.first?.value ?? 0))"
            return "\"\(text)\" is not a URL: \(what) at character \(offset + 1), after \"\(text.prefix(offset))\"; "
                + "a host cannot have one, and a path or a query writes it percent-encoded (%20 for a space)"
        }
        return "\"\(text)\" is not a URL"
    }
}

// MARK: - URLText

/// What a URL written without its scheme most likely meant.
package enum URLText {
    /// `text` with the scheme it lacks: `http://` for a loopback or local host (`localhost:8080`,
    /// `127.0.0.1`, `*.local`), `https://` for any other; `nil` when `text` has a scheme or would
    /// not be a URL with one.
    package static func withScheme(_ text: String) -> String? {
        guard !text.contains("://"), let first = text.first, first.isLetter || first.isNumber,
              let parsed = URL(string: "http://" + text), let host = parsed.host, !host.isEmpty else { return nil }
        let local = host == "localhost" || host.hasSuffix(".local") || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
            || host.hasSuffix(".localhost") || host == "0.0.0.0"
        return (local ? "http://" : "https://") + text
    }
}

extension URL: URLConvertible {
    /// Returns the URL itself.
    ///
    /// - Returns: `self`.
    public func asURL() throws -> URL { self }
}

extension URLComponents: URLConvertible {
    /// Returns the URL the components describe.
    ///
    /// - Returns: The URL.
    /// - Throws: ``ParameterEncodingError/Code/invalidURL`` naming the components when they do not form a URL.
    public func asURL() throws -> URL {
        guard let url else {
            throw ParameterEncodingError(.invalidURL, detail: "the components \(self) do not form a URL")
        }
        return url
    }
}
