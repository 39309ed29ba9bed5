import Foundation

// MARK: - IdleExceeded

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
