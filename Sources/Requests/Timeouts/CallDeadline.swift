import Foundation

// MARK: - DeadlineExceeded

/// A ``Race`` deadline passed before its operation finished.
struct DeadlineExceeded: Error {}

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

    /// Runs `operation`, racing it against `deadline` and against cancellation of the caller.
    ///
    /// - Parameters:
    ///   - deadline: How long to wait, or `nil` to wait for the operation however long it takes.
    ///   - operation: The work; it is cancelled when it loses.
    /// - Returns: The operation's value.
    /// - Throws: The operation's error, ``DeadlineExceeded``, or `CancellationError`.
    static func run(
        deadline: Duration?,
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
                if let end {
                    race.add(Task {
                        do {
                            try await Task.sleep(until: end, clock: .continuous)
                            race.finish(.failure(DeadlineExceeded()))
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
