import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ParameterEncoder

/// Puts an `Encodable` value into a request: the `Encodable` counterpart of ``ParameterEncoding``.
///
/// ```swift
/// struct Login: Encodable { let user: String; let password: String }
/// let request = try JSONParameterEncoder.default.encode(Login(user: "arthur", password: "42"),
///                                                       into: URLRequest(url: url, method: .post))
/// ```
public protocol ParameterEncoder: Sendable {
    /// Returns the request with `parameters` encoded into it.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode; `nil` leaves the request unchanged.
    ///   - request: The request to start from.
    /// - Returns: The encoded request.
    /// - Throws: The encoder's error (an `EncodingError` naming the coding path, or
    ///   ``ParameterEncodingError``), or the error thrown while building the request.
    func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: any URLRequestConvertible) throws -> URLRequest

    /// Writes `parameters` into `target`: a `URLRequest`, or a request value of another library
    /// (the Requests module's `OutgoingRequest`) that the built-in encoders write into directly,
    /// without building a `URLRequest` on the way.
    ///
    /// The default goes through ``encode(_:into:)->_`` and
    /// ``EncodingTarget/replace(with:)``, so an encoder that knows only that method works unchanged.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode; `nil` leaves the target unchanged.
    ///   - target: The request to write into.
    /// - Throws: What the encoder throws, or the error of a request the target cannot take.
    func encode<Parameters: Encodable, Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws
}

extension ParameterEncoder {
    /// Writes `parameters` into `target` through a `URLRequest`: what an encoder that knows only
    /// ``encode(_:into:)->_`` does.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode; `nil` leaves the target unchanged.
    ///   - target: The request to write into.
    /// - Throws: What the encoder throws, or what ``EncodingTarget/replace(with:)`` throws.
    public func encode<Parameters: Encodable, Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        guard let parameters else { return }
        let encoded = try encode(parameters, into: target)
        try target.replace(with: encoded)
    }
}

// MARK: - ParameterEncoder presets

extension ParameterEncoder where Self == JSONParameterEncoder {
    /// A ``JSONParameterEncoder`` with sorted keys, so that `encoder: .json` reads as in Alamofire.
    public static var json: JSONParameterEncoder { JSONParameterEncoder() }

    /// A ``JSONParameterEncoder`` that writes with `encoder`.
    ///
    /// - Parameter encoder: The encoder; by default one with `.sortedKeys` (Alamofire's default
    ///   is a plain `JSONEncoder()`, whose key order changes from run to run).
    /// - Returns: The parameter encoder.
    public static func json(encoder: JSONEncoder = JSONBody.defaultEncoder) -> JSONParameterEncoder {
        JSONParameterEncoder(encoder: encoder)
    }
}

extension ParameterEncoder where Self == URLEncodedFormParameterEncoder {
    /// A ``URLEncodedFormParameterEncoder`` with default options and a method-dependent
    /// destination, so that `encoder: .urlEncodedForm` reads as in Alamofire.
    public static var urlEncodedForm: URLEncodedFormParameterEncoder { URLEncodedFormParameterEncoder() }

    /// A ``URLEncodedFormParameterEncoder`` with the given form encoder and destination.
    ///
    /// - Parameters:
    ///   - encoder: The form encoder; default options unless given.
    ///   - destination: Where the form goes; `.methodDependent` by default.
    /// - Returns: The parameter encoder.
    public static func urlEncodedForm(
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        destination: URLEncoding.Destination = .methodDependent
    ) -> URLEncodedFormParameterEncoder {
        URLEncodedFormParameterEncoder(encoder: encoder, destination: destination)
    }
}

// MARK: - JSONParameterEncoder

/// Encodes an `Encodable` value as a JSON body with a `JSONEncoder`, with
/// `Content-Type: application/json` unless the request has one.
///
/// Every preset sorts keys, so the same value gives the same bytes in every run. With
/// `.sortedKeys` (every preset has it) the body is written by the package's own `Encodable`
/// writer, several times faster than `JSONEncoder` and byte for byte what it writes, with any
/// date, data, key and non-conforming-float strategy; an encoder without `.sortedKeys` is used
/// as it is.
public struct JSONParameterEncoder: ParameterEncoder {
    /// The encoder that writes the JSON.
    public let encoder: JSONEncoder

