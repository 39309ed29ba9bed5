import Foundation

// MARK: - DeadlineExceeded

/// A ``Race`` deadline passed before its operation finished.
struct DeadlineExceeded: Error {}

/// The transport was silent, while the call waited on it, for longer than the idle limit.
struct IdleExceeded: Error {
    let limit: Duration
    let phase: IdleWatch.Phase
}

// MARK: - IdleWatch

/// When a call started waiting on its transport, and for what; the ``Race`` timer fails the call
/// when one wait lasts longer than the idle limit. Waits end when the transport answers, so the
/// stages' own pauses (a retry's back-off) never count.
final class IdleWatch: Sendable {
    /// What the call waits for.
    enum Phase: Sendable {
        case head
        case body
    }

    private let state = Guarded<(since: ContinuousClock.Instant?, phase: Phase)>((nil, .head))

    /// The call starts waiting for `phase`, or hears from the transport and waits again.
    func waiting(for phase: Phase) {
        state.withLock { $0 = (.now, phase) }
    }

    /// The call stops waiting on the transport.
    func idle() {
        state.withLock { $0.since = nil }
    }

    fileprivate var current: (since: ContinuousClock.Instant?, phase: Phase) {
        state.withLock { $0 }
    }
}

// MARK: - Race

/// Runs an operation in its own task and returns its result, unless the deadline passes or the
/// calling task is cancelled first: then it throws at once and cancels the operation, without
/// waiting for the operation to wind down.
///
/// A task group would wait for the cancelled transfer to finish; on a busy machine `URLSession`
/// can take more than a second to report a cancellation, which would break the timeout promise.
/// Each continuation is resumed exactly once, by whichever of result, deadline or cancellation
/// comes first; the others find the race finished and do nothing.
final class Race<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Guarded(State())

    private init() {}

    /// Runs `operation`, racing it against `deadline`, against a wait on the transport longer
    /// than `idle`, and against cancellation of the caller.
    ///
    /// - Parameters:
    ///   - deadline: How long to wait, or `nil` to wait for the operation however long it takes.
    ///   - idle: The longest single wait on the transport, and the watch the operation reports
    ///     its waits to; `nil` for no such limit.
    ///   - operation: The work; it is cancelled when it loses.
    /// - Returns: The operation's value.
    /// - Throws: The operation's error, ``DeadlineExceeded``, ``IdleExceeded``, or `CancellationError`.
    static func run(
        deadline: Duration?,
        idle: (limit: Duration, watch: IdleWatch)? = nil,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race()
        // An instant, not a duration: a timer task that starts late must not end late.
        let end = deadline.map { ContinuousClock.now + $0 }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.install(continuation)
                race.add(Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                })
                if end != nil || idle != nil {
                    race.add(Task {
                        do {
                            race.finish(.failure(try await Self.timer(until: end, idle: idle)))
                        } catch {
                            // Cancelled because the operation finished first.
                        }
                    })
                }
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// Sleeps until the deadline passes or a wait on the transport outlasts the idle limit, and
    /// returns which; throws when cancelled.
    private static func timer(until end: ContinuousClock.Instant?, idle: (limit: Duration, watch: IdleWatch)?) async throws -> any Error {
        while true {
            var wake = end
            if let idle {
                let since = idle.watch.current.since ?? .now
                wake = min(wake ?? since + idle.limit, since + idle.limit)
            }
            guard let wake else { return DeadlineExceeded() }
            try await Task.sleep(until: wake, clock: .continuous)
            let now = ContinuousClock.now
            if let end, now >= end {
                return DeadlineExceeded()
            }
            if let idle {
                let (since, phase) = idle.watch.current
                if let since, now - since >= idle.limit {
                    return IdleExceeded(limit: idle.limit, phase: phase)
                }
            }
        }
    }

    private func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let finished: Result<Value, any Error>? = state.withLock { state in
            if state.outcome == nil {
                state.continuation = continuation
            }
            return state.outcome
        }
        if let finished {
            continuation.resume(with: finished)
        }
    }

    private func add(_ task: Task<Void, Never>) {
        let finished = state.withLock { state in
            if state.outcome == nil {
                state.tasks.append(task)
            }
            return state.outcome != nil
        }
        if finished {
            task.cancel()
        }
    }

    private func finish(_ outcome: Result<Value, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
            guard state.outcome == nil else { return (nil, []) }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        // Resume first: cancelling the transfer can block this thread on Linux, where
        // `URLSessionTask.cancel()` waits for the session's queue, which a hostile response
        // (100,000 headers) can keep busy for seconds.
        continuation?.resume(with: outcome)
        for task in tasks {
            task.cancel()
        }
    }
}
