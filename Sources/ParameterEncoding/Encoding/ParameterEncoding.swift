import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Parameters

/// Parameters to encode: string keys and any sendable values, nested as deeply as needed.
public typealias Parameters = [String: any Sendable]

// MARK: - ParameterEncoding

/// A strategy that writes parameters into a request: its query string, or its body.
///
/// ```swift
/// let request = try URLEncoding.queryString.encode(URLRequest(url: url), with: ["page": 2])
/// ```
public protocol ParameterEncoding: Sendable {
    /// Returns a copy of the request with the parameters written into it.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - parameters: The parameters; `nil` leaves the request as it is.
    /// - Returns: The encoded request.
    /// - Throws: ``ParameterEncodingError`` naming the parameter or part of the request at fault,
    ///   or the error thrown while building the request.
    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest

    /// Writes the parameters into a request in place: the query or the body, and its
    /// `Content-Type`.
    ///
    /// The default goes through ``encode(_:with:)`` and a `URLRequest`; the built-in encodings
    /// write into the target directly.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` leaves the target as it is.
    ///   - target: The request to write into.
    /// - Throws: ``ParameterEncodingError`` naming the parameter or part of the request at fault.
    func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws
}
