import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - EncodingTarget

/// A request the built-in encodings write into directly: a `URLRequest`, or a request value of
/// another library (the Requests module's `OutgoingRequest`).
///
/// ``ParameterEncoding/encode(_:into:)`` writes parameters into a target. `URLEncoding`,
/// `JSONEncoding` and `PropertyListEncoding` write the query or the body straight into it; any
/// other encoding goes through a `URLRequest` (``URLRequestConvertible/asURLRequest()``) and
/// ``replace(with:)``, so a third-party encoding works unchanged.
public protocol EncodingTarget: URLRequestConvertible {
    /// The request's method, which decides where a method-dependent encoding writes.
    var encodingMethod: HTTPMethod { get }

    /// Appends percent-encoded `name=value` pairs to the URL's query, after an `&` when it has
    /// some.
    ///
    /// - Parameter query: The pairs, percent-encoded.
    /// - Throws: ``ParameterEncodingError`` when the result is not a URL.
    mutating func appendPercentEncodedQuery(_ query: String) throws

    /// Sets the body, and `Content-Type` unless the request has one.
    ///
    /// - Parameters:
    ///   - body: The bytes.
    ///   - contentType: The `Content-Type` to set when the request has none.
    mutating func setBody(_ body: Data, defaultContentType contentType: String)

    /// Sets the body, and each of `headers` the request does not set (by name, ignoring case):
    /// an ``HTTPBody`` with the headers it needs.
    ///
    /// - Parameters:
    ///   - body: The bytes.
    ///   - headers: The fields to add where the request has none of that name.
    mutating func setBody(_ body: Data, addingMissing headers: HTTPHeaders)

    /// Takes everything a `URLRequest` describes: what an encoding that writes only into
    /// `URLRequest` made.
    ///
    /// - Parameter request: The encoded request.
    /// - Throws: The error of a request this target cannot take (no URL, say).
    mutating func replace(with request: URLRequest) throws
}

extension ParameterEncoding {
    /// Writes the parameters into `target` through a `URLRequest`: what an encoding that knows
    /// only ``encode(_:with:)`` does.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` leaves the target as it is.
    ///   - target: The request to write into.
    /// - Throws: What ``encode(_:with:)`` or ``EncodingTarget/replace(with:)`` throws.
    public func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        let encoded = try encode(target, with: parameters)
        try target.replace(with: encoded)
    }
}

// MARK: - URLRequest

extension URLRequest: EncodingTarget {
    /// The method, `GET` when the request names none.
    public var encodingMethod: HTTPMethod { method ?? .get }

    /// Appends percent-encoded pairs to the URL's query.
    ///
    /// - Parameter query: The pairs, percent-encoded.
    /// - Throws: ``ParameterEncodingError`` (`missingURL`) for a request without a URL, or
    ///   (`invalidURL`) when the result is not a URL.
    public mutating func appendPercentEncodedQuery(_ query: String) throws {
        guard let url else {
            throw ParameterEncodingError(.missingURL, detail: "the request has no URL to add the query to")
        }
        self.url = try url.appendingPercentEncodedQuery(query)
    }

    /// Becomes `request`.
    ///
    /// - Parameter request: The request.
    public mutating func replace(with request: URLRequest) {
        self = request
    }

    /// Sets the body, and each of `headers` the request does not set.
    ///
    /// - Parameters:
    ///   - body: The bytes.
    ///   - headers: The fields to add where the request has none of that name.
    public mutating func setBody(_ body: Data, addingMissing headers: HTTPHeaders) {
        var fields = allHTTPHeaderFields ?? [:]
        var added = false
        for header in headers where value(forHTTPHeaderField: header.name) == nil {
            fields[header.name] = header.value
            added = true
        }
        // One assignment: on Linux each header setter copies and re-normalises every field.
        if added { allHTTPHeaderFields = fields }
        httpBody = body
    }
}
