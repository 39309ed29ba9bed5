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

/// When a call started waiting on its transport, and for what. Waits end when the transport
/// answers, so the stages' own pauses (a retry's back-off) never count. The session's
/// ``Watchdog`` calls ``expire(at:)``, which cancels the trip's ``TransferHandle``: the trip fails
/// as itself, with no task or timer of its own.
final class IdleWatch: Sendable {
    /// What the call waits for.
    enum Phase: Sendable {
        case head
        case body
    }

    /// Invariant: `handle` is the trip's only while the call waits on it (`since` set); `expired`
    /// is cleared when a new trip starts.
    private struct State {
        var since: ContinuousClock.Instant?
        var phase = Phase.head
        var handle: TransferHandle?
        var expired: Phase?
    }

    let limit: Duration
    private let state = Guarded(State())

    init(limit: Duration) {
        self.limit = limit
    }

    /// The call starts waiting for `phase` on the trip `handle` cancels, or hears from the
    /// transport and waits again.
    func waiting(for phase: Phase, handle: TransferHandle? = nil) {
        let previous = state.withLock { state -> TransferHandle? in
            state.since = .now
            state.phase = phase
            guard let handle else { return nil }
            // A new trip (a retry after an expired one, say) starts with a clean slate.
            state.expired = nil
            defer { state.handle = handle }
            return state.handle
        }
        // An earlier trip's handle goes after the lock (see ``Guarded``).
        releaseUnlocked(previous)
    }

    /// The transport showed a sign of life (bytes of the request body sent) in the wait under way.
    func touch() {
        state.withLock { state in
            if state.since != nil { state.since = .now }
        }
    }

    /// The call stops waiting on the transport.
    func idle() {
        let handle = state.withLock { state -> TransferHandle? in
            state.since = nil
            return state.handle.take()
        }
        releaseUnlocked(handle)
    }

    /// The phase whose wait outlasted the limit, once ``expire(at:)`` found one.
    var expired: Phase? {
        state.withLock { $0.expired }
    }

    /// Cancels the trip when its wait has outlasted the limit at `now`.
    func expire(at now: ContinuousClock.Instant) {
        let handle = state.withLock { state -> TransferHandle? in
            guard state.expired == nil, let since = state.since, now - since >= limit else { return nil }
            state.expired = state.phase
            return state.handle
        }
        handle?.cancel()
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

// MARK: - Watchdog

/// One timer for the idle limits of a session's calls: while checks are registered, a single task
/// wakes every ``tick`` and runs them. Idle limits are thus enforced within a tick (50 ms), and a
/// call pays two locks for it instead of a task and a timer of its own (about 20 µs here).
///
/// Invariant, under the lock: `running` is true exactly while the timer task exists; it ends
/// when it finds no checks left.
final class Watchdog: Sendable {
    typealias Check = @Sendable (ContinuousClock.Instant) -> Void

    static let tick: Duration = .milliseconds(50)

    private let state = Guarded<(checks: [Int: Check], next: Int, running: Bool)>(([:], 0, false))

    /// Registers a check, run every tick until removed; returns its key for ``remove(_:)``.
    func add(_ check: @escaping Check) -> Int {
        let (key, start) = state.withLock { state -> (Int, Bool) in
            let key = state.next
            state.next += 1
            state.checks[key] = check
            defer { state.running = true }
            return (key, !state.running)
        }
        if start {
            Task { await self.run() }
        }
        return key
    }

    /// Drops a check.
    func remove(_ key: Int) {
        // The check holds a call's idle watch, and through it a trip's handle: released unlocked.
        let removed = state.withLock { $0.checks.removeValue(forKey: key) }
        releaseUnlocked(removed)
    }

    private func run() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let checks = state.withLock { state -> [(Int, Check)] in
                if state.checks.isEmpty { state.running = false }
                return state.checks.map { ($0.key, $0.value) }
            }
            if checks.isEmpty { return }
            let now = ContinuousClock.now
            for (_, check) in checks {
                check(now)
            }
        }
    }
}
