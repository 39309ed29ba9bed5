import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Hedging

/// An ``Interceptor`` that cuts the slow tail: when a call that may be sent twice has no answer
/// after a delay, it sends the same request again beside the first, takes the first acceptable
/// answer and cancels the others (their bodies are never read; over HTTP/2 their streams reset).
///
/// ```swift
/// let hedging = Hedging()                        // after 1.5 × the origin's 95th percentile
/// let session = Session(interceptors: [RetryBudget(), RetryPolicy(), hedging])
/// let fixed = Hedging(after: .fixed(.milliseconds(80)), maxAttempts: 3)
/// ```
///
/// - **Which calls**: idempotent methods (``methods``), or a request with an `Idempotency-Key`
///   header, whose body can be read again (in memory or a file, not a stream), in a call that
///   reads its body whole (`request`, `data`, `decode`; a `stream` or `download` goes once).
///   ``RequestOptions/hedges`` turns it off for one call.
/// - **When**: ``Delay/fixed(_:)``, or ``Delay/percentile(_:scale:minimum:)`` of the latencies of
///   the origin's last 512 answers (each answer's own trip, so a stall a hedge cut short does not
///   raise the delay). Until an origin has given ``minimumSamples`` answers, its calls go once.
/// - **How many**: at most ``maxAttempts`` trips a call, and at most ``maxShare`` of the origin's
///   calls over the last 10 s hedged; under a ``RetryBudget`` stage (before this one), each hedge
///   also takes a retry from the budget, so that hedges and retries share one cap on load.
/// - **Which answer**: the first that is not an error nor a status in ``statusCodes``. One that
///   is, while another trip runs, waits for that trip; the last one is the call's outcome.
///   A trip that fails before the delay ends the call: retrying it is ``RetryPolicy``'s job.
/// - **Reported**: ``Response/winningAttempt`` says which trip answered; the monitors and the
///   span hear ``ResilienceEvent/Kind/hedgeSent`` and, when a hedge won,
///   ``ResilienceEvent/Kind/hedgeWon``.
///
/// Put it after (inside) ``RetryPolicy`` and ``CircuitBreaker``: each try may be hedged, and the
/// breaker counts the hedged call once. Copies share their latencies and their count of hedges.
public struct Hedging: Interceptor {
    /// How long a call waits for an answer before the next trip is sent.
    public enum Delay: Sendable, Hashable {
        /// Always this long.
        case fixed(Duration)
        /// `scale` times the `fraction` percentile (0.95: the 95th) of the origin's recent
        /// latencies, and never less than `minimum`. A scale above 1 keeps a call that is merely
        /// in the usual tail from being hedged: at 1, `fraction` 0.95 hedges 5% of the calls of
        /// a healthy origin; at 1.5, far fewer, while a stall (many times the usual) is still cut.
        case percentile(Double, scale: Double = 1.5, minimum: Duration = .milliseconds(5))
    }

    /// Answers of an origin seen before its calls are hedged by percentile.
    public static let minimumSamples = 20

    /// How long a call waits for an answer before the next trip is sent.
    public let delay: Delay
    /// Trips in all, the first included; 1 turns hedging off.
    public let maxAttempts: Int
    /// The share of an origin's calls over the last 10 s that may be hedged.
    public let maxShare: Double
    /// Methods hedged without an `Idempotency-Key`.
    public let methods: Set<HTTPMethod>
    /// Statuses that are not an acceptable answer while another trip runs.
    public let statusCodes: Set<Int>
    let latencies = LatencyBoard()
    let ledger: RetryLedger

    /// Creates a hedging stage.
    ///
    /// - Parameters:
    ///   - after: When to send the next trip; `.percentile(0.95)` (scaled by 1.5, at least 5 ms)
    ///     by default.
    ///   - maxAttempts: Trips in all, the first included; 2 by default.
    ///   - maxShare: The share of an origin's calls that may be hedged; 0.1 by default.
    ///   - methods: Methods hedged without an `Idempotency-Key`; ``RetryPolicy/idempotentMethods``
    ///     by default.
    ///   - statusCodes: Statuses not accepted while another trip runs;
    ///     ``RetryPolicy/retryableStatusCodes`` by default.
    public init(
        after: Delay = .percentile(0.95),
        maxAttempts: Int = 2,
        maxShare: Double = 0.1,
        methods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        statusCodes: Set<Int> = RetryPolicy.retryableStatusCodes
    ) {
        self.delay = after
        self.maxAttempts = max(1, maxAttempts)
        self.maxShare = maxShare.isFinite ? min(1, max(0, maxShare)) : 0
        self.methods = methods
        self.statusCodes = statusCodes
        self.ledger = RetryLedger(window: .seconds(10), now: { .now })
    }

