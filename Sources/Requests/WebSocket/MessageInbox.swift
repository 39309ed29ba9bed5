import Foundation

// MARK: - MessageInbox

/// The received messages between the connection's reading task and the one reader: at most
/// `limit` wait, and the reading task waits (so the socket is not read) while they do. Engines
/// of the package share it (the stub's scripted peer too).
package final class MessageInbox: Sendable {
    private struct State {
        var queue: [WebSocketMessage] = []
        var head = 0
        /// How the messages end once the queue is drained: `nil` while open, `.success` at a
        /// close, the failure otherwise.
        var end: Result<Void, any Error>?
        /// The reader waiting for a message, and whether its task was cancelled first.
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        var readerCancelled = false
        /// The reading task waiting for room.
        var writer: CheckedContinuation<Void, any Error>?
        var writerCancelled = false
        /// Set by ``drain()``: messages are dropped as they come.
        var dropping = false
        var count: Int { queue.count - head }
    }

    private let limit: Int
    /// Invariant: `reader` is set only while the queue is empty and `end` is `nil`; `writer` only
    /// while `count >= limit` and `end` is `nil`. Continuations are resumed after unlocking.
    private let state = Guarded(State())

    package init(limit: Int) { self.limit = max(1, limit) }

    /// Adds a message, waiting while `limit` wait unread.
    package func push(_ message: WebSocketMessage) async throws {
        let reader = try state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            if state.end != nil { throw CancellationError() }
            if state.dropping { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.queue.append(message)
            return nil
        }
        if let reader {
            reader.resume(returning: message)
            return
        }
        guard state.withLock({ $0.count >= limit && !$0.dropping }) else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume = state.withLock { state -> Result<Void, any Error>? in
                    if state.writerCancelled || state.end != nil { return .failure(CancellationError()) }
                    if state.count < limit || state.dropping { return .success(()) }
                    state.writer = continuation
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let writer = state.withLock { state in
                state.writerCancelled = true
                defer { state.writer = nil }
                return state.writer
            }
            writer?.resume(throwing: CancellationError())
        }
    }

    /// The next message; `nil` after a close, the failure after a failure.
    package func pop() async throws -> WebSocketMessage? {
        state.withLock { $0.readerCancelled = false }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketMessage?, any Error>) in
                let (resume, writer) = state.withLock { state -> (Result<WebSocketMessage?, any Error>?, CheckedContinuation<Void, any Error>?) in
                    if state.readerCancelled { return (.failure(CancellationError()), nil) }
                    if state.count > 0 {
                        let message = state.queue[state.head]
                        state.head += 1
                        if state.head > 64, state.head * 2 > state.queue.count {
                            state.queue.removeFirst(state.head)
                            state.head = 0
                        }
                        var writer: CheckedContinuation<Void, any Error>?
                        if state.count < limit {
                            writer = state.writer
                            state.writer = nil
                        }
                        return (.success(message), writer)
                    }
                    if let end = state.end { return (end.map { nil }, nil) }
                    state.reader = continuation
                    return (nil, nil)
                }
                writer?.resume()
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let reader = state.withLock { state in
                state.readerCancelled = true
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    /// Drops what is queued and every later message (this side is closing); a waiting writer
    /// goes on.
    package func drain() {
        let writer = state.withLock { state in
            state.dropping = true
            state.queue = []
            state.head = 0
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume()
    }

    /// Ends the messages: the reader gets what is queued, then `nil` (or `error`); a waiting
    /// writer is released.
    package func finish(_ error: (any Error)?) {
        let (reader, writer) = state.withLock { state -> (CheckedContinuation<WebSocketMessage?, any Error>?, CheckedContinuation<Void, any Error>?) in
            if state.end == nil { state.end = error.map { .failure($0) } ?? .success(()) }
            defer {
                state.reader = nil
                state.writer = nil
            }
            return (state.reader, state.writer)
        }
        if let reader {
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
        writer?.resume(throwing: CancellationError())
    }
}
