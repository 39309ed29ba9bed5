import Foundation

// MARK: - TransferStream

/// One transfer between an engine and the body's reader: the transfer core every built-in
/// engine uses, and the one to build a third-party ``Transport`` on.
///
/// It keeps the two rules a transport owes the session: nothing is resumed, called, stopped or
/// written while its lock is held, and every wait ends (with the body, its failure, or
/// `CancellationError`) however the engine and the reader interleave.
///
/// ```swift
/// func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
///     let transfer = TransferStream(for: request,        // cancelled with the request's handle
///                                   buffering: TransferBuffering(bytes: 1 << 20, enginePauses: true))
///     let call = engine.start(request)             // your engine, calling back:
///     transfer.attach(call)                        //   what stops it (a TransferEngine)
///     //   call.onHead { transfer.receive(head: $0) }
///     //   call.onChunk { if transfer.receive($0) { call.pause(); transfer.paused { call.resume() } } }
///     //   call.onEnd { transfer.finish($0) }
///     return (try await transfer.head(), ResponseBody(source: transfer))
/// }
/// ```
///
/// The engine side calls ``attach(_:)`` with what stops the transfer, ``receive(head:)``, then
/// ``receive(_:)`` per chunk (pausing the engine when it answers `true`, and reporting it with
/// ``paused(resumingWith:)``), and ``finish(_:)``, one event at a time. The reader calls
/// ``head()``, then ``next()`` until `nil`; anyone may call ``cancel()``, and cancelling the
/// reading task cancels the transfer too.
///
/// How each action is made safe, once the lock is released:
/// - waiters are resumed after the lock is released, never inside it;
/// - the engine is stopped on another thread: a cancellation handler runs while the Swift runtime
///   holds the cancelled task's status lock, and FoundationNetworking's `URLSessionTask.cancel()`
///   waits for the session's queue, which may itself be waiting to resume that task;
/// - chunks past the memory limit of an engine that cannot pause are written to, and read back
///   from, an unlinked file on a queue of the file's own, never on the engine's thread; only when
///   the disk falls more than ``TransferBuffering`` allows behind the network does the engine's
///   thread wait for it, as it would for an engine that can pause;
/// - a finished engine, and what a cancelled transfer had buffered, are released here, unlocked.
///
/// Not generic: heads and engines are existentials (``TransferHead``, ``TransferEngine``), so
/// that the core's transitions are compiled for one set of types and run specialised behind the
/// body's protocol witness (a generic class's witness runs unspecialised code, which cost 5% of
/// a loopback request).
public final class TransferStream: ResponseBodySource {
    /// Who waits: the head's reader or the body's.
    enum Waiter {
        case head(CheckedContinuation<any TransferHead, any Error>)
        case chunk(CheckedContinuation<Data?, any Error>)
    }

    typealias Core = TransferCore<Waiter>

    /// Invariant: the core is only read and changed under the lock; its actions are performed
    /// after it (``perform(_:)``).
    private let state: Guarded<Core>

    /// Creates a transfer waiting for its head.
    ///
    /// - Parameters:
    ///   - method: The request's method, for naming it in errors.
    ///   - url: The request's URL, for naming it in errors.
    ///   - buffering: How much may wait for the reader, and what happens beyond it.
    public convenience init(method: HTTPMethod, url: URL, buffering: TransferBuffering) {
        self.init(request: (method, url), buffering: buffering)
    }

    /// Creates the transfer of one trip, waiting for its head: the request's one cancel point.
    /// The request's ``TransportRequest/handle`` (which the session's clock cancels) cancels
    /// it, as cancelling the reading task does; a handle cancelled already cancels it at once.
    ///
    /// - Parameters:
    ///   - request: The trip, for naming it in errors and for its handle.
    ///   - buffering: How much may wait for the reader, and what happens beyond it.
    public convenience init(for request: TransportRequest, buffering: TransferBuffering) {
        self.init(request: (request.method, request.url), buffering: buffering)
        request.handle.onCancel { [self] in cancel() }
    }

    /// Creates a transfer waiting for its head, its spill file's I/O on `spillQueue` (a serial
    /// queue of the file's own by default).
    package init(request: (method: HTTPMethod, url: URL), buffering: TransferBuffering, spillQueue: DispatchQueue? = nil) {
        self.state = Guarded(Core(request: request, buffering: buffering, spillQueue: spillQueue))
    }

    // MARK: Engine side

    /// The engine that carries the transfer; stopped at once when the transfer was cancelled.
    ///
    /// Attach again when the request is sent again (on a new connection): the new engine
    /// replaces the one that failed.
    ///
    /// - Parameter engine: What stops the transfer.
    public func attach(_ engine: some TransferEngine) {
        perform(state.withLock { $0.attach(engine) })
    }

    /// The response head arrived; a second one is ignored.
    ///
    /// - Parameter head: The head as the engine has it; the reader makes it a ``ResponseHead``.
    public func receive(head: some TransferHead) {
        perform(state.withLock { $0.receive(head: head) })
    }

    /// The largest announced body the built-in engines read whole before they hand the head to
    /// a caller who reads the body whole (``receive(head:holdingBodyUpTo:)``): 64 KiB.
    public static let wholeBodyLimit = 64 << 10