    /// Sends the request, and again beside it when no answer came within the delay.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The first acceptable response, its ``Response/winningAttempt`` set when the
    ///   call was hedged; else the last trip's.
    /// - Throws: The last trip's error when none answered acceptably; `CancellationError` when
    ///   cancelled, after every trip was.
    public func intercept(_ request: OutgoingRequest, next: Next) async throws -> Response {
        guard maxAttempts > 1, request.options.hedges, next.collectsBody, request.body.isReplayable,
              methods.contains(request.method) || request.headers["Idempotency-Key"] != nil
        else {
            return try await next(request)
        }
        let key = request.originKey
        ledger.recordCall(for: key)
        guard let wait = wait(for: key) else {
            // Too few answers yet to know the origin's tail: one trip, which teaches the next calls.
            let start = ContinuousClock.now
            let response = try await next(request)
            if !statusCodes.contains(response.statusCode) { latencies.record(.now - start, for: key) }
            return response
        }
        return try await race(request, after: wait, key: key, next: next)
    }

    /// The delay for a call to the origin, or `nil` when its percentile is not known yet.
    func wait(for key: String) -> Duration? {
        switch delay {
        case .fixed(let wait):
            return max(.zero, wait)
        case .percentile(let fraction, let scale, let minimum):
            guard let latency = latencies.percentile(fraction, for: key, minimumSamples: Self.minimumSamples) else { return nil }
            return max(minimum, .seconds(latency.seconds * (scale.isFinite ? max(0, scale) : 1)))
        }
    }

    /// What happens in a hedged call: a delay passed, or a trip ended.
    private enum Event: Sendable {
        case due
        case answered(attempt: Int, start: ContinuousClock.Instant, Result<Response, any Error>)
    }

    /// The trips of one call, each a child task; the first acceptable answer cancels the rest,
    /// which are awaited, so that nothing of the call runs on once it returned.
    private func race(_ request: OutgoingRequest, after wait: Duration, key: String, next: Next) async throws -> Response {
        let start = ContinuousClock.now
        var siblings: [InterceptorNext] = []
        let (attempt, outcome) = await withTaskGroup(of: Event.self) { group -> (Int, Result<Response, any Error>) in
            group.addTask { .answered(attempt: 1, start: start, await Self.send(request, next)) }
            group.addTask { await Self.pause(wait) }
            var sent = 1
            var running = 1
            var decided: (Int, Result<Response, any Error>)?
            while decided == nil, let event = await group.next() {
                switch event {
                case .due:
                    guard sent < maxAttempts, !Task.isCancelled, mayHedge(request, key: key, first: sent == 1, next: next) else { continue }
                    sent += 1
                    running += 1
                    let sibling = next.sibling()
                    siblings.append(sibling)
                    next.context.report(ResilienceEvent(.hedgeSent, origin: key, detail: "attempt \(sent) of \(maxAttempts) sent: "
                        + "no answer after \((ContinuousClock.now - start).phrase) (delay \(wait.phrase))"), request: request)
                    group.addTask { [sent] in .answered(attempt: sent, start: .now, await Self.send(request, sibling)) }
                    if sent < maxAttempts { group.addTask { await Self.pause(wait) } }
                case .answered(let number, let tripStart, let outcome):
                    running -= 1
                    if case .success(let response) = outcome, !statusCodes.contains(response.statusCode) {
                        latencies.record(.now - tripStart, for: key)
                        decided = (number, outcome)
                    } else if running == 0 {
                        decided = (number, outcome)
                    }
                }
            }
            // The losers and the pending delay go; the call returns once they have.
            group.cancelAll()
            while await group.next() != nil {}
            return decided ?? (1, .failure(CancellationError()))
        }
        for sibling in siblings { sibling.endSibling() }
        guard siblings.isEmpty else {
            var response = try outcome.get()
            response.winningAttempt = attempt
            if attempt > 1 {
                next.context.report(ResilienceEvent(.hedgeWon, origin: key, detail: "attempt \(attempt) of \(siblings.count + 1) "
                    + "answered first, \((ContinuousClock.now - start).phrase) into the call"), request: request)
            }
            return response
        }
        return try outcome.get()
    }

    /// Whether one more trip may go: the call's first hedge under the share of hedged calls,
    /// every hedge under the budget.
    private func mayHedge(_ request: OutgoingRequest, key: String, first: Bool, next: Next) -> Bool {
        if let deadline = next.context.deadline, ContinuousClock.now >= deadline { return false }
        if first, ledger.withdraw(for: key, ratio: maxShare, floor: 0) != nil { return false }
        return request.options.retryBudget?.withdraw(for: request) == nil
    }

    private static func send(_ request: OutgoingRequest, _ next: Next) async -> Result<Response, any Error> {
        do {
            return .success(try await next(request))
        } catch {
            return .failure(error)
        }
    }

    private static func pause(_ wait: Duration) async -> Event {
        try? await Task.sleep(for: wait)
        return .due
    }
}

// MARK: - The option

extension RequestOptions {
    /// Whether a ``Hedging`` stage may send this call more than once at a time; `true` unless
    /// set. A call that must not reach the server twice at once sets it to `false`.
    public var hedges: Bool {
        get { self[HedgesOption.self] }
        set { self[HedgesOption.self] = newValue }
    }
}

enum HedgesOption: RequestOptionKey {
    static let defaultValue = true
}
