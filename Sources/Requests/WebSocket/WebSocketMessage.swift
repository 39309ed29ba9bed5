import Foundation

// MARK: - WebSocketMessage

/// One WebSocket message: text (UTF-8, checked on arrival) or binary.
///
/// ```swift
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     if case .text(let text) = message { print(text) }
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)

    /// A text message holding `value` as JSON.
    ///
    /// - Parameters:
    ///   - value: The value to send.
    ///   - encoder: The encoder; one with sorted keys by default, so the same value gives the
    ///     same bytes in every run.
    /// - Returns: The message.
    /// - Throws: The encoder's error, naming what could not be encoded.
    public static func json<Value: Encodable>(_ value: Value, encoder: JSONEncoder = WebSocketMessage.encoder()) throws -> WebSocketMessage {
        .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The message's bytes: a text's UTF-8, or the binary data.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// The message's JSON, text or binary, decoded.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; a plain `JSONDecoder` by default.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's `DecodingError`, naming the path that did not fit.
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(type, from: data)
    }

    /// A `JSONEncoder` with sorted keys: the default of ``json(_:encoder:)``.
    ///
    /// - Returns: A new encoder.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
