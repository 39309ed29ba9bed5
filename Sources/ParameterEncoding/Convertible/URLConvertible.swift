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

    /// Why `text` is not a URL, with the fix when it lacks only its scheme (`127.0.0.1:8080/get`,
    /// `localhost:8080`, which `URL(string:)` refuses or reads as a scheme).
    static func notAURL(_ text: String) -> String {
        guard !text.contains("://"), let first = text.first, first.isLetter || first.isNumber,
              let withScheme = URL(string: "http://" + text), withScheme.host?.isEmpty == false else {
            return "\"\(text)\" is not a URL"
        }
        return "\"\(text)\" is not a URL: it has no scheme; write \"http://\(text)\" or \"https://\(text)\""
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
