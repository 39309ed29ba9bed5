import Foundation
import Requests

// MARK: - StubWebSocketPeer

/// The server side of a WebSocket that ``StubTransport`` opens: a route answered with
/// ``StubResponse/webSocket(protocol:headers:_:)`` runs its script with one, no server involved.
///
/// ```swift
/// stub.on(.get, "/chat", respond: .webSocket { peer in
///     while let message = try await peer.receive() {
///         try await peer.send(message)   // echo
///     }
/// })
/// let socket = try await Session(transport: stub).webSocket("wss://chat.example.com/chat")
/// ```
///
/// When the script returns, the peer closes with 1000 (unless it closed already); when it throws,
/// with 1011.
public final class StubWebSocketPeer: Sendable {
    /// The handshake request as the engine would have sent it.
    public let request: RecordedRequest
    fileprivate let toClient: MessageInbox
    fileprivate let toPeer: MessageInbox
    fileprivate let state = Guarded<WebSocketClosure?>(nil)

    fileprivate init(request: RecordedRequest, buffered: Int) {
        self.request = request
        toClient = MessageInbox(limit: buffered)
        toPeer = MessageInbox(limit: buffered)
    }

    /// The client's next message, or `nil` once the connection closed.
    ///
    /// - Returns: A message, or `nil`.
    /// - Throws: `CancellationError`.
    public func receive() async throws -> WebSocketMessage? {
        try await toPeer.pop()
    }

    /// Sends a message to the client, waiting while the client's buffer is full.
    ///
    /// - Parameter message: The message.
    /// - Throws: ``/Requests/WebSocketError`` when the connection is closed.
    public func send(_ message: WebSocketMessage) async throws {
        if let closure = closure { throw WebSocketError(closure, detail: "the stub peer sent on a closed connection") }
        do {
            try await toClient.push(message)
        } catch {
            throw WebSocketError(closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false), detail: "the connection closed")
        }
    }

    /// Closes the connection from the server's side: the client's messages end, and its
    /// ``/Requests/WebSocket/closure`` is `code` and `reason`, by the peer.
    ///
    /// - Parameters:
    ///   - code: The close code; 1000 by default.
    ///   - reason: The reason.
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        end(WebSocketClosure(code: code, reason: reason, byPeer: true), error: nil)
    }

    /// Drops the connection without a close frame: the client's messages fail with 1006.
    public func drop() {
        let closure = WebSocketClosure(code: .abnormalClosure, byPeer: false)
        end(closure, error: WebSocketError(closure, detail: "the stub peer dropped the connection"))
    }

    /// How the connection ended, or `nil` while it is open: the client's close is `byPeer == false`.
    public var closure: WebSocketClosure? { state.withLock { $0 } }

    fileprivate func end(_ closure: WebSocketClosure, error: WebSocketError?) {
        let first = state.withLock { held -> Bool in
            guard held == nil else { return false }
            held = closure
            return true
        }
        guard first else { return }
        toClient.finish(error)
        toPeer.finish(nil)
    }
}

// MARK: - StubWebSocketConnection

/// The client side of a stub WebSocket: what the ``/Requests/WebSocket`` reads and writes.
final class StubWebSocketConnection: WebSocketConnection {
    let peer: StubWebSocketPeer

    init(peer: StubWebSocketPeer) { self.peer = peer }

    func receive() async throws -> WebSocketMessage? {
        try await peer.toClient.pop()
    }

    func send(_ message: WebSocketMessage) async throws {
        if let closure = peer.closure { throw WebSocketError(closure, detail: "a message was sent on a closed connection") }
        do {
            try await peer.toPeer.push(message)
        } catch {
            throw WebSocketError(peer.closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false), detail: "the connection closed")
        }
    }

    /// The scripted peer answers every ping at once, as a server's WebSocket layer does.
    func ping(timeout: Duration) async throws {
        if let closure = peer.closure { throw WebSocketError(closure, detail: "a ping on a closed connection") }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        // As over a real engine: what the peer sends after this side's close is dropped.
        peer.toClient.drain()
        peer.end(WebSocketClosure(code: code, reason: reason, byPeer: false), error: nil)
    }

    var closure: WebSocketClosure? { peer.closure }
}

extension StubWebSocketPeer {
    /// Starts the script on a connection for `request`, and gives the client's side.
    static func open(
        _ request: RecordedRequest, options: WebSocketOptions, script: @escaping @Sendable (StubWebSocketPeer) async throws -> Void
    ) -> StubWebSocketConnection {
        let peer = StubWebSocketPeer(request: request, buffered: options.bufferedMessages)
        Task {
            do {
                try await script(peer)
                peer.close(.normalClosure)
            } catch {
                peer.close(.internalServerError, reason: "the stub's script threw: \(error)")
            }
        }
        return StubWebSocketConnection(peer: peer)
    }
}
