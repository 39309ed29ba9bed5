import Foundation

// MARK: - RequestContext

/// What the stages of one call share: who it is, when it must end, what has been tried.
public struct RequestContext: Sendable {
    /// A number that identifies the call among this process's calls; every attempt of a call
    /// carries the same one.
    public let id: Int
    /// When the call's timeout ends, or `nil` without a timeout. Retries do not sleep past it.
    public let deadline: ContinuousClock.Instant?
    /// The origins the session serves, from its ``ServerEnvironment`` stages: where credentials
    /// may go by default.
    public let serverOrigins: [Origin]
    /// The session's monitors as one; interceptors report ``EventMonitor/requestWillRetry(_:attempt:delay:reason:)``
    /// through it. Does nothing when the session has none.
    public let monitor: any EventMonitor
    let attempts: Guarded<CallProgress>
    /// The call's spans and metrics (trait `Tracing`), or `nil` when nothing listens.
    let observer: (any CallObserver)?

    init(deadline: ContinuousClock.Instant?, serverOrigins: [Origin], monitors: (any EventMonitor)?, observer: (any CallObserver)? = nil) {
        let attempts = Guarded(CallProgress())
        self.id = Self.nextID()
        self.deadline = deadline
        self.serverOrigins = serverOrigins
        self.monitor = monitors.map { CallMonitor(monitors: $0, attempts: attempts) } ?? NoMonitor()
        self.attempts = attempts
        self.observer = observer
    }

    /// How many times this call has reached the transport so far.
    public var attemptCount: Int {
        attempts.withLock { $0.count }
    }

    /// Records that the call waited for a throttle slot: in ``Response/timings`` and the call's span.
    func queued(for wait: Duration) {
        attempts.withLock { progress in
            progress.timings.queued = (progress.timings.queued ?? .zero) + wait
        }
        observer?.queued(for: wait)
    }

    /// Records a trip's phases; returns the call's timings so far.
    func record(_ trip: TripTimings) -> Timings {
        attempts.withLock { progress in
            progress.timings.trips.append(trip)
            return progress.timings
        }
    }

    /// The call's timings so far.
    var timings: Timings {
        attempts.withLock { $0.timings }
    }

    /// A new, process-wide unique call number.
    private static func nextID() -> Int {
        counter.withLock { value in
            value += 1
            return value
        }
    }

    private static let counter = Guarded(0)
}

/// The attempts of one call. Invariant: `count` only grows; once `finished` is set, the call has
/// returned or thrown to its caller and no stage reports events for it any more.
struct CallProgress {
    var count = 0
    var finished = false
    /// Whether the last attempt's failure was already reported to the monitors.
    var failureReported = false
    /// The throttle's wait and each trip's phases so far.
    var timings = Timings()
}

// MARK: - RequestAttempt

/// One trip of a request to the transport, as monitors see it.
public struct RequestAttempt: Sendable, Hashable {
    /// The call's ``RequestContext/id``.
    public let callID: Int
    /// 1 for the first trip, 2 for the first retry, …; 0 for a call that failed before any trip.
    public let number: Int
    /// When the trip started.
    public let start: ContinuousClock.Instant
    /// How long the trip took; zero when it has just started.
    public let duration: Duration

    /// Creates an attempt record.
    ///
    /// - Parameters:
    ///   - callID: The call's identifier.
    ///   - number: The trip's number, from 1.
    ///   - start: When it started.
    ///   - duration: How long it took so far.
    public init(callID: Int, number: Int, start: ContinuousClock.Instant, duration: Duration = .zero) {
        self.callID = callID
        self.number = number
        self.start = start
        self.duration = duration
    }
}
