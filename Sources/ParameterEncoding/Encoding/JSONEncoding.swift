import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - JSONEncoding

/// Writes parameters as a JSON body, with `Content-Type: application/json` unless one is set.
///
/// The JSON is written directly as UTF-8 bytes by this package's own writer, byte for byte what
/// `JSONSerialization` writes with `.sortedKeys`, many times faster. Object keys are always
/// written sorted, in `JSONSerialization`'s order (punctuation, then digits by their value, then
/// letters regardless of case), so the same parameters give the same bytes in every run;
/// ``sortedKeys`` is kept for source compatibility with Alamofire. Ordered pairs
/// (`KeyValuePairs`, `[(String, any Sendable)]`) are written as objects in the caller's order.
///
/// ```swift
/// let request = try JSONEncoding.default.encode(URLRequest(url: url, method: .post), with: ["name": "Arthur"])
/// ```
public struct JSONEncoding: ParameterEncoding {
    /// Writing options with `JSONSerialization`'s meaning: `.prettyPrinted`,
    /// `.withoutEscapingSlashes` and `.fragmentsAllowed` are honoured; keys are always sorted.
    public let options: JSONSerialization.WritingOptions

    /// Creates a JSON encoding.
    ///
    /// - Parameter options: Writing options, such as `.prettyPrinted`, `.withoutEscapingSlashes`
    ///   or `.fragmentsAllowed`. Empty by default.
    public init(options: JSONSerialization.WritingOptions = []) {
        self.options = options
    }

    /// Compact JSON.
    public static var `default`: JSONEncoding { JSONEncoding() }
    /// Indented JSON.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: .prettyPrinted) }
    /// Compact JSON with sorted keys (which every encoding here writes anyway).
    public static var sortedKeys: JSONEncoding { JSONEncoding(options: .sortedKeys) }

    /// Returns the request with the parameters as its JSON body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - parameters: The parameters; `nil` leaves the request unchanged, `[:]` writes `{}`.
    /// - Returns: The encoded request.
    /// - Throws: ``ParameterEncodingError`` naming the key path of a value JSON cannot hold
    ///   (NaN, infinity, a non-string key, an unsupported type), or the error thrown while
    ///   building the request.
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        guard let parameters else { return try urlRequest.asURLRequest() }
        return try encode(urlRequest, withJSONObject: parameters)
    }

    /// Returns the request with any JSON value, such as a top-level array, as its body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - jsonObject: An array or dictionary (or, with `.fragmentsAllowed`, a scalar); `nil`
    ///     leaves the request unchanged.
    /// - Returns: The encoded request.
    /// - Throws: As ``encode(_:with:)``.
    public func encode(_ urlRequest: any URLRequestConvertible, withJSONObject jsonObject: (any Sendable)?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let jsonObject else { return request }
        request.setBody(try data(for: jsonObject), defaultContentType: "application/json")
        return request
    }

    /// Writes the parameters into the target's body as JSON, with `Content-Type:
    /// application/json` unless it has one.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` leaves the target as it is.
    ///   - target: The request to write into.
    /// - Throws: ``ParameterEncodingError`` naming the value JSON cannot hold.
    public func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        guard let parameters else { return }
        target.setBody(try data(for: parameters), defaultContentType: "application/json")
    }

    /// Returns the JSON text of a value, without any request.
    ///
    /// - Parameter jsonObject: An array or dictionary (or, with `.fragmentsAllowed`, a scalar).
    /// - Returns: UTF-8 JSON.
    /// - Throws: As ``encode(_:with:)``.
    public func data(for jsonObject: any Sendable) throws -> Data {
        var writer = JSONWriter(options: options)
        try writer.write(jsonObject, fragmentsAllowed: options.contains(.fragmentsAllowed))
        return writer.takeData()
    }
}
