import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLEncoding

/// Writes parameters as a URL-encoded query: into the URL, or into the body as
/// `application/x-www-form-urlencoded`.
///
/// Nested values follow Alamofire's conventions: arrays as `key[]`, dictionaries as `key[nested]`,
/// booleans as `1`/`0`. Unlike Alamofire, keys are sorted at every level, so the same
/// parameters always give the same bytes.
///
/// ```swift
/// let request = try URLEncoding.default.encode(URLRequest(url: url),
///                                              with: ["q": "swift nio", "page": ["size": 20]])
/// // ?page%5Bsize%5D=20&q=swift%20nio
/// ```
public struct URLEncoding: ParameterEncoding {
    /// Where the query goes.
    public let destination: Destination
    /// How array elements are keyed.
    public let arrayEncoding: ArrayEncoding
    /// How booleans are written.
    public let boolEncoding: BoolEncoding
    /// How `nil` and `NSNull` are written.
    public let nilEncoding: NilEncoding
    /// Which characters are written without percent-encoding.
    public let escaping: Escaping

    /// Creates a URL encoding.
    ///
    /// - Parameters:
    ///   - destination: Where the query goes. `.methodDependent` by default.
    ///   - arrayEncoding: How array elements are keyed. `.brackets` by default.
    ///   - boolEncoding: How booleans are written. `.numeric` by default.
    ///   - nilEncoding: How `nil` and `NSNull` are written. `.dropKey` by default.
    ///   - escaping: Which characters stay unencoded. `.rfc3986` by default.
    public init(
        destination: Destination = .methodDependent,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        nilEncoding: NilEncoding = .dropKey,
        escaping: Escaping = .rfc3986
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.nilEncoding = nilEncoding
        self.escaping = escaping
    }

    /// Query string for `GET`, `HEAD` and `DELETE`, body otherwise.
    public static var `default`: URLEncoding { URLEncoding() }
    /// The same as ``default``.
    public static var methodDependent: URLEncoding { URLEncoding() }
    /// Always the query string.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// Always the body.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    // MARK: Encoding requests

    /// Returns the request with the parameters in its query string or body.
    ///
    /// A query is appended to any query the URL already has, joined by a single `&`. A body
    /// gets `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless the request
    /// already has a content type. When the parameters are `nil`, empty, or produce no pairs
    /// (only empty containers, or `nil`s that are dropped), the request is returned unchanged.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - parameters: The parameters, written with keys sorted at every level.
    /// - Returns: The encoded request.
    /// - Throws: ``ParameterEncodingError`` for a missing URL or parameters nested too deeply, or
    ///   the error thrown while building the request.
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        let request = try urlRequest.asURLRequest()
        guard let parameters, !parameters.isEmpty else { return request }
        return try apply(queryBuffer(.parameters(parameters)), to: request)
    }

    /// Returns the request with ordered pairs in its query string or body, in the order given.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - pairs: Keys and values in the order they should appear. Nested dictionaries are still sorted.
    /// - Returns: The encoded request.
    /// - Throws: As ``encode(_:with:)``.
    public func encode(_ urlRequest: any URLRequestConvertible, withOrderedPairs pairs: KeyValuePairs<String, any Sendable>) throws -> URLRequest {
        let request = try urlRequest.asURLRequest()
        return try apply(queryBuffer(.ordered(pairs.lazy.map { ($0.key, $0.value) })), to: request)
    }

    /// Returns the request with ordered pairs in its query string or body, in the order given.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - pairs: Keys and values in the order they should appear. Nested dictionaries are still sorted.
    /// - Returns: The encoded request.
    /// - Throws: As ``encode(_:with:)``.
    public func encode(_ urlRequest: any URLRequestConvertible, withOrderedPairs pairs: [(String, any Sendable)]) throws -> URLRequest {
        let request = try urlRequest.asURLRequest()
        return try apply(queryBuffer(.ordered(pairs)), to: request)
    }

    /// Writes the parameters into the target's query or body, as ``destination`` says for its
    /// method.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` or none leaves the target as it is.
    ///   - target: The request to write into.
    /// - Throws: ``ParameterEncodingError`` naming the parameter at fault, or the query that
    ///   does not form a URL.
    public func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        guard let parameters, !parameters.isEmpty else { return }
        try apply(queryBuffer(.parameters(parameters)), to: &target)
    }

    /// Takes the request rather than borrowing it: on Linux, changing a `URLRequest` that is also
    /// referenced elsewhere copies the whole underlying `NSMutableURLRequest`.
    func apply(_ query: borrowing ByteBuffer, to request: consuming URLRequest) throws -> URLRequest {
        try apply(query, to: &request)
        return request
    }

    func apply<Target: EncodingTarget>(_ query: borrowing ByteBuffer, to target: inout Target) throws {
        guard !query.isEmpty else { return }
        if destination.encodesParametersInURL(for: target.encodingMethod) {
            try target.appendPercentEncodedQuery(query.text)
        } else {
            target.setBody(query.data, defaultContentType: "application/x-www-form-urlencoded; charset=utf-8")
        }
    }
}

// MARK: - URL + query

extension URL {
    /// Appends an already percent-encoded query, before any fragment, joined to an existing
    /// query by exactly one `&`.
    ///
    /// Works on the URL's text rather than through `URLComponents`, which re-parses and
    /// re-encodes every part.
    package func appendingPercentEncodedQuery(_ query: String) throws -> URL {
        let result = URL.appendingQuery(query, to: absoluteString)
        guard let url = URL(string: result) else {
            throw ParameterEncodingError(.invalidURL, detail: "\"\(result)\" is not a URL")
        }
        return url
    }

    /// URL text with an already percent-encoded query appended before any fragment, joined to an
    /// existing query by exactly one `&`.
    package static func appendingQuery(_ query: String, to text: String) -> String {
        let utf8 = text.utf8
        let fragmentStart = utf8.firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        let base = text[..<fragmentStart]
        var result = String()
        result.reserveCapacity(utf8.count + query.utf8.count + 1)
        result += base
        if base.utf8.contains(UInt8(ascii: "?")) {
            if let last = base.utf8.last, last != UInt8(ascii: "?"), last != UInt8(ascii: "&") {
                result += "&"
            }
        } else {
            result += "?"
        }
        result += query
        result += text[fragmentStart...]
        return result
    }
}
