import Foundation

// MARK: - TransferStream

/// One transfer between an engine and the body's reader (the head is the engine's own, which the
/// reader turns into a ``ResponseHead``, off the engine's thread): a ``TransferCore`` under a lock, fed by
/// the engine's events and the reader's waits, whose effects are performed once the lock is
/// released. Both built-in engines hand their bodies to the session through it.
///
/// The engine side calls ``attach(_:)`` with what stops the transfer, ``receive(head:)``, then
/// ``receive(_:)`` per chunk (pausing the engine when it answers `true`, and reporting it with
/// ``paused(_:)``), and ``finish(_:)``. The reader calls ``head()``, then ``next()`` until `nil`;
/// anyone may call ``cancel()``.
///
/// What the owner does with the effects, and why each is safe:
/// - waiters are resumed after the lock is released, never inside it;
/// - the engine is stopped on another thread: a cancellation handler runs while the Swift runtime
///   holds the cancelled task's status lock, and FoundationNetworking's `URLSessionTask.cancel()`
///   waits for the session's queue, which may itself be waiting to resume that task;
/// - a finished engine, and what a cancelled transfer had buffered, are released here, unlocked.
///
/// Not generic: the engine's types are erased to `any Sendable`, so that the core's transitions
/// are compiled for one set of types and run specialised behind the body's protocol witness (a
/// generic class's witness runs unspecialised code, which cost 5% of a loopback request).
package final class TransferStream: ResponseBodySource {
    /// The engine's head; its reader casts it back (`HTTPURLResponse`, NIO's `HTTPResponseHead`).
    package typealias Head = any Sendable
    /// What stops the transfer (a `URLSessionTask`, AsyncHTTPClient's task).
    package typealias Engine = any Sendable
    /// What lets a paused engine go on (the task, an event loop's promise).
    package typealias Hold = any Sendable

    /// Who waits: the head's reader or the body's.
    package enum Waiter {
        case head(CheckedContinuation<Head, any Error>)
        case chunk(CheckedContinuation<Data?, any Error>)
    }

    package typealias Core = TransferCore<Head, Waiter, Engine, Hold>
    package typealias Effects = TransferEffects<Head, Waiter, Engine, Hold>

    /// Invariant: the core is only read and changed under the lock; its effects are performed
    /// after it (``perform(_:)``).
    private let state: Guarded<Core>
    private let stopEngine: @Sendable (Engine) -> Void
    private let resumeEngine: @Sendable (Hold) -> Void
    /// A test's way to order events: runs after an engine event's transition, before its waiters
    /// are resumed. `nil` outside tests.
    private let beforeResuming: (@Sendable () -> Void)?

    /// Creates a transfer waiting for its head.
    ///
    /// - Parameters:
    ///   - request: The request, for naming it in errors.
    ///   - buffering: How much may wait for the reader, and what happens beyond it.
    ///   - stop: Stops the engine; called at most once, on a thread of its own.
    ///   - resume: Lets a paused engine go on.
    ///   - beforeResuming: For tests only: runs before an engine event resumes a waiter.
    package init(
        request: (method: HTTPMethod, url: URL),
        buffering: ChunkQueue.Limits,
        stop: @escaping @Sendable (Engine) -> Void,
        resume: @escaping @Sendable (Hold) -> Void = { _ in },
        beforeResuming: (@Sendable () -> Void)? = nil
    ) {
        self.state = Guarded(Core(request: request, buffering: buffering))
        self.stopEngine = stop
        self.resumeEngine = resume
        self.beforeResuming = beforeResuming
    }

    // MARK: Engine side

    /// The engine that carries the transfer; stopped at once when the transfer was cancelled.
    package func attach(_ engine: Engine) {
        perform(state.withLock { $0.attach(engine) })
    }

    /// The response head arrived.
    package func receive(head: Head) {
        perform(state.withLock { $0.receive(head: head) }, fromEngine: true)
    }

    /// A chunk of the body arrived.
    ///
    /// - Returns: Whether the engine should pause now: pause it, then call ``paused(_:)``.
    @discardableResult
    package func receive(_ chunk: Data) -> Bool {
        let effects = state.withLock { $0.receive(chunk) }
        let pause = effects.pause
        perform(effects, fromEngine: true)
        return pause
    }

    /// The engine paused as ``receive(_:)`` asked; `hold` lets it go on.
    package func paused(_ hold: Hold) {
        perform(state.withLock { $0.paused(hold) })
    }

    /// The engine finished the transfer, with `error` or without.
    package func finish(_ error: (any Error)?) {
        perform(state.withLock { $0.finish(error) }, fromEngine: true)
    }

    /// Whether the transfer was cancelled.
    package var isCancelled: Bool {
        state.withLock { $0.phase == .cancelled }
    }

    /// Whether a reader waits for a chunk (for tests that order events).
    package var hasReader: Bool {
        state.withLock { $0.hasChunkWaiter }
    }

    /// Where the transfer stands.
    package var phase: Core.Phase {
        state.withLock { $0.phase }
    }

    // MARK: Reader side

    /// Waits for the response head.
    ///
    /// - Returns: The head.
    /// - Throws: The engine's failure before the head, or `CancellationError`.
    package func head() async throws -> Head {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform(state.withLock { $0.waitForHead(.head(continuation)) })
            }
        } onCancel: {
            cancel()
        }
    }

    package func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform(state.withLock { $0.waitForChunk(.chunk(continuation)) })
            }
        } onCancel: {
            cancel()
        }
    }

    package func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    // MARK: Effects

    /// Does what a transition decided; the lock is not held. A pause is the engine side's to do
    /// (``receive(_:)`` returns it).
    private func perform(_ effects: consuming Effects, fromEngine: Bool = false) {
        if effects.isEmpty { return }
        if let hold = effects.resume {
            resumeEngine(hold)
        }
        if fromEngine, !effects.resumes.isEmpty { beforeResuming?() }
        for (waiter, outcome) in effects.resumes {
            Self.resume(waiter, with: outcome)
        }
        if let engine = effects.stop {
            // Never on this thread: it may be a cancellation handler's (see the type's notes).
            let stop = stopEngine
            DispatchQueue.global().async { stop(engine) }
        }
        effects.dropped?.spill?.close()
        // `effects.release` and the dropped chunks go with `effects`, here.
    }

    private static func resume(_ waiter: Waiter, with outcome: Core.Outcome) {
        switch (waiter, outcome) {
        case (.head(let continuation), .head(let head)):
            continuation.resume(returning: head)
        case (.head(let continuation), .failure(let error)):
            continuation.resume(throwing: error)
        case (.head(let continuation), .chunk), (.head(let continuation), .chunks), (.head(let continuation), .end):
            continuation.resume(throwing: TransportError(.other, detail: "a body chunk was handed to the head's reader"))
        case (.chunk(let continuation), .chunk(let chunk)):
            continuation.resume(returning: chunk)
        case (.chunk(let continuation), .chunks(let chunks)):
            continuation.resume(returning: joined(chunks))
        case (.chunk(let continuation), .end):
            continuation.resume(returning: nil)
        case (.chunk(let continuation), .failure(let error)):
            continuation.resume(throwing: error)
        case (.chunk(let continuation), .head):
            continuation.resume(throwing: TransportError(.other, detail: "a head was handed to the body's reader"))
        }
    }

    /// The chunks a reader took at once, as one piece: joined here, outside the lock, so that
    /// the engine is not held up by the copy.
    private static func joined(_ chunks: [Data]) -> Data {
        guard var whole = chunks.first, chunks.count > 1 else { return chunks.first ?? Data() }
        whole.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
        for chunk in chunks.dropFirst() { whole.append(chunk) }
        return whole
    }
}
