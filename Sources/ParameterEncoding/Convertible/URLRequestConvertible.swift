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
            allHTTPHeaderFields = newValue.dictionary
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
        setFields(headers.map { ($0.name, $0.value) })
    }

    /// Sets the body, and `Content-Type` unless the request already has one.
    ///
    /// - Parameters:
    ///   - body: The bytes.
    ///   - contentType: The `Content-Type` to set when the request has none.
    public mutating func setBody(_ body: Data, defaultContentType contentType: String) {
        if value(forHTTPHeaderField: "Content-Type") == nil {
            setField(contentType, for: "Content-Type")
        }
        httpBody = body
    }

    /// Sets a header field, replacing any spelling of its name, or removes it when `value` is
    /// `nil`: ``setFields(_:)`` for one field.
    ///
    /// - Parameters:
    ///   - value: The value, or `nil` to remove the field.
    ///   - name: The field's name.
    package mutating func setField(_ value: String?, for name: String) {
        setFields(CollectionOfOne((name, value)))
    }

    /// Sets header fields in order, each replacing any spelling of its name (a `nil` value
    /// removes it), through the request's field dictionary read and assigned once.
    ///
    /// The one way this package changes a request's header fields: FoundationNetworking's
    /// `setValue(_:forHTTPHeaderField:)` folds the case of every name it holds on each call,
    /// about 0.75 µs a field here, where reading and assigning the dictionary costs 0.15 µs in all.
    ///
    /// - Parameter changes: Names and values, in the order to apply them.
    package mutating func setFields(_ changes: some Collection<(String, String?)>) {
        guard !changes.isEmpty else { return }
        var fields = allHTTPHeaderFields ?? [:]
        fields.reserveCapacity(fields.count + changes.count)
        for (name, value) in changes {
            while let existing = fields.keys.first(where: { HTTPHeaders.namesMatch($0, name) }) {
                fields[existing] = nil
            }
            if let value { fields[name] = value }
        }
        allHTTPHeaderFields = fields
    }
}
