import Foundation

// MARK: - TimeoutExceeded

/// The verdict of a call's clock: one of its limits passed.
struct TimeoutExceeded: Error, Equatable {
    /// Which limit passed.
    enum Limit: Equatable {
        /// The call's deadline (its `timeout:`).
        case deadline
        /// The idle limit, while the call waited for this.
        case idle(CallClock.Wait)
    }

    let limit: Limit
    /// How long the limit was.
    let duration: Duration

    /// The limit in words, for ``RequestError``'s detail.
    var detail: String {
        switch limit {
        case .deadline: "no complete response within \(duration.phrase)"
        case .idle(.head), .idle(.cache), .idle(.queue): "no response head within \(duration.phrase)"
        case .idle(.body): "the body sent nothing for \(duration.phrase)"
        }
    }
}

// MARK: - ClockTarget

/// What a call's clock stops when a limit passes: the wait under way. Stopping never blocks.
enum ClockTarget: Sendable {
    /// A trip waiting for its head, or reading its body whole: its transfer.
    case trip(TransferHandle)
    /// A streamed body its reader waits on.
    case body(any ResponseBodySource)
    /// A wait of the session's own (the cache's wait for an identical request, a throttle's
    /// queue): ended; the stage decides what follows.
    case wait(@Sendable () -> Void)

    func stop() {
        switch self {
        case .trip(let handle): handle.cancel()
        case .body(let source): source.cancel()
        case .wait(let end): end()
        }
    }
}

// MARK: - CallClock

/// Every limit of one call, in one value: the deadline (`timeout:`, from the call until its
/// response is complete: the body read whole, streamed to its end, or in its file), and the idle
/// limit of each wait on the transport (the head, each chunk of a body, bytes of an upload going
/// out). It keeps one alarm at a time on the ``TimeoutClock`` (at the earlier of the deadline and
/// the idle limit of the wait under way), gives one verdict (``TimeoutExceeded``), and stops one
/// thing: the wait under way, which is the trip's transfer.
///
/// A wait that moves on (a chunk arrived) only notes the instant: the alarm, when it rings early,
/// answers when to ring again, so waits that move all the time cost a lock and nothing more.
///
/// Invariants, under the lock:
/// - `target` is set only while `wait` is (the clock holds the transfer only while it waits on it);
///   `standing`, a streamed body, until the call ends;
/// - `armed` is the instant of the one pending alarm (`key` its name once scheduled), `nil` when
///   none is pending; `armedSerial` tells a scheduling that lost to a newer one; a ring never
///   clears `key` (a superseded alarm may ring while a newer one is pending; cancelling a key that
///   is done does nothing);
/// - `verdict` is set by a ring only; an idle verdict is cleared when the next trip starts, the
///   deadline's is final; nothing is armed once `ended`.
final class CallClock: ClockAlarm {
    /// What the call waits for.
    enum Wait: Equatable, Sendable {
        case head
        case body
        /// Another call's request for the same cache key.
        case cache
        /// A slot of a ``Throttle``: not a wait on the transport, so only the deadline ends it.
        case queue

        /// Whether the idle limit bounds it.
        var isIdleBounded: Bool { self != .queue }
    }

    /// An alarm to schedule: when, the serial that tells it is still wanted, and the pending
    /// alarm it replaces.
    private struct Plan {
        let instant: ContinuousClock.Instant
        let serial: UInt64
        let old: TimeoutClock.Key?
    }

    private struct State {
        var wait: Wait?
        var since = ContinuousClock.now
        var target: ClockTarget?
        /// What the deadline stops even while nothing waits: a streamed body the caller holds.
        var standing: ClockTarget?
        var armed: ContinuousClock.Instant?
        var armedSerial: UInt64 = 0
        var key: TimeoutClock.Key?
        var verdict: TimeoutExceeded?
        var ended = false

