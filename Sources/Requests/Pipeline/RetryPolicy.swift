import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RetryPolicy

/// An ``Interceptor`` that sends a request again when it failed in a way that may pass: a status
/// such as 503, or a dropped connection.
///
/// ```swift
/// let session = Session(interceptors: [RetryPolicy()])                   // 3 tries in all
/// let patient = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(200), maxDelay: .seconds(10))
/// ```
///
/// - Waits between tries grow exponentially with full jitter: a random time between zero and
///   `min(maxDelay, baseDelay × 2^(try - 1))`. A response's `Retry-After` (seconds or an HTTP date)
///   replaces that wait, capped by ``maxDelay``.
/// - Only idempotent methods are retried (``methods``), unless the request carries an
///   `Idempotency-Key` header, which says the server can tell a repeat from a new request.
/// - A cancelled call is never retried, and cancelling during a wait ends it at once. A wait that
///   would end after the call's timeout is not started: the last outcome is returned instead.
/// - Under a ``RetryBudget`` stage (before this one), each retry is taken from the budget of the
///   request's origin; one it refuses is not sent, and the last outcome is returned, its
///   ``FailedAttempt`` saying so.
/// - When the tries run out, the last response is returned (validate it to throw) or the last error
///   thrown; either carries ``FailedAttempt`` records, shown in the error's description.
public struct RetryPolicy: Interceptor {
    /// Methods retried without an `Idempotency-Key`: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]
    /// Status codes retried by default: 408, 429, 500, 502, 503, 504.
    public static let retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Transport failures retried by default, whatever the transport: timed out, cannot connect,
    /// connection lost and DNS failures.
    public static let retryableTransportErrors: Set<TransportError.Kind> = [.timedOut, .cannotConnect, .connectionLost, .dnsFailed]

    /// Tries in all, the first included; 1 turns retrying off.
    public var maxAttempts: Int
    /// The first back-off wait's upper bound; it doubles with each try.
    public var baseDelay: Duration
    /// The longest wait, for back-off and `Retry-After` alike.
    public var maxDelay: Duration
    /// Methods that are retried.
    public var methods: Set<HTTPMethod>
    /// Response status codes that are retried.
    public var statusCodes: Set<Int>
    /// Kinds of transport failure that are retried (read from ``RequestError/transportErrorKind``).
    public var transportErrors: Set<TransportError.Kind>
    /// Draws the jitter: a value in the given range. Tests replace it.
    var random: @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maxAttempts: Tries in all, the first included; 3 by default.
    ///   - baseDelay: The first back-off wait's upper bound; 0.5 s by default.
    ///   - maxDelay: The longest wait, for back-off and `Retry-After`; 30 s by default.
    ///   - methods: Methods retried without an `Idempotency-Key`; ``idempotentMethods`` by default.
    ///   - statusCodes: Status codes retried; ``retryableStatusCodes`` by default.
    ///   - transportErrors: Kinds of transport failure retried; ``retryableTransportErrors`` by default.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        methods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        statusCodes: Set<Int> = RetryPolicy.retryableStatusCodes,
        transportErrors: Set<TransportError.Kind> = RetryPolicy.retryableTransportErrors
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(.zero, baseDelay)
        self.maxDelay = max(.zero, maxDelay)
        self.methods = methods
        self.statusCodes = statusCodes
        self.transportErrors = transportErrors
    }

    /// Sends the request, and again after a wait while it fails in a retryable way.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The first response that is not retried; after retries it lists the failed tries
    ///   in ``Response/failedAttempts``.
    /// - Throws: The last error, listing the failed tries in ``RequestError/failedAttempts``;
    ///   `CancellationError` when cancelled, also during a wait.
    public func intercept(_ request: OutgoingRequest, next: Next) async throws -> Response {
        guard maxAttempts > 1, request.options.retries, allowsRetry(of: request) else {
            return try await next(request)
        }
        var failures: [FailedAttempt] = []
        for number in 1... {
            let start = ContinuousClock.now
            let outcome: Result<Response, any Error>
            do {
                outcome = .success(try await next(request))
            } catch {
                outcome = .failure(error)
            }
            guard let (failure, wait) = retryable(outcome, number: number, start: start) else {
                return try finished(outcome, failures: failures)
            }
            failures.append(failure)
            guard number < maxAttempts else {
                return try finished(outcome, failures: failures)
            }
            if let deadline = next.context.deadline, ContinuousClock.now + wait >= deadline {
                failures[failures.count - 1] = failure.notRetried("waiting \(wait) would pass the call's timeout")
                return try finished(outcome, failures: failures)
            }
            // Asked last, so that a retry refused for another reason takes nothing from it.
            if let refusal = request.options.retryBudget?.refusal(for: request, context: next.context) {
                failures[failures.count - 1] = failure.notRetried(refusal)
                return try finished(outcome, failures: failures)
            }
            let trip = RequestAttempt(callID: next.context.id, number: next.context.attemptCount, start: start, duration: failure.duration)
            next.context.monitor.requestWillRetry(request, attempt: trip, delay: wait, reason: failure.reason)
            try await Task.sleep(for: wait)
        }
        // `1...` never ends; the loop returns or throws.
        return try await next(request)
    }

    /// Whether the request's method may be sent twice.
    func allowsRetry(of request: OutgoingRequest) -> Bool {
        methods.contains(request.method) || request.headers["Idempotency-Key"] != nil
    }

    /// The failure record and the wait before the next try, or `nil` when the outcome is final.
    private func retryable(_ outcome: Result<Response, any Error>, number: Int, start: ContinuousClock.Instant) -> (FailedAttempt, Duration)? {
        let duration = ContinuousClock.now - start
        switch outcome {
        case .success(let response):
            guard statusCodes.contains(response.statusCode) else { return nil }
            let failure = FailedAttempt(number: number, reason: "status \(response.statusCode)", statusCode: response.statusCode, duration: duration)
            let wait = Self.retryAfter(response).map { min($0, maxDelay) } ?? backoff(after: number)
            return (failure, wait)
        case .failure(let error):
            guard !Task.isCancelled, let reason = transportReason(error) else { return nil }
            return (FailedAttempt(number: number, reason: reason, error: error, duration: duration), backoff(after: number))
        }
    }

    /// The reason to retry a transport failure, or `nil` when it is not retried.
    private func transportReason(_ error: any Error) -> String? {
        guard let error = error as? RequestError, error.code == .transportFailed || error.code == .timedOut,
              let kind = error.transportErrorKind, transportErrors.contains(kind)
        else { return nil }
        return Self.describe(kind)
    }

    /// The back-off wait after try `number`: full jitter under an exponential bound.
    func backoff(after number: Int) -> Duration {
        let bound = min(maxDelay.seconds, baseDelay.seconds * pow(2, Double(min(number - 1, 62))))
        return .seconds(bound > 0 ? random(0...bound) : 0)
    }

    /// The outcome with the failed tries attached.
    private func finished(_ outcome: Result<Response, any Error>, failures: [FailedAttempt]) throws -> Response {
        switch outcome {
        case .success(var response):
            response.failedAttempts = failures
            return response
        case .failure(var error as RequestError) where !failures.isEmpty:
            error.failedAttempts = failures
            throw error
        case .failure(let error):
            throw error
        }
    }
}
