import Foundation

// MARK: - SilenceExceeded

/// A streamed body sent nothing, while its reader waited, for longer than `limit`.
struct SilenceExceeded: Error {
    let limit: Duration
}

// MARK: - SilenceTimer

/// Fails a body that sends nothing for `limit` while its reader waits: an alarm on the
/// ``TimeoutClock`` looks at the wait when it could have run out, and cancels the source when it
/// has.
///
/// Invariants, under the lock: `alarm` is set while an alarm is pending, and none is set once
/// `stopped`; `fired` is set once, before the source is cancelled.
final class SilenceTimer: ClockAlarm {
    private struct State {
        var since: ContinuousClock.Instant?
        var fired = false
        var stopped = false
        var alarm: TimeoutClock.Key?
    }

    let limit: Duration
    private let source: any ResponseBodySource
    private let clock: TimeoutClock
    private let state = Guarded(State())

    init(limit: Duration, source: any ResponseBodySource, clock: TimeoutClock = .shared) {
        self.limit = limit
        self.source = source
        self.clock = clock
    }

    var fired: Bool { state.withLock { $0.fired } }

    /// The reader starts (`true`) or stops (`false`) waiting for a chunk.
    func waiting(_ isWaiting: Bool) {
        let now = ContinuousClock.now
        let arm = state.withLock { state -> Bool in
            state.since = isWaiting ? now : nil
            return isWaiting && state.alarm == nil && !state.stopped
        }
        guard arm else { return }
        let key = clock.schedule(at: now + limit, self)
        let stopped = state.withLock { state -> Bool in
            if state.stopped { return true }
            state.alarm = key
            return false
        }
        if stopped { clock.cancel(key) }
    }

    /// The alarm: fails the body when the wait under way has lasted `limit`; answers when to look
    /// again while a wait goes on, or `nil` when none does (the next wait arms anew).
    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let (again, fire) = state.withLock { state -> (ContinuousClock.Instant?, Bool) in
            guard !state.stopped, let since = state.since else {
                state.alarm = nil
                return (nil, false)
            }
            guard now - since >= limit else { return (since + limit, false) }
            state.fired = true
            state.alarm = nil
            return (nil, true)
        }
        if fire { source.cancel() }
        return again
    }

    /// The reader finished: the alarm goes.
    func stop() {
        let alarm = state.withLock { state -> TimeoutClock.Key? in
            state.stopped = true
            return state.alarm.take()
        }
        alarm.map(clock.cancel)
    }
}
