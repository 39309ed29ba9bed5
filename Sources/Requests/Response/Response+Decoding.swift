import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ResponseDecoder

/// A decoder that turns a response body into a `Decodable` value. `JSONDecoder` and
/// `PropertyListDecoder` conform; conform your own to decode other formats.
public protocol ResponseDecoder {
    /// Decodes a value of the given type from data.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The body.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's error, usually a `DecodingError`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: ResponseDecoder {}
extension PropertyListDecoder: ResponseDecoder {}

// MARK: - Decoding

extension Response {
    /// Decodes the body as the given type.
    ///
    /// - Parameters:
    ///   - type: The type to decode; inferred when the context gives it.
    ///   - decoder: The decoder; a default `JSONDecoder` unless given.
    /// - Returns: The decoded value.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed``, naming the type and the
    ///   coding path, keeping this response and the decoder's error as ``RequestError/underlyingError``.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: some ResponseDecoder = JSONDecoder()) throws -> T {
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw RequestError(
                .decodingFailed, response: self,
                detail: "could not decode \(T.self)" + Self.explain(error),
                underlyingError: error
            )
        }
    }

    /// A short explanation of a `DecodingError`: where it happened and what the decoder said.
    static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "" }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return ""
        }
        let path = context.codingPath.map { key in
            key.intValue.map { "[\($0)]" } ?? "." + key.stringValue
        }.joined()
        let place = path.isEmpty ? "" : " at " + (path.hasPrefix(".") ? String(path.dropFirst()) : path)
        return place + ": " + context.debugDescription
    }
}