        /// When the alarm must ring next: the deadline, or the idle limit of the wait under way.
        func due(deadline: ContinuousClock.Instant?, idle: Duration?) -> ContinuousClock.Instant? {
            let idleEnd = wait?.isIdleBounded == true ? idle.map { since + $0 } : nil
            switch (deadline, idleEnd) {
            case let (deadline?, idleEnd?): return min(deadline, idleEnd)
            case let (deadline?, nil): return deadline
            case let (nil, idleEnd): return idleEnd
            }
        }

        /// Takes the alarm's next instant as armed, and answers what to schedule: `nil` when the
        /// call ended or nothing is due.
        mutating func plan(deadline: ContinuousClock.Instant?, idle: Duration?) -> Plan? {
            guard !ended, let due = due(deadline: deadline, idle: idle) else { return nil }
            armed = due
            armedSerial &+= 1
            return Plan(instant: due, serial: armedSerial, old: key.take())
        }

        /// Whether the wait just begun is due before the pending alarm rings (or none is pending).
        func needsEarlierAlarm(deadline: ContinuousClock.Instant?, idle: Duration?) -> Bool {
            guard let due = due(deadline: deadline, idle: idle) else { return false }
            return armed.map { due < $0 } ?? true
        }
    }

    /// The call's timeout, `nil` for none.
    let timeout: Duration?
    /// The instant the call must be complete by.
    let deadline: ContinuousClock.Instant?
    /// The longest a wait on the transport may go without a sign of life; `nil` for none.
    let idleLimit: Duration?
    private let clock: TimeoutClock
    private let state = Guarded(State())

    /// A clock for a call that starts now.
    ///
    /// - Parameters:
    ///   - timeout: The call's deadline from now, or `nil` for none.
    ///   - idleLimit: The idle limit of each wait, or `nil` for none.
    ///   - clock: Where the alarm is kept.
    convenience init(timeout: Duration?, idleLimit: Duration?, clock: TimeoutClock = .shared) {
        self.init(timeout: timeout, deadline: timeout.map { ContinuousClock.now + $0 }, idleLimit: idleLimit, clock: clock)
    }

    /// A clock for one more trip of a call already under way (a hedge): the call's deadline,
    /// the same idle limit, and a wait of its own.
    func sibling() -> CallClock {
        CallClock(timeout: timeout, deadline: deadline, idleLimit: idleLimit, clock: clock)
    }

    private init(timeout: Duration?, deadline: ContinuousClock.Instant?, idleLimit: Duration?, clock: TimeoutClock) {
        self.timeout = timeout
        self.deadline = deadline
        // An idle limit no shorter than the deadline could never pass first.
        self.idleLimit = if let timeout, let idleLimit, idleLimit >= timeout { nil } else { idleLimit }
        self.clock = clock
        if deadline != nil { rearm() }
    }

    // MARK: The call's side

    /// A trip starts: an idle verdict of an earlier trip is forgotten (a retry starts with a
    /// clean slate).
    ///
    /// - Throws: ``TimeoutExceeded`` when the deadline passed already.
    func startTrip() throws {
        let passed = state.withLock { state -> Bool in
            if state.verdict?.limit != .deadline { state.verdict = nil }
            return state.verdict != nil
        }
        if passed || deadline.map({ ContinuousClock.now >= $0 }) == true, let timeout {
            throw TimeoutExceeded(limit: .deadline, duration: timeout)
        }
    }

    /// The call starts waiting for `wait`; a limit that passes stops `target`.
    ///
    /// - Throws: ``TimeoutExceeded`` when the deadline passed already (while nothing waited).
    func waiting(for wait: Wait, on target: ClockTarget) throws {
        let now = ContinuousClock.now
        if let deadline, now >= deadline, let timeout {
            throw TimeoutExceeded(limit: .deadline, duration: timeout)
        }
        let (plan, replaced) = state.withLock { state -> (Plan?, ClockTarget?) in
            guard !state.ended else { return (nil, nil) }
            state.wait = wait
            state.since = now
            let replaced = state.target.take()
            state.target = target
            // The alarm is planned in the same section: a call's first wait takes two locks of
            // its own, not three.
            return (state.needsEarlierAlarm(deadline: deadline, idle: idleLimit) ? state.plan(deadline: deadline, idle: idleLimit) : nil, replaced)
        }
        releaseUnlocked(replaced)
        if let plan { schedule(plan) }
    }

