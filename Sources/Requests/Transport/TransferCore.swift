import Foundation

// MARK: - TransferCore

/// One transfer's state, from the request sent to the body's end: a value whose every transition
/// returns the effects to perform, and performs none itself.
///
/// ```
/// awaitingHead ──head──▶ streaming ──end──▶ ended       (what is buffered is still read)
///      │                    │ └──failure──▶ failed      (what is buffered, then the failure)
///      └──failure──▶ failed │
///      └────────── cancel ──┴────────────▶ cancelled    (nothing is read; the engine stops)
/// ```
///
/// Its owner (``TransferStream``) keeps it under a lock, runs each event as
/// `let effects = state.withLock { $0.receive(chunk) }` and performs the effects once unlocked:
/// resume a waiter, stop, pause or resume the engine, release what the transfer held. So nothing
/// is resumed, called or deinitialised inside the lock (see ``Guarded``).
///
/// Generic over what it hands back, so that a test can drive it with plain values: `Head` is the
/// engine's own head (made into a ``ResponseHead`` by the reader, not on the engine's thread),
/// `Waiter` what waits for the head or a chunk (a continuation), `Engine` what stops the transfer
/// (a `URLSessionTask`), `Hold` what holds the engine back while the reader is behind (an event
/// loop's promise, or the task to resume).
///
/// Invariants:
/// - a waiter is handed out (in ``TransferEffects/resumes``) once, and no longer kept;
/// - a reader waits only while nothing is buffered and the body has not ended;
/// - `flow` is `.pausing` or `.paused` only while the body runs and more than `limit` waits (or
///   until the engine has reported the pause it was asked for);
/// - once cancelled, nothing is buffered, no waiter is kept, and no engine is kept.
package struct TransferCore<Head, Waiter, Engine, Hold> {
    /// Where the transfer stands.
    package enum Phase: Equatable, Sendable {
        /// The request is under way; no head yet.
        case awaitingHead
        /// The head arrived; the body is arriving.
        case streaming
        /// The engine finished the body; what is buffered is still to be read.
        case ended
        /// The engine failed; what is buffered is read first, then the failure.
        case failed
        /// Cancelled by the reader, the session or a timeout: nothing more is read.
        case cancelled
    }

    /// What a waiter is resumed with.
    package enum Outcome {
        case head(Head)
        case chunk(Data)
        /// Chunks taken at once, joined by the owner outside the lock.
        case chunks([Data])
        /// The end of the body.
        case end
        case failure(any Error)
    }

    /// How the engine is held back when the reader is behind.
    package enum Flow {
        case running
        /// Asked to pause; the owner has not reported it done. `resumeWanted` is set when the
        /// reader caught up in between.
        case pausing(resumeWanted: Bool)
        case paused(Hold)
    }

    private(set) var phase = Phase.awaitingHead
    private(set) var head: Head?
    private var headWaiter: Waiter?
    private var chunkWaiter: Waiter?
    private(set) var queue: ChunkQueue
    private var failure: (any Error)?
    private var engine: Engine?
    private(set) var flow = Flow.running
    /// The request, for naming it in errors.
    let request: (method: HTTPMethod, url: URL)

    /// A transfer waiting for its head.
    ///
    /// - Parameters:
    ///   - request: The request, for naming it in errors.
    ///   - buffering: How much may wait for the reader, and what happens beyond it.
    init(request: (method: HTTPMethod, url: URL), buffering: ChunkQueue.Limits) {
        self.request = request
        self.queue = ChunkQueue(limits: buffering)
    }

    /// Whether a reader waits for a chunk.
    var hasChunkWaiter: Bool { chunkWaiter != nil }

    /// Whether the transfer is over for the engine: ended, failed or cancelled.
    var isOver: Bool { phase == .ended || phase == .failed || phase == .cancelled }

    // MARK: Engine events

    /// The engine that carries the transfer is known: it is kept to be stopped on cancellation
    /// (replacing one that failed before the head), or stopped at once when the transfer was
    /// cancelled first.
    mutating func attach(_ engine: Engine) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        switch phase {
        case .cancelled: effects.stop = engine
        case .ended, .failed: effects.release = engine
        case .awaitingHead, .streaming:
            // A request sent again (on a new connection) replaces the engine that failed.
            effects.release = self.engine
            self.engine = engine
        }
        return effects
    }

    /// The response head arrived; a second head is ignored.
    mutating func receive(head: Head) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        guard phase == .awaitingHead else { return effects }
        phase = .streaming
        self.head = head
        if let waiter = headWaiter.take() {
            effects.resume(waiter, with: .head(head))
        }
        return effects
    }

    /// A chunk of the body arrived: to the waiting reader, or into the queue (which may ask the
    /// engine to pause, or fail the transfer when the reader is too far behind).
    mutating func receive(_ chunk: Data) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        guard !chunk.isEmpty, phase == .streaming || phase == .awaitingHead else { return effects }
        if let waiter = chunkWaiter.take() {
            effects.resume(waiter, with: .chunk(chunk))
            return effects
        }
        switch queue.append(chunk, request: request) {
        case .kept:
            break
        case .full:
            if case .running = flow {
                flow = .pausing(resumeWanted: false)
                effects.pause = true
            }
        case .failed(let error):
            // The reader fell too far behind, or the disk failed: the reader reads what was
            // kept, then the failure.
            fail(with: error, effects: &effects)
        }
        return effects
    }

    /// The engine finished the transfer, with `error` or without. Before the head, a finish
    /// without error is a failure too: there is no response.
    mutating func finish(_ error: (any Error)?) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        effects.release = engine.take()
        effects.resumeHold(&flow)
        switch phase {
        case .ended, .failed, .cancelled:
            return effects
        case .awaitingHead:
            phase = .failed
            failure = error ?? TransportError(.other, detail: "the transfer ended without a response head")
        case .streaming:
            phase = error == nil ? .ended : .failed
            failure = error
        }
        if let waiter = headWaiter.take() {
            effects.resume(waiter, with: .failure(failure ?? CancellationError()))
        }
        if let waiter = chunkWaiter.take() {
            // A reader waits only while nothing is buffered: the end is next.
            effects.resume(waiter, with: failure.map { .failure($0) } ?? .end)
        }
        return effects
    }

    /// The engine did what ``TransferEffects/pause`` asked, and `hold` resumes it. When the
    /// reader caught up meanwhile, or the transfer is over, it is resumed at once.
    mutating func paused(_ hold: Hold) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        if case .pausing(let resumeWanted) = flow, !resumeWanted, !isOver {
            flow = .paused(hold)
        } else {
            flow = .running
            effects.resume = hold
        }
        return effects
    }

    // MARK: Reader events

    /// The reader waits for the head.
    mutating func waitForHead(_ waiter: Waiter) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        if phase == .cancelled {
            effects.resume(waiter, with: .failure(CancellationError()))
        } else if let head {
            effects.resume(waiter, with: .head(head))
        } else if phase == .failed {
            effects.resume(waiter, with: .failure(failure ?? CancellationError()))
        } else if headWaiter != nil {
            effects.resume(waiter, with: .failure(TransportError(.other, detail: "the head is already awaited")))
        } else {
            headWaiter = waiter
        }
        return effects
    }

    /// The reader waits for the next chunk: what is buffered (up to a batch), the end, or a wait.
    /// Taking the queue down to half its limit resumes a paused engine.
    mutating func waitForChunk(_ waiter: Waiter) -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        if phase == .cancelled {
            effects.resume(waiter, with: .failure(CancellationError()))
            return effects
        }
        switch queue.take(request: request) {
        case .chunk(let chunk):
            effects.resume(waiter, with: .chunk(chunk))
            if queue.isBelowResumeMark { effects.resumeHold(&flow) }
        case .chunks(let chunks):
            effects.resume(waiter, with: .chunks(chunks))
            if queue.isBelowResumeMark { effects.resumeHold(&flow) }
        case .failed(let error):
            fail(with: error, effects: &effects)
            effects.resume(waiter, with: .failure(error))
        case .empty:
            switch phase {
            case .ended:
                effects.resume(waiter, with: .end)
            case .failed:
                effects.resume(waiter, with: .failure(failure ?? CancellationError()))
            case .awaitingHead, .streaming, .cancelled:
                if chunkWaiter != nil {
                    effects.resume(waiter, with: .failure(RequestError(
                        .streamFailed, method: request.method, url: request.url,
                        detail: "the body is already being read by another loop; a body is read once")))
                } else {
                    chunkWaiter = waiter
                }
            }
        }
        return effects
    }

    /// The transfer fails while the engine may still run (the queue could not keep a chunk, or
    /// give one back): the engine stops and is let go of.
    private mutating func fail(with error: any Error, effects: inout TransferEffects<Head, Waiter, Engine, Hold>) {
        phase = .failed
        failure = error
        effects.stop = engine.take()
        effects.resumeHold(&flow)
    }

    /// Cancels the transfer: every waiter fails with `CancellationError`, the engine is stopped
    /// unless it finished, and what is buffered is dropped. A second cancel does nothing.
    mutating func cancel() -> TransferEffects<Head, Waiter, Engine, Hold> {
        var effects = TransferEffects<Head, Waiter, Engine, Hold>()
        guard phase != .cancelled else { return effects }
        let running = phase == .awaitingHead || phase == .streaming
        phase = .cancelled
        if let engine = engine.take() {
            if running { effects.stop = engine } else { effects.release = engine }
        }
        effects.resumeHold(&flow)
        if let waiter = headWaiter.take() {
            effects.resume(waiter, with: .failure(CancellationError()))
        }
        if let waiter = chunkWaiter.take() {
            effects.resume(waiter, with: .failure(CancellationError()))
        }
        effects.dropped = queue.removeAll()
        return effects
    }
}

