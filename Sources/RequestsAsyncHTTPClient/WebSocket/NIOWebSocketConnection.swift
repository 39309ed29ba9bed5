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
    }

    let options: WebSocketOptions
    private let channel: any Channel
    private let inbox: MessageInbox
    /// Invariant: `writer` is set once, before any waiter is resumed; `closure` is set once,
    /// when the handler ended, and every end waiter is then resumed (after unlocking).
    private let state = Guarded(State())

    private let frameErrors: FrameErrors

    init(channel: any Channel, options: WebSocketOptions, frameErrors: FrameErrors) {
        self.channel = channel
        self.frameErrors = frameErrors
        self.options = options
        inbox = MessageInbox(limit: options.bufferedMessages)
    }

    // MARK: Running

    /// Runs the connection until it closes; returns once the handler has its writer, the rest
    /// goes on in a task of its own.
    func start(_ asyncChannel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, extensions: [any WebSocketExtension]) async {
        Task { await self.run(asyncChannel, extensions: extensions) }
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
            autoPing: options.pingInterval.map { .enabled(timePeriod: $0) } ?? .disabled,
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
        end(frame: frame, failure: failure, refused: frameErrors.code)
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
        let (closure, error, waiters) = state.withLock { state -> (WebSocketClosure, WebSocketError?, [CheckedContinuation<Void, Never>]) in
            let closure: WebSocketClosure
            var error: WebSocketError?
            if let frame, failure == nil || state.closedHere {
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
            }
            return (closure, error, state.endWaiters + state.attachWaiters)
        }
        _ = closure
        inbox.finish(error)
        for waiter in waiters { waiter.resume() }
    }

    // MARK: WebSocketConnection

    var closure: WebSocketClosure? { state.withLock { $0.closure } }

    func receive() async throws -> Requests.WebSocketMessage? {
        try await inbox.pop()
    }

    func send(_ message: Requests.WebSocketMessage) async throws {
        let (writer, closure) = state.withLock { ($0.writer, $0.closure) }
        guard let writer, closure == nil else {
            let ended = closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false)
            throw WebSocketError(ended, detail: "a message was sent on a closed connection")
        }
        // The async writer hands each frame to the event loop and returns before the loop has
        // written it, so a fast sender could queue every message ahead of a slow socket. Each send
        // returns once the loop has taken its frames (a turn of the loop after them), and waits
        // while the channel is above its high-water mark: a peer that does not read holds it.
        await frameErrors.untilWritable()
        do {
            switch message {
            case .text(let text): try await writer.writeTextMessage(text)
            case .binary(let data): try await writer.writeBinaryMessage(ByteBuffer(data: data))
            }
            try await channel.eventLoop.submit {}.get()
        } catch let error as CancellationError {
            throw error
        } catch {
            let ended = self.closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false)
            throw WebSocketError(ended, detail: "the message could not be sent (\(error))")
        }
    }

    func ping() async throws {
        guard let writer = state.withLock({ $0.closure == nil ? $0.writer : nil }) else {
            throw WebSocketError(closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false), detail: "a ping on a closed connection")
        }
        do {
            try await writer.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())))
        } catch {
            throw WebSocketError(closure ?? WebSocketClosure(code: .abnormalClosure, byPeer: false), detail: "the ping could not be sent (\(error))")
        }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        let writer = state.withLock { state -> WebSocketOutboundWriter? in
            guard state.closure == nil else { return nil }
            state.closedHere = true
            return state.writer
        }
        guard let writer else { return }
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
