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
/// ``IdleSweep`` looks at every call's wait on each ring and cancels the trip's
/// ``TransferHandle`` when the wait has outlasted the limit: the trip fails as itself.
///
/// Invariant, under the lock: `handle` is the trip's only while the call waits on it (`since`
/// set); `expired` is cleared when a new trip starts.
final class IdleWatch: Sendable {
    /// What the call waits for.
    enum Phase: Sendable {
        case head
        case body
    }

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

    /// The phase whose wait outlasted the limit, once it did.
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

// MARK: - IdleSweep

/// The idle limits of one session's calls, looked at together by one alarm on the
/// ``TimeoutClock`` that rings every ``interval`` while calls are registered: a call pays two
/// locks for its idle limit, not an alarm of its own (which costs about a microsecond a call on
/// the in-memory path), and a limit is enforced within an interval.
///
/// Invariant, under the lock: `armed` is true exactly while the alarm is pending on the clock; it
/// is cleared by the ring that finds no call registered.
final class IdleSweep: ClockAlarm {
    static let interval: Duration = .milliseconds(50)

    private let clock: TimeoutClock
    private let state = Guarded<(watches: [Int: IdleWatch], next: Int, armed: Bool)>(([:], 0, false))

    init(clock: TimeoutClock = .shared) {
        self.clock = clock
    }

    /// Registers a call's watch; returns its key for ``remove(_:)``.
    func add(_ watch: IdleWatch) -> Int {
        let (key, arm) = state.withLock { state -> (Int, Bool) in
            let key = state.next
            state.next += 1
            state.watches[key] = watch
            defer { state.armed = true }
            return (key, !state.armed)
        }
        if arm { clock.schedule(at: .now + Self.interval, self) }
        return key
    }

    /// Drops a call's watch.
    func remove(_ key: Int) {
        // The watch holds a trip's handle: released unlocked.
        let removed = state.withLock { $0.watches.removeValue(forKey: key) }
        releaseUnlocked(removed)
    }

    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let watches = state.withLock { state -> [IdleWatch] in
            if state.watches.isEmpty { state.armed = false }
            return Array(state.watches.values)
        }
        if watches.isEmpty { return nil }
        for watch in watches {
            watch.expire(at: now)
        }
        return now + Self.interval
    }
}
