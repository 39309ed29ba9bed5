import Foundation

// MARK: - IdleExceeded

/// The transport was silent, while the call waited on it, for longer than the idle limit.
struct IdleExceeded: Error {
    let limit: Duration
    let phase: IdleWatch.Phase
}

// MARK: - IdleWatch

/// When a call started waiting on its transport, and for what. Waits end when the transport
/// answers, so the stages' own pauses (a retry's back-off) never count. An alarm on the
/// ``TimeoutClock`` looks at the wait when it could have run out, and cancels the trip's
/// ``TransferHandle`` when it has: the trip fails as itself.
///
/// Invariants, under the lock: `handle` is the trip's only while the call waits on it (`since`
/// set); `expired` is cleared when a new trip starts; `alarm` is set while an alarm is pending,
/// which one wait after another keeps (it asks to run again when the wait has moved on).
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
        var alarm: TimeoutClock.Key?
        var closed = false
    }

    let limit: Duration
    private let clock: TimeoutClock
    private let state = Guarded(State())

    init(limit: Duration, clock: TimeoutClock = .shared) {
        self.limit = limit
        self.clock = clock
    }

    /// The call starts waiting for `phase` on the trip `handle` cancels, or hears from the
    /// transport and waits again.
    func waiting(for phase: Phase, handle: TransferHandle? = nil) {
        let now = ContinuousClock.now
        let (previous, arm) = state.withLock { state -> (TransferHandle?, Bool) in
            state.since = now
            state.phase = phase
            var previous: TransferHandle?
            if let handle {
                // A new trip (a retry after an expired one, say) starts with a clean slate.
                state.expired = nil
                previous = state.handle
                state.handle = handle
            }
            return (previous, state.alarm == nil && !state.closed)
        }
        // An earlier trip's handle goes after the lock (see ``Guarded``).
        releaseUnlocked(previous)
        if arm { schedule(at: now + limit) }
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

    /// The call is over: its alarm goes.
    func close() {
        let (alarm, handle) = state.withLock { state in
            state.closed = true
            state.since = nil
            return (state.alarm.take(), state.handle.take())
        }
        alarm.map(clock.cancel)
        releaseUnlocked(handle)
    }

    /// The phase whose wait outlasted the limit, once it did.
    var expired: Phase? {
        state.withLock { $0.expired }
    }

    private func schedule(at instant: ContinuousClock.Instant) {
        let key = clock.schedule(at: instant) { [weak self] now in self?.check(at: now) }
        let closed = state.withLock { state -> Bool in
            if state.closed { return true }
            state.alarm = key
            return false
        }
        if closed { clock.cancel(key) }
    }

    /// The alarm: cancels the trip when its wait has outlasted the limit at `now`; answers when
    /// to look again while a wait goes on, or `nil` when none does (the next wait arms anew).
    private func check(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let (again, handle) = state.withLock { state -> (ContinuousClock.Instant?, TransferHandle?) in
            guard !state.closed, state.expired == nil, let since = state.since else {
                state.alarm = nil
                return (nil, nil)
            }
            guard now - since >= limit else { return (since + limit, nil) }
            state.expired = state.phase
            state.alarm = nil
            return (nil, state.handle)
        }
        handle?.cancel()
        return again
    }
}
