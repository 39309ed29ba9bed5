import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - EventMonitor

/// Watches every call of a ``Session``: each trip to the transport, its outcome, and each retry.
///
/// Pass monitors to ``Session/init(transport:headers:timeout:idleTimeout:modifiers:interceptors:monitors:redirectPolicy:cookies:cache:options:)``.
/// For one call they see, in order: for each attempt, ``requestWillSend(_:attempt:)`` with the
/// request exactly as the transport gets it (after every interceptor), then either
/// ``requestDidReceive(_:attempt:)`` or ``requestDidFail(_:error:attempt:)``; between attempts,
/// ``requestWillRetry(_:attempt:delay:reason:)``. When the session's ``HTTPCache`` answers, with
/// a stored response or one a 304 confirmed, ``requestWasAnsweredFromCache(_:attempt:)`` follows
/// (after the 304's trip, if any). A call that fails outside the transport (a
/// timeout, an interceptor's error) ends with one ``requestDidFail(_:error:attempt:)``.
///
/// Methods are called on the request's task and should return quickly; every method has an
/// empty default, so implement only those you need.
public protocol EventMonitor: Sendable {
    /// A request is about to be handed to the transport.
    ///
    /// - Parameters:
    ///   - request: The request as it will be sent.
    ///   - attempt: Which trip this is; its duration is zero.
    func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt)

    /// A response arrived, whatever its status.
    ///
    /// - Parameters:
    ///   - response: The response, with the request that was sent and the trip's timing.
    ///   - attempt: Which trip this was, with its duration.
    func requestDidReceive(_ response: Response, attempt: RequestAttempt)

    /// A trip, or the whole call, failed without a response.
    ///
    /// - Parameters:
    ///   - request: The request that failed.
    ///   - error: Why: a ``RequestError``, or `CancellationError`.
    ///   - attempt: Which trip failed, with its duration; number 0 when no trip was made.
    func requestDidFail(_ request: OutgoingRequest, error: any Error, attempt: RequestAttempt)

    /// A retry stage will send the request again after a delay.
    ///
    /// - Parameters:
    ///   - request: The request that will be sent again.
    ///   - attempt: The trip that failed.
    ///   - delay: How long the stage waits first.
    ///   - reason: Why the trip failed, e.g. `status 503` or `connection lost`.
    func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String)

    /// The session's ``HTTPCache`` answered with a stored response: fresh, accepted stale, or
    /// confirmed by a 304 (``Response/cacheStatus`` says which).
    ///
    /// - Parameters:
    ///   - response: The response the cache made, with its current `Age`.
    ///   - attempt: The call's trips so far (number 0 when nothing went to the network).
    func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt)

    /// A stage that protects a server decided something for this call: a ``RetryBudget``
    /// refused a retry, say.
    ///
    /// - Parameters:
    ///   - event: What was decided, for which origin, and why.
    ///   - request: The request it concerns.
    ///   - attempt: The call's trips so far.
    func resilienceEvent(_ event: ResilienceEvent, request: OutgoingRequest, attempt: RequestAttempt)
}

extension EventMonitor {
    /// Does nothing.
    ///
    /// - Parameters:
    ///   - request: Unused.
    ///   - attempt: Unused.
    public func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {}

    /// Does nothing.
    ///
    /// - Parameters:
    ///   - response: Unused.
    ///   - attempt: Unused.
    public func requestDidReceive(_ response: Response, attempt: RequestAttempt) {}

    /// Does nothing.
    ///
    /// - Parameters:
    ///   - request: Unused.
    ///   - error: Unused.
    ///   - attempt: Unused.
    public func requestDidFail(_ request: OutgoingRequest, error: any Error, attempt: RequestAttempt) {}

    /// Does nothing.
    ///
    /// - Parameters:
    ///   - request: Unused.
    ///   - attempt: Unused.
    ///   - delay: Unused.
    ///   - reason: Unused.
    public func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String) {}

    /// Does nothing.
    ///
    /// - Parameters:
    ///   - response: Unused.
    ///   - attempt: Unused.
    public func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt) {}

    /// Does nothing.
    ///
    /// - Parameters:
    ///   - event: Unused.
    ///   - request: Unused.
    ///   - attempt: Unused.
    public func resilienceEvent(_ event: ResilienceEvent, request: OutgoingRequest, attempt: RequestAttempt) {}
}

// MARK: - MonitorGroup

/// Several monitors as one, called in the order given.
struct MonitorGroup: EventMonitor {
    let monitors: [any EventMonitor]

    func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
        for monitor in monitors { monitor.requestWillSend(request, attempt: attempt) }
    }

    func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        for monitor in monitors { monitor.requestDidReceive(response, attempt: attempt) }
    }

    func requestDidFail(_ request: OutgoingRequest, error: any Error, attempt: RequestAttempt) {
        for monitor in monitors { monitor.requestDidFail(request, error: error, attempt: attempt) }
    }

    func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String) {
        for monitor in monitors { monitor.requestWillRetry(request, attempt: attempt, delay: delay, reason: reason) }
    }

    func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt) {
        for monitor in monitors { monitor.requestWasAnsweredFromCache(response, attempt: attempt) }
    }

    func resilienceEvent(_ event: ResilienceEvent, request: OutgoingRequest, attempt: RequestAttempt) {
        for monitor in monitors { monitor.resilienceEvent(event, request: request, attempt: attempt) }
    }
}
