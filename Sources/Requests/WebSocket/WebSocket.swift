import Foundation

// MARK: - WebSocket

/// An open WebSocket connection from ``Session/webSocket(_:protocols:headers:timeout:interceptors:redirectPolicy:options:configuration:)``:
/// messages in as an `AsyncSequence`, messages out with `send`, and the close handshake.
///
/// ```swift
/// let socket = try await session.webSocket("wss://chat.example.com/rooms/7")
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     print(message)
/// }
/// print(socket.closure ?? "open")
/// ```
///
/// Reading is back-pressured: when the reader falls behind by ``WebSocketOptions/bufferedMessages``,
/// the connection stops reading from the socket. A reading task that is cancelled closes the
/// connection with 1001 (going away); a socket dropped while still open does the same.
public final class WebSocket: Sendable {
    /// The handshake's answer: `101 Switching Protocols`, its fields and timings.
    public let response: Response
    /// The subprotocol the server chose (`Sec-WebSocket-Protocol`), or `nil`.
    public let subprotocol: String?
    /// The extensions the server agreed to (`Sec-WebSocket-Extensions`), such as
    /// `permessage-deflate; server_no_context_takeover`.
    public let extensions: [String]
    fileprivate let connection: any WebSocketConnection

    init(response: Response, connection: any WebSocketConnection) {
        self.response = response
        self.connection = connection
        subprotocol = response.headers["Sec-WebSocket-Protocol"]
        extensions = response.headers.values(for: "Sec-WebSocket-Extensions")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    deinit {
        if connection.closure == nil {
            Task { [connection] in await connection.close(code: .goingAway, reason: "") }
        }
    }

    /// The messages as they arrive; the sequence ends after the close handshake and throws
    /// ``WebSocketError`` when the connection fails. One reader at a time.
    public var messages: Messages { Messages(socket: self) }

    /// How the connection ended, or `nil` while it is open.
    public var closure: WebSocketClosure? { connection.closure }

    /// Sends a message, waiting while the peer does not read.
    ///
    /// - Parameter message: The message.
    /// - Throws: ``WebSocketError`` when the connection is closed or failed.
    public func send(_ message: WebSocketMessage) async throws {
        try await connection.send(message)
    }

    /// Sends a text message.
    ///
    /// - Parameter text: The text.
    /// - Throws: ``WebSocketError`` when the connection is closed or failed.
    public func send(_ text: String) async throws {
        try await connection.send(.text(text))
    }

    /// Sends a binary message.
    ///
    /// - Parameter data: The bytes.
    /// - Throws: ``WebSocketError`` when the connection is closed or failed.
    public func send(_ data: Data) async throws {
        try await connection.send(.binary(data))
    }

    /// Sends a value as a JSON text message.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - encoder: The encoder; sorted keys by default.
    /// - Throws: The encoder's error, or ``WebSocketError``.
    public func send<Value: Encodable>(json value: Value, encoder: JSONEncoder = WebSocketMessage.encoder()) async throws {
        try await connection.send(.json(value, encoder: encoder))
    }

    /// Sends a ping and waits for its pong, at most `timeout`. A peer that sends no pong by then
    /// is taken for gone: the connection is dropped (1006) and the error says so.
    ///
    /// - Parameter timeout: How long to wait for the pong; 10 seconds by default.
    /// - Throws: ``WebSocketError`` when the connection is closed or failed, or no pong came.
    public func ping(timeout: Duration = .seconds(10)) async throws {
        try await connection.ping(timeout: timeout)
    }

    /// The longest close reason a close frame holds, in bytes of UTF-8 (RFC 6455 §5.5).
    public static let maximumCloseReasonSize = 123

    /// Closes the connection: sends a close frame and waits for the peer's (at most
    /// ``WebSocketOptions/closeTimeout``). Messages that arrive meanwhile are dropped. A second
    /// close waits for the first one's end.
    ///
    /// - Parameters:
    ///   - code: The code; 1000 (normal closure) by default. It must be one an endpoint may
    ///     send (``WebSocketCloseCode/isSendable``).
    ///   - reason: The reason; at most 123 bytes of UTF-8.
    /// - Returns: How the connection ended.
    /// - Throws: ``WebSocketError`` when the code may not be sent or the reason is too long;
    ///   nothing is sent then, and the connection stays open.
    @discardableResult
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws -> WebSocketClosure {
        try Self.validate(code, reason: reason)
        await connection.close(code: code, reason: reason)
        return connection.closure ?? WebSocketClosure(code: code, reason: reason, byPeer: false)
    }

    /// Throws unless `code` and `reason` fit a close frame.
    static func validate(_ code: WebSocketCloseCode, reason: String) throws {
        let open = WebSocketClosure(code: code, reason: reason, byPeer: false)
        guard code.isSendable else {
            throw WebSocketError(open, detail: "the close code \(code) may not be sent (RFC 6455 §7.4: 1000–1003, 1007–1014, 3000–4999)")
        }
        let size = reason.utf8.count
        guard size <= maximumCloseReasonSize else {
            throw WebSocketError(open, detail: "the close reason is \(size) bytes of UTF-8; a close frame holds at most \(maximumCloseReasonSize)")
        }
    }

    // MARK: Messages

    /// The messages of a ``WebSocket``, as they arrive.
    public struct Messages: AsyncSequence, Sendable {
        /// Each element is one whole message.
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        /// An iterator over the messages.
        ///
        /// - Returns: The iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

        /// Reads the next message from the connection.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message, or `nil` after the close.
            ///
            /// - Returns: A message, or `nil`.
            /// - Throws: ``WebSocketError`` when the connection failed; `CancellationError`
            ///   when the reading task is cancelled (the connection then closes with 1001).
            public mutating func next() async throws -> WebSocketMessage? {
                let connection = socket.connection
                return try await withTaskCancellationHandler {
                    try await connection.receive()
                } onCancel: {
                    Task { await connection.close(code: .goingAway, reason: "") }
                }
            }
        }
    }
}
