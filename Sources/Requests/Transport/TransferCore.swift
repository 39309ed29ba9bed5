import Foundation

// MARK: - TransferCore

/// One transfer's state, from the request sent to the body's end: a value whose every transition
/// returns the actions to perform, and performs none itself.
///
/// ```
/// awaitingHead ──head──▶ streaming ──end──▶ ended       (what is buffered is still read)
///      │ │                ▲   │ └──failure──▶ failed    (what is buffered, then the failure)
///      │ └─head, held─▶ holding ──end or failure──▶ ended / failed (the head with the body)
///      └──failure──▶ failed   │
///      └────────── cancel ────┴────────────▶ cancelled  (nothing is read; the engine stops)
/// ```
///
/// `holding` serves a caller who reads the body whole: a small body is read before the head is
/// handed over, so that the reader takes head and body at once (``takeWholeBody()``) instead of
/// waiting once per chunk; past its limit the head goes to the reader and the body streams.
///
/// Each state carries what it owns: the engine only while it runs, the head once it came, the
/// error once failed; nothing at all once cancelled. Its owner (``TransferStream``) keeps it
/// under a lock, runs each event as `let actions = state.withLock { $0.receive(chunk) }` and
/// performs the actions once unlocked: resume a waiter, stop, pause or resume the engine, write
/// or read the spill file (on the file's own queue), release what the transfer held. So nothing
/// is resumed, called, written or deinitialised inside the lock (see ``Guarded``).
///
/// Generic over who waits, so that a test can drive it with plain values.
struct TransferCore<Waiter> {
    typealias Actions = TransferActions<Waiter>

    /// How the engine is held back when the reader is behind.
    enum Flow {
        case running
        /// Asked to pause; the engine has not reported it done. `resumeWanted` is set when the
        /// reader caught up in between.
        case pausing(resumeWanted: Bool)
        /// Paused; the closure lets it go on.
        case paused(@Sendable () -> Void)
    }

    /// The body while the engine runs.
    ///
    /// Invariants: `waiter` is kept only while `buffer` is empty; `flow` is `.pausing` or
    /// `.paused` only while more than the limit waits (or until the engine reported the pause
    /// it was asked for).
    struct Body {
        var buffer = Buffer()
        var waiter: Waiter?
        var flow = Flow.running
    }

    enum State {
        case awaitingHead(engine: (any TransferEngine)?, headWaiter: Waiter?, body: Body)
        case streaming(head: any TransferHead, engine: (any TransferEngine)?, body: Body)
        /// The head arrived and is held back until the body ends or grows past `limit` bytes;
        /// the engine is never asked to pause here (the reader cannot read yet), and no body
        /// reader is kept (it has no head).
        case holding(head: any TransferHead, limit: Int, engine: (any TransferEngine)?, headWaiter: Waiter?, body: Body)
        /// The engine finished; no waiter is kept (the one waiting got the end).
        case ended(head: any TransferHead, buffer: Buffer)
        /// The engine failed, or the buffer could not keep a chunk; no waiter is kept.
        case failed(head: (any TransferHead)?, buffer: Buffer, error: any Error)
        case cancelled
        /// Only inside a transition, so that a payload is changed in place and not copied.
        case modifying
    }

    var state: State
    /// How much may wait, and what happens beyond it.
    let limits: TransferBuffering
    /// The request, for naming it in errors.
    let request: (method: HTTPMethod, url: URL)
    /// The spill file's queue (its own by default).
    private let spillQueue: DispatchQueue?

    /// A transfer waiting for its head.
    ///
    /// - Parameters:
    ///   - request: The request, for naming it in errors.
    ///   - buffering: How much may wait for the reader, and what happens beyond it.
    ///   - spillQueue: Where the spill file's I/O runs; a serial queue of its own by default.
    init(request: (method: HTTPMethod, url: URL), buffering: TransferBuffering, spillQueue: DispatchQueue? = nil) {
        self.request = request
        self.limits = buffering
        self.spillQueue = spillQueue
        self.state = .awaitingHead(engine: nil, headWaiter: nil, body: Body())
    }

