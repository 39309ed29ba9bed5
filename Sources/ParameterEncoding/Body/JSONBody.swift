import Foundation

// MARK: - JSONBody

/// Any `Encodable` value as a JSON body, with `Content-Type: application/json; charset=utf-8`.
///
/// The default encoder sorts keys, so the same value gives the same bytes in every run. An
/// encoder with `.sortedKeys` is served by the package's own `Encodable` writer, which writes
/// `JSONEncoder`'s bytes several times faster; one without is used as it is.
///
/// ```swift
/// try await session.request(url, method: .post, body: JSONBody(Login(user: "arthur", password: "42")))
/// ```
public struct JSONBody: HTTPBody {
    private let value: any Encodable & Sendable
    private let encoder: JSONEncoder

    /// Creates a JSON body.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder; by default a `JSONEncoder` with `.sortedKeys`.
    public init(_ value: some Encodable & Sendable, encoder: JSONEncoder = JSONBody.defaultEncoder) {
        self.value = value
        self.encoder = encoder
    }

    /// A `JSONEncoder` that sorts keys and otherwise uses the defaults.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// `Content-Type: application/json; charset=utf-8`.
    public var additionalHeaders: HTTPHeaders {
        HTTPHeaders([HTTPHeader(name: "Content-Type", value: "application/json; charset=utf-8")])
    }

    /// Returns the value's JSON.
    ///
    /// - Returns: UTF-8 JSON.
    /// - Throws: The `EncodingError` of the encoder, which names the coding path of the value
    ///   it could not encode (a NaN, say).
    public func encode() throws -> Data {
        try EncodableJSON.data(value, encoder: encoder)
    }
}
