import Foundation

// MARK: - MessageInbox

/// The received messages between the tasks that add them and the tasks that read them: at most
/// `limit` wait, and a task adding one more waits (so the socket is not read) until a reader
/// makes room. Engines of the package share it (the stub's scripted peer too).
///
/// Any number of tasks may add and read at once: waiting readers are served in the order they
/// came, and so are waiting writers. A writer that is cancelled while it waits has queued
/// nothing; a reader that is cancelled while it waits has taken nothing.
package final class MessageInbox: Sendable {
    private typealias Reader = CheckedContinuation<WebSocketMessage?, any Error>
    private typealias Writer = CheckedContinuation<Void, any Error>

    private struct State {
        var queue: [WebSocketMessage] = []
        var head = 0
        /// How the messages end once the queue is drained: `nil` while open, `.success` at a
        /// close, the failure otherwise.
        var end: Result<Void, any Error>?
        /// Readers waiting for a message, oldest first.
        var readers: [(id: UInt64, continuation: Reader)] = []
        /// Writers waiting for room, oldest first, each with the message it adds.
        var writers: [(id: UInt64, message: WebSocketMessage, continuation: Writer)] = []
        var nextID: UInt64 = 0
        /// Set by ``drain()``: messages are dropped as they come.
        var dropping = false
        var count: Int { queue.count - head }

        mutating func take() -> WebSocketMessage {
            let message = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return message
        }

        mutating func id() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }

    private let limit: Int
    /// Invariant: `readers` is non-empty only while the queue is empty and `end` is `nil`;
    /// `writers` only while `count >= limit`, `end` is `nil` and nothing is being dropped.
    /// Continuations are resumed after unlocking.
    private let state = Guarded(State())

    package init(limit: Int) { self.limit = max(1, limit) }

    /// Adds a message, waiting while `limit` wait unread.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the message found room
    ///   (it was not queued) or the inbox ended.
    package func push(_ message: WebSocketMessage) async throws {
        enum Step { case done, handTo(Reader), wait(UInt64) }
        let step = try state.withLock { state -> Step in
            if state.end != nil { throw CancellationError() }
            if state.dropping { return .done }
            if !state.readers.isEmpty { return .handTo(state.readers.removeFirst().continuation) }
            if state.count < limit {
                state.queue.append(message)
                return .done
            }
            return .wait(state.id())
        }
        switch step {
        case .done: return
        case let .handTo(reader):
            reader.resume(returning: message)
            return
        case let .wait(id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: Writer) in
                    enum Now { case fail, proceed, waiting, handTo(Reader) }
                    let now = state.withLock { state -> Now in
                        // The flag is set before `onCancel` runs, and `onCancel` takes the lock:
                        // read here, under it, a cancellation is never missed.
                        if Task.isCancelled || state.end != nil { return .fail }
                        if state.dropping { return .proceed }
                        // Room may have opened between the two sections.
                        if !state.readers.isEmpty { return .handTo(state.readers.removeFirst().continuation) }
                        if state.count < limit {
                            state.queue.append(message)
                            return .proceed
                        }
                        state.writers.append((id, message, continuation))
                        return .waiting
                    }
                    switch now {
                    case .fail: continuation.resume(throwing: CancellationError())
                    case .proceed: continuation.resume()
                    case .waiting: break
                    case let .handTo(reader):
                        reader.resume(returning: message)
                        continuation.resume()
                    }
                }
            } onCancel: {
                let writer = state.withLock { state -> Writer? in
                    guard let index = state.writers.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.writers.remove(at: index).continuation
                }
                writer?.resume(throwing: CancellationError())
            }
        }
    }

    /// The next message; `nil` after a close, the failure after a failure.
    ///
    /// - Throws: the connection's failure, or `CancellationError` when the task is cancelled
    ///   while it waits (no message is taken).
    package func pop() async throws -> WebSocketMessage? {
        let id = state.withLock { $0.id() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Reader) in
                let (resume, writer) = state.withLock { state -> (Result<WebSocketMessage?, any Error>?, Writer?) in
                    if Task.isCancelled { return (.failure(CancellationError()), nil) }
                    if state.count > 0 {
                        let message = state.take()
                        var writer: Writer?
                        if state.count < limit, !state.writers.isEmpty {
                            let waiting = state.writers.removeFirst()
                            state.queue.append(waiting.message)
                            writer = waiting.continuation
                        }
                        return (.success(message), writer)
                    }
                    if let end = state.end { return (end.map { nil }, nil) }
                    state.readers.append((id, continuation))
                    return (nil, nil)
                }
                writer?.resume()
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let reader = state.withLock { state -> Reader? in
                guard let index = state.readers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.readers.remove(at: index).continuation
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    /// Drops what is queued and every later message (this side is closing); waiting writers go
    /// on.
    package func drain() {
        let writers = state.withLock { state -> [Writer] in
            state.dropping = true
            state.queue = []
            state.head = 0
            defer { state.writers = [] }
            return state.writers.map(\.continuation)
        }
        for writer in writers { writer.resume() }
    }

    /// Ends the messages: readers get what is queued (the messages of waiting writers too, which
    /// came before the end), then `nil` (or `error`); waiting writers go on.
    package func finish(_ error: (any Error)?) {
        let (readers, writers) = state.withLock { state -> ([Reader], [Writer]) in
            if state.end == nil { state.end = error.map { .failure($0) } ?? .success(()) }
            if !state.dropping { state.queue.append(contentsOf: state.writers.map(\.message)) }
            defer {
                state.readers = []
                state.writers = []
            }
            return (state.readers.map(\.continuation), state.writers.map(\.continuation))
        }
        for reader in readers {
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
        for writer in writers { writer.resume() }
    }
}
