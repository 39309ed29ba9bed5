import Foundation

// MARK: - WebSocketConnection

/// What an engine gives for an upgraded connection: the frames' side of a ``WebSocket``.
///
/// An engine that supports WebSockets reads ``RequestOptions/webSocketUpgrade`` in
/// ``Transport/send(_:)``, sends the handshake with the request's fields, and on `101
/// Switching Protocols` hands its connection to ``WebSocketUpgrade/deliver(_:)`` before
/// returning the head; any other answer it returns as a plain response, so the pipeline can
/// refresh a token, retry or follow a redirect.
public protocol WebSocketConnection: AnyObject, Sendable {
    /// The next message, or `nil` once the connection closed with a close frame.
    ///
    /// One reader at a time.
    /// - Returns: A message, or `nil` at the close.
    /// - Throws: ``WebSocketError`` when the connection failed; `CancellationError`.
    func receive() async throws -> WebSocketMessage?

    /// Sends a message, waiting while the peer does not read.
    ///
    /// - Parameter message: The message.
    /// - Throws: ``WebSocketError`` when the connection is closed or failed.
    func send(_ message: WebSocketMessage) async throws

    /// Sends a ping and waits for its pong, at most `timeout`; when none came by then, drops the
    /// connection (a peer that does not answer would not answer a close either) and throws.
    ///
    /// - Parameter timeout: How long to wait for the pong.
    /// - Throws: ``WebSocketError`` when the connection is closed or failed, or no pong came
    ///   (1006, saying so); `CancellationError`.
    func ping(timeout: Duration) async throws

    /// Starts the close handshake, if not begun, and waits until the connection is closed (the
    /// peer's answer, or the close timeout).
    ///
    /// - Parameters:
    ///   - code: The close code to send.
    ///   - reason: The reason to send (at most 123 bytes of UTF-8).
    func close(code: WebSocketCloseCode, reason: String) async

    /// How the connection ended; `nil` while it is open.
    var closure: WebSocketClosure? { get }
}

// MARK: - WebSocketUpgrade

/// A call's request for a WebSocket: what the handshake offers, and where the engine leaves the
/// connection once the server switched protocols.
public final class WebSocketUpgrade: Sendable {
    /// The subprotocols offered, in order of preference (`Sec-WebSocket-Protocol`).
    public let protocols: [String]
    /// The connection's limits, timers and compression.
    public let options: WebSocketOptions
    /// The connection the engine delivered, until the call takes it. Invariant: at most one;
    /// a second delivery replaces nothing (the later one is closed, outside the lock).
    private let slot = Guarded<(any WebSocketConnection)?>(nil)

    /// Creates an upgrade request.
    ///
    /// - Parameters:
    ///   - protocols: The subprotocols to offer.
    ///   - options: The connection's settings.
    public init(protocols: [String], options: WebSocketOptions) {
        self.protocols = protocols
        self.options = options
    }

    /// Hands over the upgraded connection; the engine calls it before it returns the `101` head.
    ///
    /// - Parameter connection: The connection.
    public func deliver(_ connection: any WebSocketConnection) {
        let refused = slot.withLock { held -> (any WebSocketConnection)? in
            guard held == nil else { return connection }
            held = connection
            return nil
        }
        if let refused {
            Task { await refused.close(code: .internalServerError, reason: "a second connection for one call") }
        }
    }

    /// The delivered connection, taken once.
    func take() -> (any WebSocketConnection)? {
        slot.withLock { held in
            defer { held = nil }
            return held
        }
    }
}

enum WebSocketUpgradeKey: RequestOptionKey {
    static let defaultValue: WebSocketUpgrade? = nil
}

extension RequestOptions {
    /// Set by ``Session/webSocket(_:protocols:headers:timeout:interceptors:redirectPolicy:options:configuration:)`` on
    /// its handshake request: the engine is to upgrade the connection. `nil` for every other call.
    public var webSocketUpgrade: WebSocketUpgrade? {
        get { self[WebSocketUpgradeKey.self] }
        set { self[WebSocketUpgradeKey.self] = newValue }
    }
}