    /// The call's response is a streamed body the caller reads at its pace: the deadline stops it
    /// even between reads, so the connection does not stay open past it.
    func holds(_ body: any ResponseBodySource) {
        state.withLock { state in
            if !state.ended { state.standing = .body(body) }
        }
    }

    /// A sign of life in the wait under way (a chunk arrived, upload bytes went out).
    func heard() {
        let now = ContinuousClock.now
        state.withLock { state in
            if state.wait != nil { state.since = now }
        }
    }

    /// The wait under way is over; the clock lets go of its target.
    func stopped() {
        let target = state.withLock { state -> ClockTarget? in
            state.wait = nil
            return state.target.take()
        }
        // The target may be the last reference to a transfer: released after the lock.
        releaseUnlocked(target)
    }

    /// The verdict, once a limit passed.
    var verdict: TimeoutExceeded? {
        state.withLock { $0.verdict }
    }

    /// The call is over: its alarm goes.
    func end() {
        let (key, targets) = state.withLock { state -> (TimeoutClock.Key?, (ClockTarget?, ClockTarget?)) in
            state.ended = true
            state.wait = nil
            state.armed = nil
            return (state.key.take(), (state.target.take(), state.standing.take()))
        }
        key.map(clock.cancel)
        releaseUnlocked(targets)
    }

    // MARK: The alarm

    /// Schedules the alarm at the instant now due, replacing the pending one.
    private func rearm() {
        if let plan = state.withLock({ $0.plan(deadline: deadline, idle: idleLimit) }) { schedule(plan) }
    }

    /// Schedules the alarm a section planned, cancelling the one it replaces.
    private func schedule(_ plan: Plan) {
        plan.old.map(clock.cancel)
        let key = clock.schedule(at: plan.instant, self)
        let superseded = state.withLock { state -> Bool in
            guard !state.ended, state.armedSerial == plan.serial else { return true }
            state.key = key
            return false
        }
        if superseded { clock.cancel(key) }
    }

    /// Looks at the limits at `now`: stops the wait under way when one passed, and answers when
    /// to look again.
    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let (again, stop, standing) = state.withLock { state -> (ContinuousClock.Instant?, ClockTarget?, ClockTarget?) in
            guard !state.ended else { return (nil, nil, nil) }
            var stop: ClockTarget?
            var standing: ClockTarget?
            if let deadline, now >= deadline, let timeout {
                state.verdict = TimeoutExceeded(limit: .deadline, duration: timeout)
                state.wait = nil
                stop = state.target.take()
                standing = state.standing.take()
            } else if let wait = state.wait, wait.isIdleBounded, let idleLimit, now - state.since >= idleLimit {
                // The cache's wait ends without failing: the call goes to the network itself.
                if wait != .cache { state.verdict = TimeoutExceeded(limit: .idle(wait), duration: idleLimit) }
                state.wait = nil
                stop = state.target.take()
            }
            let again = state.verdict?.limit == .deadline ? nil : state.due(deadline: deadline, idle: idleLimit)
            state.armed = again
            return (again, stop, standing)
        }
        stop?.stop()
        standing?.stop()
        return again
    }
}

// MARK: - ClockHold

/// Ends a streamed call's clock when the body the call returned is done: read to its end, failed,
/// or its last copy and every iterator over it gone (a body dropped unread). Only the body the
/// session returns holds one; a body read inside the chain (a cache's tee) waits on the clock but
/// never ends it.
final class ClockHold: Sendable {
    let clock: CallClock

    init(_ clock: CallClock) {
        self.clock = clock
    }

    deinit {
        clock.end()
    }
}