    /// The response head arrived for a caller who reads the body whole
    /// (``TransportRequest/readsBodyWhole``), with a body the engine expects to be small (its
    /// announced length is at most `limit`): the head is held back until the body has ended, so
    /// that the reader takes both at once, or until more than `limit` bytes came, when the body
    /// streams as after ``receive(head:)``. The engine is not asked to pause meanwhile.
    ///
    /// - Parameters:
    ///   - head: The head as the engine has it.
    ///   - limit: The most bytes of body to read before the head is handed over.
    public func receive(head: some TransferHead, holdingBodyUpTo limit: Int) {
        perform(state.withLock { $0.receive(head: head, holdingBodyUpTo: limit) })
    }

    /// A chunk of the body arrived.
    ///
    /// - Parameter chunk: The bytes; an empty chunk is ignored.
    /// - Returns: Whether the engine should pause now: pause it, then call ``paused(resumingWith:)``.
    @discardableResult
    public func receive(_ chunk: Data) -> Bool {
        let actions = state.withLock { $0.receive(chunk) }
        let pause = actions.pause
        perform(actions)
        return pause
    }

    /// The engine paused as ``receive(_:)`` asked.
    ///
    /// - Parameter resume: Lets the engine go on; called once, when the reader has caught up or
    ///   the transfer is over (at once when that happened meanwhile).
    public func paused(resumingWith resume: @escaping @Sendable () -> Void) {
        perform(state.withLock { $0.paused(resumingWith: resume) })
    }

    /// The engine finished the transfer; a second finish is ignored.
    ///
    /// - Parameter error: Why it failed, or `nil` when the body is complete. Before the head, a
    ///   finish without error fails the transfer too.
    public func finish(_ error: (any Error)?) {
        perform(state.withLock { $0.finish(error) })
    }

    /// Whether the transfer was cancelled.
    public var isCancelled: Bool {
        phase == .cancelled
    }

    /// Where the transfer stands.
    public var phase: TransferPhase {
        state.withLock { $0.phase }
    }

    // MARK: Reader side

    /// Waits for the response head.
    ///
    /// - Returns: The head.
    /// - Throws: The engine's failure before the head, or `CancellationError`.
    public func head() async throws -> ResponseHead {
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform(state.withLock { $0.waitForHead(.head(continuation)) })
            }
        } onCancel: {
            cancel()
        }
        return try head.responseHead()
    }

    /// The next chunk of the body, or `nil` at its end.
    ///
    /// - Returns: A chunk (what waited, joined up to a batch), or `nil`.
    /// - Throws: The engine's failure after what came, or `CancellationError`.
    public func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform(state.withLock { $0.waitForChunk(.chunk(continuation)) })
            }
        } onCancel: {
            cancel()
        }
    }

    /// The whole body at once, when the engine finished and all of it waits in memory; `nil`
    /// otherwise. Taking it ends the body: ``next()`` then returns `nil`.
    ///
    /// - Returns: The body, or `nil` when it must be read with ``next()``.
    package func takeWholeBody() -> Data? {
        state.withLock { $0.takeWholeBody() }.map(Self.joined)
    }

    /// Writes the rest of the body to `file` from `offset` as it arrives, on the file's queue
    /// (a download): no reader takes chunks any more, and nothing is read back.
    ///
    /// - Returns: Whether the body goes to the file; when not (no head yet, or part of the body
    ///   already waits on disk), read it with ``next()``.
    func sink(into file: SpillFile, at offset: Int) -> Bool {
        let (accepted, actions) = state.withLock { $0.sink(into: file, at: offset) }
        perform(actions)
        return accepted
    }

    /// Waits until a sunk body (``sink(into:at:)``) is all on disk.
    ///
    /// - Throws: The transfer's failure (the engine's, or the file's), or `CancellationError`.
    func waitForSink() async throws {
        _ = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform(state.withLock { $0.waitForSink(.chunk(continuation)) })
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the transfer and drops what is buffered; later waits throw `CancellationError`.
    public func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    // MARK: Actions

    /// Does what a transition decided; the lock is not held. A pause is the engine side's to do
    /// (``receive(_:)`` returns it).
    private func perform(_ actions: consuming Core.Actions) {
        if actions.isEmpty { return }
        for action in actions {
            switch action {
            case .resumeEngine(let resume):
                resume()
            case .resume(let waiter, let outcome):
                Self.resume(waiter, with: outcome)
            case .stop(let engine):
                // Never on this thread: it may be a cancellation handler's (see the type's notes).
                DispatchQueue.global().async { engine.stop() }
            case .pause, .release:
                // A pause is returned by ``receive(_:)``; what is released goes with `actions`.
                break
            case .spill(let file, let chunks, let offset):
                file.write(chunks, at: offset) { count, error in
                    self.perform(self.state.withLock { $0.spillWritten(count, error: error) })
                }
            case .readSpill(let file, let count, let offset):
                file.read(count, at: offset) { result in
                    self.perform(self.state.withLock { $0.spillRead(result) })
                }
            case .closeSpill(let file):
                file.close()
            case .waitForDisk(let wait):
                // Last in its transition, after the chunk's write was queued: the engine's thread
                // waits here, unlocked, until the spill file has written half of what it owes.
                wait.wait()
            case .diskCaughtUp(let wait):
                wait.signal()
            }
        }
    }

    private static func resume(_ waiter: Waiter, with outcome: TransferOutcome) {
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
