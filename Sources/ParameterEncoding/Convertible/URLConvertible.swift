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
            throw ParameterEncodingError(.invalidURL, detail: "\"\(self)\" is not a URL")
        }
        return url
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