    /// Creates a JSON parameter encoder.
    ///
    /// - Parameter encoder: The encoder; by default one with `.sortedKeys`.
    public init(encoder: JSONEncoder = JSONBody.defaultEncoder) {
        self.encoder = encoder
    }

    /// Compact JSON with sorted keys.
    public static var `default`: JSONParameterEncoder { JSONParameterEncoder() }

    /// Indented JSON with sorted keys.
    public static var prettyPrinted: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return JSONParameterEncoder(encoder: encoder)
    }

    /// Compact JSON with sorted keys; the same as ``default``, named for Alamofire users.
    public static var sortedKeys: JSONParameterEncoder { JSONParameterEncoder() }

    /// Returns the request with `parameters` as its JSON body.
    ///
    /// - Parameters:
    ///   - parameters: The value; `nil` leaves the request unchanged.
    ///   - request: The request to start from.
    /// - Returns: The encoded request.
    /// - Throws: The `EncodingError` of the encoder (a NaN, say, with its coding path), or the
    ///   error thrown while building the request.
    public func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: any URLRequestConvertible) throws -> URLRequest {
        var request = try request.asURLRequest()
        guard let parameters else { return request }
        request.setBody(try EncodableJSON.data(parameters, encoder: encoder), defaultContentType: "application/json")
        return request
    }

    /// Writes `parameters` as the target's JSON body, with `Content-Type: application/json`
    /// unless the target has one.
    ///
    /// - Parameters:
    ///   - parameters: The value; `nil` leaves the target unchanged.
    ///   - target: The request to write into.
    /// - Throws: The `EncodingError` of the encoder (a NaN, say, with its coding path).
    public func encode<Parameters: Encodable, Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        guard let parameters else { return }
        target.setBody(try EncodableJSON.data(parameters, encoder: encoder), defaultContentType: "application/json")
    }
}

// MARK: - URLEncodedFormParameterEncoder

/// Encodes an `Encodable` value with a ``URLEncodedFormEncoder`` into the query string or a
/// form body, as ``URLEncoding`` does for `Parameters`.
public struct URLEncodedFormParameterEncoder: ParameterEncoder {
    /// Where the form goes: ``URLEncoding/Destination``, under Alamofire's name.
    public typealias Destination = URLEncoding.Destination

    /// The form encoder and its options.
    public let encoder: URLEncodedFormEncoder
    /// Where the form goes.
    public let destination: URLEncoding.Destination

    /// Creates a form parameter encoder.
    ///
    /// - Parameters:
    ///   - encoder: The form encoder; default options unless given.
    ///   - destination: Where the form goes: `.methodDependent` (query for `GET`, `HEAD` and
    ///     `DELETE`, body otherwise) by default.
    public init(encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: URLEncoding.Destination = .methodDependent) {
        self.encoder = encoder
        self.destination = destination
    }

    /// Default options, method-dependent destination.
    public static var `default`: URLEncodedFormParameterEncoder { URLEncodedFormParameterEncoder() }

    /// Returns the request with `parameters` in its query string or body.
    ///
    /// A query is appended to any query the URL already has; a body gets
    /// `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless one is set. A value
    /// that writes no pairs leaves the request unchanged.
    ///
    /// - Parameters:
    ///   - parameters: The value, which must encode a keyed container; `nil` leaves the request unchanged.
    ///   - request: The request to start from.
    /// - Returns: The encoded request.
    /// - Throws: What ``URLEncodedFormEncoder/encode(_:)`` throws, ``ParameterEncodingError`` for a
    ///   request without a URL, or the error thrown while building the request.
    public func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: any URLRequestConvertible) throws -> URLRequest {
        let request = try request.asURLRequest()
        guard let parameters else { return request }
        return try encoder.urlEncoding(destination: destination).apply(encoder.queryBuffer(parameters), to: request)
    }

    /// Writes `parameters` into the target's query string or form body, as
    /// ``encode(_:into:)->_`` does into a `URLRequest`.
    ///
    /// - Parameters:
    ///   - parameters: The value, which must encode a keyed container; `nil` leaves the target unchanged.
    ///   - target: The request to write into.
    /// - Throws: What ``URLEncodedFormEncoder/encode(_:)`` throws, or ``ParameterEncodingError``
    ///   when the query does not form a URL.
    public func encode<Parameters: Encodable, Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        guard let parameters else { return }
        try encoder.urlEncoding(destination: destination).apply(encoder.queryBuffer(parameters), to: &target)
    }
}
