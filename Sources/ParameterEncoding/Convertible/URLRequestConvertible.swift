import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLRequestConvertible

/// A value that can become a `URLRequest`. `URLRequest` conforms; so can your own route types.
public protocol URLRequestConvertible: Sendable {
    /// Returns the value as a request.
    ///
    /// - Returns: The request.
    /// - Throws: Any error met while building it, such as an invalid URL.
    func asURLRequest() throws -> URLRequest
}

extension URLRequestConvertible {
    /// The request, or `nil` when it cannot be built.
    public var urlRequest: URLRequest? { try? asURLRequest() }
}

extension URLRequest: URLRequestConvertible {
    /// Returns the request itself.
    ///
    /// - Returns: `self`.
    public func asURLRequest() throws -> URLRequest { self }
}

// MARK: - URLRequest helpers

extension URLRequest {
    /// Creates a request from anything URL-like, a method and headers.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - method: The HTTP method.
    ///   - headers: Headers to set, if any.
    /// - Throws: ``ParameterEncodingError`` for an invalid URL, method or header.
    public init(url: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders? = nil) throws {
        self.init(url: try url.asURL())
        try method.validate()
        httpMethod = method.rawValue
        if let headers {
            try setHeaders(headers)
        }
    }

    /// The request's method; `nil` when none is set.
    public var method: HTTPMethod? {
        get { httpMethod.map(HTTPMethod.init(rawValue:)) }
        set { httpMethod = newValue?.rawValue }
    }

    /// The request's headers, read sorted by name (`URLRequest` keeps them in a dictionary);
    /// assigning replaces every header the request has, as in Alamofire.
    ///
    /// ```swift
    /// request.headers = [.accept("application/json")]
    /// request.headers.add(.authorization(bearerToken: token))
    /// ```
    ///
    /// Assigning does not check the headers (a setter cannot throw): ``setHeaders(_:)`` does, and a
    /// `Session` refuses a header with CR, LF or NUL before it sends the request. A field that
    /// ``HTTPHeaders`` holds more than once is set once, its values joined with `, `.
    public var headers: HTTPHeaders {
        get { HTTPHeaders(allHTTPHeaderFields ?? [:]) }
        set {
            for name in (allHTTPHeaderFields ?? [:]).keys {
                setValue(nil, forHTTPHeaderField: name)
            }
            for header in newValue {
                let joined = value(forHTTPHeaderField: header.name).map { $0 + ", " + header.value } ?? header.value
                setValue(joined, forHTTPHeaderField: header.name)
            }
        }
    }

    /// Sets each header, replacing any value already set under the same name.
    ///
    /// All headers are checked before any is set, so a refused header leaves the request unchanged.
    ///
    /// - Parameter headers: The headers to set.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/invalidHeader``
    ///   naming the first header whose name or value is refused.
    public mutating func setHeaders(_ headers: HTTPHeaders) throws {
        try headers.validate()
        for header in headers {
            setValue(header.value, forHTTPHeaderField: header.name)
        }
    }

    /// Sets the body, and `Content-Type` unless the request already has one.
    package mutating func setBody(_ body: Data, defaultContentType contentType: String) {
        if value(forHTTPHeaderField: "Content-Type") == nil {
            setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        httpBody = body
    }
}
