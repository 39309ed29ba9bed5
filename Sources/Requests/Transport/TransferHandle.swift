import Foundation

// MARK: - TransferHandle

/// The session's way to stop one transfer while the transport is still waiting for the head:
/// when one of the session's timeouts passes, it cancels the handle, and the transport stops the
/// transfer and throws, as it does when the calling task is cancelled.
///
/// ```swift
/// func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
///     let call = engine.start(request.urlRequest)
///     request.handle.onCancel { call.cancel() }
///     let head = try await call.head()        // throws once cancelled
///     ...
/// }
/// ```
///
/// The session does not cancel the calling task for its timeouts (that would leave the caller's
/// task cancelled): a transport honours the handle and task cancellation alike. A transport built
/// on ``TransferStream`` gets both from ``TransferStream/init(for:buffering:)``: the transfer is
/// the trip's one cancel point, and the handle and the reading task both end there.
///
/// The handle also carries what the engine can tell of the trip's phases
/// (``requestSent(at:)``, ``responseStarted(at:)``, ``connected(_:)``), which the session puts in
/// ``Response/timings``, the spans and the HAR entries; an engine that tells nothing leaves
/// them out.
public final class TransferHandle: Sendable {
    /// Invariant: once `cancelled` or `finished` is set, `actions` is empty and stays so; each
    /// phase mark is set once, by the first report.
    private struct State {
        var cancelled = false
        var finished = false
        var actions: [@Sendable () -> Void] = []
        var connection: ConnectionTimings?
        var requestSent: ContinuousClock.Instant?
        var responseStart: ContinuousClock.Instant?
    }

    private let state = Guarded(State())

    /// Creates a handle that is not cancelled.
    public init() {}

    /// Whether the transfer was cancelled.
    public var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    // MARK: Phases

    /// Reports how the trip's connection was found or made; the first report counts.
    ///
    /// - Parameter connection: Whether a connection was reused, and the phases that were timed.
    public func connected(_ connection: ConnectionTimings) {
        state.withLock { state in
            if state.connection == nil { state.connection = connection }
        }
    }

    /// Reports that the request's last byte, head and body, went to the network; the first
    /// report counts.
    ///
    /// - Parameter instant: When; now by default.
    public func requestSent(at instant: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if state.requestSent == nil { state.requestSent = instant }
        }
    }

    /// Reports that the response's first byte arrived; the first report counts. Without one,
    /// the session takes the moment the transport returned the head.
    ///
    /// - Parameter instant: When; now by default.
    public func responseStarted(at instant: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if state.responseStart == nil { state.responseStart = instant }
        }
    }

    /// Replaces the marks with an engine's own measurements, which are more exact than the
    /// moments its callbacks ran (`URLSessionTaskMetrics`, which arrive last).
    func measured(connection: ConnectionTimings?, requestSent: ContinuousClock.Instant?, responseStart: ContinuousClock.Instant?) {
        state.withLock { state in
            if let connection { state.connection = connection }
            if let requestSent { state.requestSent = requestSent }
            if let responseStart { state.responseStart = responseStart }
        }
    }

    /// The phases the engine reported so far, for a trip that started at `start`: what a
    /// transport that wraps another (a recorder) reads to time its own entries.
    ///
    /// - Parameter start: When the trip was handed to the transport.
    /// - Returns: The trip's timings, without ``TripTimings/responseEnd``.
    public func timings(start: ContinuousClock.Instant) -> TripTimings {
        state.withLock { state in
            TripTimings(start: start, connection: state.connection, requestSent: state.requestSent, responseStart: state.responseStart)
        }
    }

    /// Registers what stops the transfer; it runs once, on cancellation, or at once when the
    /// handle is already cancelled.
    ///
    /// - Parameter action: Stops the transfer; must not block.
    public func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            if !state.finished { state.actions.append(action) }
            return false
        }
        if runNow { action() }
    }

    /// Ends the handle's use without cancelling: the registered actions are released unrun, and
    /// later ones are dropped. The session calls it when a trip is over, so that what the actions
    /// hold (a transport's exchange, a body) is freed with the trip; call it when you drive a
    /// transport yourself and the exchange is over.
    public func finish() {
        // The actions are taken out and released after the lock: what they hold (a body whose
        // owner cancels its source on deinit, say) may deinitialise and call back in.
        let released = state.withLock { state -> [@Sendable () -> Void] in
            state.finished = true
            return state.actions.take()
        }
        releaseUnlocked(released)
    }

    /// Waits `duration`, as an engine waits for an answer: ending early with
    /// `CancellationError` when this handle or the calling task is cancelled. For transports that
    /// simulate a slow engine (stubs, tests).
    ///
    /// - Parameter duration: How long to wait.
    /// - Throws: `CancellationError` when the handle or the calling task was cancelled.
    public func sleep(for duration: Duration) async throws {
        let sleeper = Task { try await Task.sleep(for: duration) }
        onCancel { sleeper.cancel() }
        try await withTaskCancellationHandler {
            try await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        if isCancelled { throw CancellationError() }
    }

    /// Cancels the transfer: runs the registered actions, once.
    public func cancel() {
        let registered = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            return state.actions.take()
        }
        for action in registered {
            action()
        }
        releaseUnlocked(registered)
    }
}

extension Array {
    /// Empties the array and returns what it held, for releasing after a lock.
    mutating func take() -> [Element] {
        var taken: [Element] = []
        swap(&taken, &self)
        return taken
    }
}
