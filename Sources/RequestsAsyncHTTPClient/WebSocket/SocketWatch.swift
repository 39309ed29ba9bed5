#if WebSocket
import NIOCore
import NIOWebSocket
import Requests

// MARK: - SocketWatch

/// What the channel handler right behind NIO's frame decoder sees of an upgraded connection:
/// the close code of the first frame the decoder refused, whether the channel takes more
/// writes, and the pongs that answer this side's pings.
final class SocketWatch: Sendable {
    private struct Ping {
        let id: UInt64
        let payload: [UInt8]
        var answered = false
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var refused: WebSocketCloseCode?
        var writable = true
        var closed = false
        var writeWaiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Pings sent and not yet answered and seen, oldest first: the payload, whether a pong
        /// answered it, and the task waiting for it (once it waits).
        var pings: [Ping] = []
        var nextID: UInt64 = 0

        mutating func id() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }

    /// Invariant: `writeWaiters` is empty while `writable` or `closed`; `pings` is empty once
    /// `closed`, and holds no answered ping with a waiter. Continuations are resumed after unlocking.
    private let state = Guarded(State())

    func record(_ code: WebSocketCloseCode) {
        state.withLock { if $0.refused == nil { $0.refused = code } }
    }

    var code: WebSocketCloseCode? { state.withLock { $0.refused } }

    /// The channel's writability changed.
    func writability(_ writable: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.writable = writable
            guard writable else { return [] }
            defer { state.writeWaiters = [] }
            return state.writeWaiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The channel closed: every waiter goes on (writers to a write that fails; pings with
    /// `error`).
    func closed(_ error: any Error) {
        let (writers, pings) = state.withLock { state in
            state.closed = true
            defer {
                state.writeWaiters = []
                state.pings = []
            }
            return (state.writeWaiters.map(\.continuation), state.pings.compactMap(\.waiter))
        }
        for writer in writers { writer.resume() }
        for ping in pings { ping.resume(throwing: error) }
    }

    /// A pong arrived: the ping with its payload is answered, and so is every older one (a
    /// peer may answer only the latest of several pings, RFC 6455 §5.5.3). An unsolicited pong
    /// answers nothing.
    func pong(_ payload: [UInt8]) {
        let answered = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard let index = state.pings.firstIndex(where: { $0.payload == payload }) else { return [] }
            var answered: [CheckedContinuation<Void, any Error>] = []
            for position in 0...index {
                state.pings[position].answered = true
                if let waiter = state.pings[position].waiter { answered.append(waiter) }
            }
            state.pings.removeAll { $0.answered && $0.waiter != nil }
            return answered
        }
        for ping in answered { ping.resume() }
    }

    /// Waits while the channel's buffer is above its high-water mark: the peer does not read.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    func untilWritable() async throws {
        let id = state.withLock { $0.id() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, any Error>? in
                    // `onCancel` runs after the flag is set and takes this lock: read under it,
                    // a cancellation is never missed.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.writable || state.closed { return .success(()) }
                    state.writeWaiters.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.writeWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.writeWaiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Expects a pong for a ping about to be sent: its payload, unique on this connection.
    ///
    /// - Returns: The ping's id and payload.
    func expectPong() -> (id: UInt64, payload: [UInt8]) {
        state.withLock { state in
            let id = state.id()
            let payload = withUnsafeBytes(of: id.bigEndian) { Array($0) }
            if !state.closed { state.pings.append(Ping(id: id, payload: payload)) }
            return (id, payload)
        }
    }

    /// Waits for the pong of the ping ``expectPong()`` gave.
    ///
    /// - Parameters:
    ///   - id: The ping's id.
    ///   - closedError: Thrown when the channel closes first.
    /// - Throws: `closedError`, or `CancellationError` when the task is cancelled while it waits.
    func waitForPong(_ id: UInt64, closedError: any Error) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, any Error>? in
                    guard let index = state.pings.firstIndex(where: { $0.id == id }) else {
                        // Gone only at a close (pings are removed once answered and waited for).
                        return .failure(closedError)
                    }
                    if state.pings[index].answered {
                        state.pings.remove(at: index)
                        return .success(())
                    }
                    if Task.isCancelled {
                        state.pings.remove(at: index)
                        return .failure(CancellationError())
                    }
                    state.pings[index].waiter = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.pings.firstIndex(where: { $0.id == id }) else { return nil }
                return state.pings.remove(at: index).waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Forgets a ping that could not be sent.
    func forget(_ id: UInt64) {
        state.withLock { $0.pings.removeAll { $0.id == id } }
    }
}

// MARK: - SocketWatchHandler

/// Sees the errors of NIO's frame decoder pass and records their close code, follows the
/// channel's writability for the senders, and tells pongs to the pings waiting for them.
final class SocketWatchHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    private let watch: SocketWatch

    init(_ watch: SocketWatch) { self.watch = watch }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.opcode == .pong, frame.fin {
            watch.pong(Array(frame.unmaskedData.readableBytesView))
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            watch.record(error == .invalidFrameLength ? .messageTooBig : .protocolError)
        }
        context.fireErrorCaught(error)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        watch.writability(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.closed(WebSocketError(WebSocketClosure(code: .abnormalClosure, byPeer: false), detail: "the connection closed before the pong"))
        context.fireChannelInactive()
    }
}
#endif