    /// Where the transfer stands.
    var phase: TransferPhase {
        switch state {
        case .awaitingHead, .modifying: .awaitingHead
        case .streaming, .holding: .streaming
        case .ended: .ended
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }

    /// Whether the transfer is over for the engine: ended, failed or cancelled.
    var isOver: Bool {
        switch state {
        case .ended, .failed, .cancelled: true
        case .awaitingHead, .streaming, .holding, .modifying: false
        }
    }

    // MARK: Engine events

    /// The engine that carries the transfer is known: it is kept to be stopped on cancellation
    /// (replacing one that failed before the head), or stopped at once when the transfer was
    /// cancelled first.
    mutating func attach(_ engine: any TransferEngine) -> Actions {
        var actions = Actions()
        switch state {
        case .cancelled:
            actions.append(.stop(engine))
        case .ended, .failed, .modifying:
            actions.append(.release(engine))
        case .awaitingHead(let old, let waiter, let body):
            // A request sent again (on a new connection) replaces the engine that failed.
            if let old { actions.append(.release(old)) }
            state = .awaitingHead(engine: engine, headWaiter: waiter, body: body)
        case .streaming(let head, let old, let body):
            if let old { actions.append(.release(old)) }
            state = .streaming(head: head, engine: engine, body: body)
        case .holding(let head, let limit, let old, let waiter, let body):
            if let old { actions.append(.release(old)) }
            state = .holding(head: head, limit: limit, engine: engine, headWaiter: waiter, body: body)
        }
        return actions
    }

    /// The response head arrived; a second head is ignored.
    mutating func receive(head: any TransferHead) -> Actions {
        var actions = Actions()
        guard case .awaitingHead(let engine, let waiter, let body) = state else { return actions }
        state = .streaming(head: head, engine: engine, body: body)
        if let waiter { actions.append(.resume(waiter, .head(head))) }
        return actions
    }

    /// A chunk of the body arrived: to the waiting reader, or into memory, or (past the memory
    /// limit, for an engine that cannot pause) to disk. Past the limits, the engine is asked to
    /// pause, or the transfer fails when the reader is too far behind.
    mutating func receive(_ chunk: Data) -> Actions {
        var actions = Actions()
        guard !chunk.isEmpty else { return actions }
        var failure: (any Error)?
        let (limits, request, spillQueue) = (self.limits, self.request, self.spillQueue)
        let holding = isHolding
        modifyBody { body in
            if body.buffer.sinking {
                Self.sinkChunk(chunk, into: &body, limits: limits, &actions)
                return
            }
            if let waiter = body.waiter.take() {
                actions.append(.resume(waiter, .chunk(chunk)))
                return
            }
            // Scalars, not a copy of the buffer: a copy would make the append below copy the
            // memory queue's storage.
            let (onDisk, buffered, unwritten) = (body.buffer.onDisk, body.buffer.memory.buffered, body.buffer.unwritten)
            if onDisk == 0, limits.enginePauses || buffered + chunk.count <= limits.bytes {
                body.buffer.memory.append(chunk)
                if !holding { Self.pauseIfFull(&body, limits: limits, &actions) }
                return
            }
            if buffered + onDisk + chunk.count > limits.spillLimit {
                failure = RequestError(.bodyTooLarge, method: request.method, url: request.url,
                                       detail: "the reader fell more than \(limits.spillLimit) bytes behind the network")
            } else {
                let file = body.buffer.file ?? SpillFile(directory: limits.spillDirectory, queue: spillQueue)
                body.buffer.file = file
                if body.buffer.pending.isEmpty { body.buffer.pendingOffset = body.buffer.writeOffset }
                body.buffer.pending.append(chunk)
                body.buffer.writeOffset += chunk.count
                body.buffer.unwritten += chunk.count
                body.buffer.writePending(&actions)
                if unwritten + chunk.count > limits.unwrittenLimit, body.buffer.engineWait == nil {
                    // The disk is slower than the network: rather than hold without limit what
                    // waits to be written, the engine waits for the disk to catch up by half.
                    let wait = DispatchSemaphore(value: 0)
                    body.buffer.engineWait = wait
                    actions.append(.waitForDisk(wait))
                }
            }
        }
        if let failure {
            fail(with: failure, actions: &actions)
        } else if holding {
            handOverHeldIfPastLimit(&actions)
        }
        return actions
    }

    /// Asks a running engine to pause when more than the limits waits for the reader.
    static func pauseIfFull(_ body: inout Body, limits: TransferBuffering, _ actions: inout Actions) {
        guard limits.enginePauses, body.buffer.memory.buffered >= limits.bytes || body.buffer.memory.count >= limits.chunks,
              case .running = body.flow else { return }
        body.flow = .pausing(resumeWanted: false)
        actions.append(.pause)
    }

    /// The engine finished the transfer, with `error` or without. Before the head, a finish
    /// without error is a failure too: there is no response.
    mutating func finish(_ error: (any Error)?) -> Actions {
        var actions = Actions()
        end(error, engineFinished: true, actions: &actions)
        closeSpillIfDone(&actions)
        finishSinkIfDone(&actions)
        return actions
    }

    /// The engine did what ``TransferAction/pause`` asked, and `resume` lets it go on. When the
    /// reader caught up meanwhile, or the transfer is over, it goes on at once.
    mutating func paused(resumingWith resume: @escaping @Sendable () -> Void) -> Actions {
        var actions = Actions()
        var kept = false
        modifyBody { body in
            if case .pausing(let resumeWanted) = body.flow, !resumeWanted {
                body.flow = .paused(resume)
                kept = true
            } else {
                body.flow = .running
            }
        }
        if !kept { actions.append(.resumeEngine(resume)) }
        return actions
    }

    // MARK: Helpers

    /// Changes the body of a running transfer in place; does nothing once it is over.
    mutating func modifyBody(_ change: (inout Body) -> Void) {
        switch state {
        case .awaitingHead(let engine, let waiter, var body):
            state = .modifying
            change(&body)
            state = .awaitingHead(engine: engine, headWaiter: waiter, body: body)
        case .streaming(let head, let engine, var body):
            state = .modifying
            change(&body)
            state = .streaming(head: head, engine: engine, body: body)
        case .holding(let head, let limit, let engine, let waiter, var body):
            state = .modifying
            change(&body)
            state = .holding(head: head, limit: limit, engine: engine, headWaiter: waiter, body: body)
        case .ended, .failed, .cancelled, .modifying:
            break
        }
    }

    /// Changes the buffer in place, whether the engine runs or not.
    mutating func modifyBuffer(_ change: (inout Buffer) -> Void) {
        switch state {
        case .awaitingHead, .streaming, .holding:
            modifyBody { change(&$0.buffer) }
        case .ended(let head, var buffer):
            state = .modifying
            change(&buffer)
            state = .ended(head: head, buffer: buffer)
        case .failed(let head, var buffer, let error):
            state = .modifying
            change(&buffer)
            state = .failed(head: head, buffer: buffer, error: error)
        case .cancelled, .modifying:
            break
        }
    }

    /// Closes the spill file once the transfer is over and nothing of it is outstanding.
    mutating func closeSpillIfDone(_ actions: inout Actions) {
        guard isOver else { return }
        modifyBuffer { buffer in
            guard let file = buffer.file, buffer.onDisk == 0 || buffer.diskFailed, buffer.unwritten == 0, !buffer.reading,
                  buffer.diskReader == nil else { return }
            buffer.file = nil
            actions.append(.closeSpill(file))
        }
    }

    /// The transfer fails while the engine may still run (the buffer could not keep a chunk):
    /// the engine stops, and a reader waiting gets the failure after what is buffered.
    mutating func fail(with error: any Error, actions: inout Actions) {
        releaseEngineWait(&actions)
        if case .ended(let head, let buffer) = state {
            // The body had all come; what could not be kept fails the rest of it.
            state = .failed(head: head, buffer: buffer, error: error)
        } else {
            end(error, engineFinished: false, actions: &actions)
        }
        finishSinkIfDone(&actions)
    }

    /// Ends a transfer whose engine runs: `ended` after the head without an error, `failed`
    /// otherwise (before the head, an end without error fails too: there is no response). The
    /// engine is released when it finished, stopped when it still runs; a hold on it is let go,
    /// and whoever waits is told. Does nothing once the transfer is over.
    private mutating func end(_ error: (any Error)?, engineFinished: Bool, actions: inout Actions) {
        let (head, engine, headWaiter, body): ((any TransferHead)?, (any TransferEngine)?, Waiter?, Body)
        // A held head goes to its reader with the body, whatever ended it.
        var heldHead: (any TransferHead)?
        switch state {
        case .awaitingHead(let running, let waiter, let payload):
            (head, engine, headWaiter, body) = (nil, running, waiter, payload)
        case .streaming(let arrived, let running, let payload):
            (head, engine, headWaiter, body) = (arrived, running, nil, payload)
        case .holding(let arrived, _, let running, let waiter, let payload):
            (head, engine, headWaiter, body) = (arrived, running, waiter, payload)
            heldHead = arrived
        case .ended, .failed, .cancelled, .modifying:
            return
        }
        let outcome: TransferOutcome
        var buffer = body.buffer
        buffer.heldWhole = heldHead != nil
        switch (head, error) {
        case (let head?, nil):
            state = .ended(head: head, buffer: buffer)
            outcome = .end
        case (_, let error?):
            state = .failed(head: head, buffer: buffer, error: error)
            outcome = .failure(error)
        case (nil, nil):
            let failure = TransportError(.other, detail: "the transfer ended without a response head")
            state = .failed(head: nil, buffer: buffer, error: failure)
            outcome = .failure(failure)
        }
        if let engine { actions.append(engineFinished ? .release(engine) : .stop(engine)) }
        var flow = body.flow
        Self.letGo(&flow, &actions)
        if let headWaiter { actions.append(.resume(headWaiter, heldHead.map { .head($0) } ?? outcome)) }
        // A reader waits only while nothing is buffered: the end is next.
        if let waiter = body.waiter { actions.append(.resume(waiter, outcome)) }
    }

    /// Lets an engine that waits for the disk go on (the transfer failed or was cancelled).
    mutating func releaseEngineWait(_ actions: inout Actions) {
        modifyBuffer { buffer in
            if let wait = buffer.engineWait.take() { actions.append(.diskCaughtUp(wait)) }
        }
    }

    /// A hold on the engine is let go: the engine is over or stopped, or the reader caught up.
    /// A pause not yet reported is let go when it is (``paused(resumingWith:)``).
    static func letGo(_ flow: inout Flow, _ actions: inout Actions) {
        switch flow {
        case .running:
            break
        case .pausing:
            flow = .pausing(resumeWanted: true)
        case .paused(let resume):
            flow = .running
            actions.append(.resumeEngine(resume))
        }
    }
}
