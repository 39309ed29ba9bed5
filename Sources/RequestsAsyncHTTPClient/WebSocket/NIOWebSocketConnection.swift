#if WebSocket
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOWebSocket
import Requests
// The framing, close handshake, ping and extensions of swift-websocket, over a connection this
// package upgraded itself (so that the pipeline sees every handshake answer). Pinned to 1.6.
@_spi(WSInternal) import WSCore

/// The logger swift-websocket's handler asks for.
struct SocketContext: WebSocketContext {
    let logger: Logger
}

// MARK: - NIOWebSocketConnection

/// An upgraded connection: swift-websocket's handler runs it in a task of its own, received
/// messages wait in a bounded ``MessageInbox``, and writes go through its outbound writer.
final class NIOWebSocketConnection: WebSocketConnection {
    private struct State {
        var writer: WebSocketOutboundWriter?
        var attachWaiters: [CheckedContinuation<Void, Never>] = []
        /// Set once the handler ended.
        var closure: WebSocketClosure?
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        /// Whether this side sent a close first.
        var closedHere = false
        /// Why this side dropped the connection (a ping without its pong), when it did.
        var dropped: String?
        /// The keep-alive pings, when ``WebSocketOptions/pingInterval`` is set.
        var keepAlive: Task<Void, Never>?
    }

    let options: WebSocketOptions
    private let channel: any Channel
    private let inbox: MessageInbox
    /// Invariant: `writer` is set once, before any waiter is resumed; `closure` is set once,
    /// when the handler ended, and every waiter is then resumed and the keep-alive task
    /// cancelled (after unlocking).
    private let state = Guarded(State())

    private let watch: SocketWatch

    init(channel: any Channel, options: WebSocketOptions, watch: SocketWatch) {
        self.channel = channel
        self.watch = watch
        self.options = options
        inbox = MessageInbox(limit: options.bufferedMessages)
    }

    // MARK: Running