// MARK: - TransferEffects

/// What one transition of a ``TransferCore`` decided, for its owner to do once unlocked, in this
/// order: resume the engine, resume the waiters, stop the engine, pause it, release the rest.
package struct TransferEffects<Head, Waiter, Engine, Hold> {
    /// Waiters to resume, at most two (the head's and a chunk's), in order; kept inline, so
    /// that a transition allocates nothing.
    var resumes = Resumes()
    /// An engine to stop: the transfer was cancelled or failed while it ran.
    var stop: Engine?
    /// Ask the engine to stop reading, then report it with ``TransferCore/paused(_:)``.
    var pause = false
    /// A held-back engine to let go on.
    var resume: Hold?
    /// An engine that finished, released here rather than under the lock.
    var release: Engine?
    /// What was buffered when the transfer was cancelled, dropped (and closed) here.
    var dropped: ChunkQueue.Dropped?

    /// Whether there is nothing to do.
    var isEmpty: Bool {
        resumes.isEmpty && stop == nil && !pause && resume == nil && release == nil && dropped == nil
    }

    fileprivate mutating func resume(_ waiter: Waiter, with outcome: TransferCore<Head, Waiter, Engine, Hold>.Outcome) {
        if resumes.first == nil {
            resumes.first = (waiter, outcome)
        } else {
            resumes.second = (waiter, outcome)
        }
    }

    /// Up to two waiters to resume, in order.
    package struct Resumes: Sequence {
        package typealias Element = (waiter: Waiter, outcome: TransferCore<Head, Waiter, Engine, Hold>.Outcome)
        var first: Element?
        var second: Element?

        var isEmpty: Bool { first == nil }

        package func makeIterator() -> Iterator {
            Iterator(upcoming: first, after: second)
        }

        package struct Iterator: IteratorProtocol {
            var upcoming: Element?
            var after: Element?

            package mutating func next() -> Element? {
                defer { (upcoming, after) = (after, nil) }
                return upcoming
            }
        }
    }

    /// A hold on the engine is let go: the engine is over or stopped, or the reader caught up.
    /// A pause not yet reported is let go when it is (``TransferCore/paused(_:)``).
    fileprivate mutating func resumeHold(_ flow: inout TransferCore<Head, Waiter, Engine, Hold>.Flow) {
        switch flow {
        case .running:
            break
        case .pausing:
            // The owner reports the pause later; ``TransferCore/paused(_:)`` lets it go then.
            flow = .pausing(resumeWanted: true)
        case .paused(let hold):
            flow = .running
            resume = hold
        }
    }
}
