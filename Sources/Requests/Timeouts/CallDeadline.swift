import Foundation

// MARK: - DeadlineExceeded

/// A ``Race`` deadline passed before its operation finished.
struct DeadlineExceeded: Error {}

// MARK: - Race

/// Runs an operation in its own task and returns its result, unless the deadline passes or the
/// calling task is cancelled first: then it throws at once and cancels the operation, without
/// waiting for the operation to wind down. The deadline is an alarm on the ``TimeoutClock``.
///
/// A task group would wait for the cancelled transfer to finish; on a busy machine `URLSession`
/// can take more than a second to report a cancellation, which would break the timeout promise.
/// Each continuation is resumed exactly once, by whichever of result, deadline or cancellation
/// comes first; the others find the race finished and do nothing.
///
/// Invariant, under the lock: once `outcome` is set, `continuation`, `operation` and `alarm` are
/// taken out, to be resumed, cancelled and dropped after the lock.
final class Race<Value: Sendable>: ClockAlarm {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
        var operation: Task<Void, Never>?
        var alarm: TimeoutClock.Key?
    }

    private let state = Guarded(State())
    private let clock: TimeoutClock

    private init(clock: TimeoutClock) {
        self.clock = clock
    }

    /// Runs `operation`, racing it against `deadline` and against cancellation of the caller.
    ///
    /// - Parameters:
    ///   - deadline: How long to wait, or `nil` to wait for the operation however long it takes.
    ///   - clock: The clock the deadline is kept on.
    ///   - operation: The work; it is cancelled when it loses.
    /// - Returns: The operation's value.
    /// - Throws: The operation's error, ``DeadlineExceeded``, or `CancellationError`.
    static func run(
        deadline: Duration?,
        clock: TimeoutClock = .shared,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race(clock: clock)
        // An instant, not a duration: an alarm that runs late must not end late.
        let end = deadline.map { ContinuousClock.now + $0 }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.install(continuation)
                race.start(Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }, deadline: end)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
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

    /// Keeps the operation's task, and sets the deadline's alarm.
    private func start(_ operation: Task<Void, Never>, deadline: ContinuousClock.Instant?) {
        let alarm = deadline.map { clock.schedule(at: $0, self) }
        let finished = state.withLock { state -> Bool in
            guard state.outcome == nil else { return true }
            state.operation = operation
            state.alarm = alarm
            return false
        }
        if finished {
            operation.cancel()
            alarm.map(clock.cancel)
        }
    }

    /// The deadline passed.
    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        finish(.failure(DeadlineExceeded()))
        return nil
    }

    private func finish(_ outcome: Result<Value, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?, TimeoutClock.Key?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            return (state.continuation.take(), state.operation.take(), state.alarm.take())
        }
        guard let (continuation, operation, alarm) = taken else { return }
        continuation?.resume(with: outcome)
        // The operation's cancellation handlers do not block (they stop engines on other threads).
        operation?.cancel()
        alarm.map(clock.cancel)
    }
}
