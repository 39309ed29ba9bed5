import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - CircuitBreaker

/// An ``Interceptor`` that stops calling an origin that keeps failing: after a number of failures
/// in a row (or a failure rate over a window), calls to it fail at once, without a request, until
/// one probe call finds it well again.
///
/// ```swift
/// let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(5), probeAfter: .seconds(5))
/// let session = Session(interceptors: [RetryPolicy(), breaker])
/// ```
///
/// - **Closed**: calls go through; each outcome counts for the origin (scheme, host and port).
///   Failures by default are transport failures, timeouts and 5xx statuses, never 4xx
///   (``isFailure``); a cancelled call counts as nothing.
/// - **Open**: past the threshold, a call fails at once with ``RequestError/Code/circuitOpen``,
///   whose detail names the origin, why the circuit opened and when it will probe.
/// - **Half-open**: once ``probeAfter`` has passed, the next call goes through as the one probe;
///   the others still fail at once while it runs. Its success closes the circuit; its failure
///   opens it again for another ``probeAfter``; a cancelled probe lets the next call probe.
///
/// Put it after (inside) a ``RetryPolicy`` so that each try counts, and a retry meets the open
/// circuit instead of the server (``RequestError/Code/circuitOpen`` is not retried). Monitors
/// hear ``EventMonitor/resilienceEvent(_:request:attempt:)`` as the circuit opens, half-opens
/// and closes. A call with ``RequestOptions/usesCircuitBreaker`` off (a health check) goes
/// through and counts for nothing. Copies share their circuits.
public struct CircuitBreaker: Interceptor {
    /// When a closed circuit opens.
    public enum Threshold: Sendable, Hashable {
        /// After this many failures in a row.
        case consecutiveFailures(Int)
        /// When at least `minimumCalls` calls ended in `window` and this share of them failed.
        case failureRate(Double, minimumCalls: Int, window: Duration)
    }

    /// When a closed circuit opens.
    public let threshold: Threshold
    /// How long an open circuit fails calls before it lets one probe through.
    public let probeAfter: Duration
    /// Whether an outcome counts as a failure.
    public let isFailure: @Sendable (Result<Response, any Error>) -> Bool
    let board: CircuitBoard

    /// Creates a breaker.
    ///
    /// - Parameters:
    ///   - opensAfter: When a closed circuit opens; 5 failures in a row by default.
    ///   - probeAfter: How long an open circuit fails calls before one probe; 5 s by default.
    ///   - isFailure: Whether an outcome counts as a failure; ``countsAsFailure(_:)`` by default.
    public init(
        opensAfter: Threshold = .consecutiveFailures(5),
        probeAfter: Duration = .seconds(5),
        isFailure: @escaping @Sendable (Result<Response, any Error>) -> Bool = CircuitBreaker.countsAsFailure
    ) {
        self.init(opensAfter: opensAfter, probeAfter: probeAfter, isFailure: isFailure, now: { .now })
    }

    /// A breaker whose time is `now`'s: tests move it by hand.
    init(opensAfter: Threshold = .consecutiveFailures(5), probeAfter: Duration = .seconds(5),
         isFailure: @escaping @Sendable (Result<Response, any Error>) -> Bool = CircuitBreaker.countsAsFailure,
         now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.threshold = switch opensAfter {
        case .consecutiveFailures(let count): .consecutiveFailures(max(1, count))
        case .failureRate(let rate, let minimum, let window):
            .failureRate(rate.isFinite ? min(1, max(0, rate)) : 1, minimumCalls: max(1, minimum), window: max(.milliseconds(10), window))
        }
        self.probeAfter = max(.zero, probeAfter)
        self.isFailure = isFailure
        self.board = CircuitBoard(threshold: threshold, probeAfter: self.probeAfter, now: now)
    }

    /// Transport failures, timeouts and 5xx statuses; never a 4xx, never a cancellation.
    ///
    /// - Parameter outcome: A call's outcome.
    /// - Returns: Whether it counts as a failure of the server.
    @Sendable public static func countsAsFailure(_ outcome: Result<Response, any Error>) -> Bool {
        switch outcome {
        case .success(let response): response.statusCode >= 500
        case .failure(let error as RequestError): error.code == .transportFailed || error.code == .timedOut
        case .failure: false
        }
    }

    /// Fails the call at once while the origin's circuit is open; else sends it and counts its outcome.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response of the rest of the chain.
    /// - Throws: ``RequestError/Code/circuitOpen`` while the circuit is open; what the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        guard request.options.usesCircuitBreaker else { return try await next(request) }
        let key = request.originKey
        let (admission, events) = board.admit(key)
        report(events, request: request, next: next)
        let probe: Bool
        switch admission {
        case .reject(let detail): throw RequestError(.circuitOpen, method: request.method, url: request.url, detail: detail)
        case .pass(let isProbe): probe = isProbe
        }
        let outcome: Result<Response, any Error>
        do {
            outcome = .success(try await next(copy request))
        } catch {
            outcome = .failure(error)
        }
        let failed: Bool? = if case .failure(let error) = outcome, error is CancellationError || Task.isCancelled { nil } else { isFailure(outcome) }
        let reason = Self.reason(outcome)
        let changes = board.record(key, probe: probe, failed: failed, reason: reason)
        report(changes, request: request, next: next)
        return try outcome.get()
    }

    private func report(_ events: [ResilienceEvent], request: borrowing OutgoingRequest, next: Next) {
        for event in events { next.context.report(event, request: request) }
    }

    /// An outcome in a few words: `status 503`, `transportFailed`.
    private static func reason(_ outcome: Result<Response, any Error>) -> String {
        switch outcome {
        case .success(let response): "status \(response.statusCode)"
        case .failure(let error as RequestError): error.transportErrorKind.map { RetryPolicy.describe($0) } ?? "\(error.code)"
        case .failure(let error): "\(type(of: error))"
        }
    }

    /// The state of `request`'s origin's circuit now: `closed`, `open` or `half-open`.
    ///
    /// - Parameter request: A request to the origin.
    /// - Returns: The state's name.
    public func state(for request: OutgoingRequest) -> String {
        board.state(request.originKey)
    }
}

// MARK: - The option

extension RequestOptions {
    /// Whether a ``CircuitBreaker`` applies to this call; `true` unless set. A call with it off
    /// (a health check, say) goes through an open circuit and counts for nothing.
    public var usesCircuitBreaker: Bool {
        get { self[UsesCircuitBreakerOption.self] }
        set { self[UsesCircuitBreakerOption.self] = newValue }
    }
}

enum UsesCircuitBreakerOption: RequestOptionKey {
    static let defaultValue = true
}