    /// Runs the connection until it closes; returns once the handler has its writer, the rest
    /// goes on in a task of its own.
    func start(_ asyncChannel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, extensions: [any WebSocketExtension]) async {
        Task { await self.run(asyncChannel, extensions: extensions) }
        if let interval = options.pingInterval {
            // A task of its own, not swift-websocket's auto-ping: a missing pong then fails the
            // connection with an error that says so, and pings share one mechanism.
            let timeout = options.pongTimeout ?? interval
            let keepAlive = Task { [weak self] in
                while true {
                    do { try await Task.sleep(for: interval) } catch { return }
                    guard let self, self.closure == nil else { return }
                    do { try await self.ping(timeout: timeout) } catch { return }
                }
            }
            let late = state.withLock { state -> Task<Void, Never>? in
                if state.closure != nil { return keepAlive }
                state.keepAlive = keepAlive
                return nil
            }
            late?.cancel()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.writer != nil || state.closure != nil { return true }
                state.attachWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func run(_ asyncChannel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, extensions: [any WebSocketExtension]) async {
        let configuration = WebSocketHandler.Configuration(
            extensions: extensions,
            autoPing: .disabled,
            closeTimeout: options.closeTimeout,
            validateUTF8: true,
            maxFrameSize: options.frameLimit
        )
        var frame: WebSocketCloseFrame?
        var failure: (any Error)?
        do {
            frame = try await WebSocketHandler.handle(
                type: .client, configuration: configuration, asyncChannel: asyncChannel,
                context: SocketContext(logger: Logger(label: "requests.websocket", factory: { _ in SwiftLogNoOpLogHandler() }))
            ) { inbound, outbound, _ in
                self.attach(outbound)
                var messages = inbound.messages(maxSize: self.options.maximumMessageSize).makeAsyncIterator()
                while let message = try await messages.next() {
                    try await self.inbox.push(Self.message(message))
                }
            }
        } catch {
            failure = error
        }
        end(frame: frame, failure: failure, refused: watch.code)
    }

    private func attach(_ writer: WebSocketOutboundWriter) {
        let waiters = state.withLock { state in
            state.writer = writer
            defer { state.attachWaiters = [] }
            return state.attachWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func end(frame: WebSocketCloseFrame?, failure: (any Error)?, refused: WebSocketCloseCode?) {
        let (closure, error, waiters, keepAlive) = state.withLock {
            state -> (WebSocketClosure, WebSocketError?, [CheckedContinuation<Void, Never>], Task<Void, Never>?) in
            let closure: WebSocketClosure
            var error: WebSocketError?
            if let dropped = state.dropped {
                closure = WebSocketClosure(code: .abnormalClosure, byPeer: false)
                error = WebSocketError(closure, detail: dropped)
            } else if let frame, failure == nil || state.closedHere {
                closure = WebSocketClosure(code: Self.code(frame.closeCode), reason: frame.reason ?? "", byPeer: !state.closedHere)
            } else if let code = refused ?? failure.flatMap(Self.closeCode(of:)) {
                closure = WebSocketClosure(code: code, byPeer: false)
                error = WebSocketError(closure, detail: Self.detail(code, options: options))
            } else {
                closure = WebSocketClosure(code: .abnormalClosure, byPeer: false)
                let cause = failure.map { "\($0)" } ?? "no close frame"
                error = WebSocketError(closure, detail: "the connection ended without a close handshake (\(cause))")
            }
            state.closure = closure
            defer {
                state.endWaiters = []
                state.attachWaiters = []
                state.keepAlive = nil
            }
            return (closure, error, state.endWaiters + state.attachWaiters, state.keepAlive)
        }
        keepAlive?.cancel()
        watch.closed(error ?? WebSocketError(closure, detail: "the connection closed before the pong"))
        inbox.finish(error)
        for waiter in waiters { waiter.resume() }
    }

    // MARK: WebSocketConnection

    var closure: WebSocketClosure? { state.withLock { $0.closure } }

    func receive() async throws -> Requests.WebSocketMessage? {
        try await inbox.pop()
    }

    /// The writer while the connection is open and this side has not closed it.
    private func openWriter(_ what: String) throws -> WebSocketOutboundWriter {
        let (writer, closure, closedHere) = state.withLock { ($0.writer, $0.closure, $0.closedHere) }
        if let writer, closure == nil, !closedHere { return writer }
        let ended = closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false)
        throw WebSocketError(ended, detail: closedHere && closure == nil ? "\(what) after close()" : "\(what) on a closed connection")
    }

    private var endedOrDropped: WebSocketClosure { closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false) }

    func send(_ message: Requests.WebSocketMessage) async throws {
        let writer = try openWriter("a message was sent")
        // The async writer hands each frame to the event loop and returns before the loop has
        // written it, so a fast sender could queue every message ahead of a slow socket. Each send
        // returns once the loop has taken its frames (a turn of the loop after them), and waits
        // while the channel is above its high-water mark: a peer that does not read holds it.
        try await watch.untilWritable()
        do {
            switch message {
            case .text(let text): try await writer.writeTextMessage(text)
            case .binary(let data): try await writer.writeBinaryMessage(ByteBuffer(data: data))
            }
            try await channel.eventLoop.submit {}.get()
        } catch let error as CancellationError {
            throw error
        } catch {
            throw WebSocketError(endedOrDropped, detail: "the message could not be sent (\(error))")
        }
    }

    func ping(timeout: Duration) async throws {
        let writer = try openWriter("a ping")
        let (id, payload) = watch.expectPong()
        do {
            try await writer.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(bytes: payload))))
        } catch {
            watch.forget(id)
            throw WebSocketError(endedOrDropped, detail: "the ping could not be sent (\(error))")
        }
        let closedError = WebSocketError(WebSocketClosure(code: .abnormalClosure, byPeer: false), detail: "the connection closed before the pong")
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.watch.waitForPong(id, closedError: closedError)
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        if answered { return }
        // The peer is gone or stuck: a close handshake would wait for it too. Drop the connection.
        let detail = "no pong came within \(timeout) of a ping"
        state.withLock { if $0.closure == nil, $0.dropped == nil { $0.dropped = detail } }
        channel.close(promise: nil)
        await ended()
        throw WebSocketError(endedOrDropped, detail: detail)
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        let writer = state.withLock { state -> WebSocketOutboundWriter? in
            guard state.closure == nil, !state.closedHere else { return nil }
            state.closedHere = true
            return state.writer
        }
        guard let writer else {
            // A second close waits for the first one's end.
            await ended()
            return
        }
        inbox.drain()
        // The peer's answering close ends the handler; past the timeout (which also bounds the
        // close frame's own write, behind a peer that does not read), the connection is dropped.
        let timer = Task { [channel, options] in
            try await Task.sleep(for: options.closeTimeout)
            try await channel.close()
        }
        try? await writer.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: reason.isEmpty ? nil : reason)
        await ended()
        timer.cancel()
    }

    /// Waits until the handler ended.
    private func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.closure != nil { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: Conversions

    private static func message(_ message: WSCore.WebSocketMessage) -> Requests.WebSocketMessage {
        switch message {
        case .text(let text): .text(text)
        case .binary(let buffer): .binary(Data(buffer: buffer))
        }
    }

    private static func code(_ code: WebSocketErrorCode) -> WebSocketCloseCode {
        WebSocketCloseCode(rawValue: UInt16(webSocketErrorCode: code))
    }

    /// The close code of swift-websocket's own error (a `close(code)` it throws when a limit or
    /// a rule was broken), read by reflection: the type is not public.
    private static func closeCode(of error: any Error) -> WebSocketCloseCode? {
        if let error = error as? NIOWebSocketError {
            // NIO's frame decoder: a frame past the limit, or a malformed control frame.
            return error == .invalidFrameLength ? .messageTooBig : .protocolError
        }
        for child in Mirror(reflecting: error).children {
            if let code = child.value as? WebSocketErrorCode { return Self.code(code) }
        }
        return nil
    }

    private static func detail(_ code: WebSocketCloseCode, options: WebSocketOptions) -> String {
        switch code {
        case .messageTooBig: "a message or frame passed the limit (\(options.maximumMessageSize) bytes a message, \(options.maximumFrameSize) a frame)"
        case .invalidFramePayloadData: "a text message was not UTF-8"
        case .protocolError: "the peer broke the protocol"
        default: "the connection was closed with \(code)"
        }
    }
}
#endif
