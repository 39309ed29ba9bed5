import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RetryBudget

/// An ``Interceptor`` that caps the retries of every call passing through it, per origin, so that
/// an outage is not multiplied by the retry count at the moment the server can least take it.
///
/// Retries are allowed while those of the last ``window`` stay under ``ratio`` of the calls of
/// that window plus a floor of ``minimumPerSecond`` (so that a quiet client still retries):
///
/// ```swift
/// let budget = RetryBudget()                        // 10% of calls + 10 a second, over 10 s
/// let session = Session(interceptors: [budget, RetryPolicy(maxAttempts: 4)])
/// ```
///
/// Put it before (outside) the stages that retry: it counts each call once, and hands itself to
/// them in ``RequestOptions/retryBudget``. ``RetryPolicy`` and ``BearerAuthentication`` (its
/// try after a refreshed token) ask it before they send again; a retry it refuses ends the call
/// with its last real outcome, whose ``FailedAttempt`` says why (`not retried: the retry budget
/// of https://api.example.com is spent: …`), and the monitors hear
/// ``EventMonitor/resilienceEvent(_:request:attempt:)``. A `Retry-After` still sets the wait of
/// a retry the budget allows. Copies share one ledger; give each session its own to cap it
/// alone, or share one value between sessions that call the same servers.
///
/// The defaults differ from Finagle's (20% and 10 a second): with 4 tries per call, 200 calls a
/// second into a total outage reach the server 1.15 times instead of 1.25 times.
public struct RetryBudget: Interceptor {
    /// The share of calls that may be retried, over the window: 0.1 allows one retry per ten calls.
    public let ratio: Double
    /// Retries allowed each second whatever the traffic, so that a client sending little still retries.
    public let minimumPerSecond: Double
    /// How far back calls and retries count.
    public let window: Duration
    let ledger: RetryLedger

    /// Creates a budget.
    ///
    /// - Parameters:
    ///   - ratio: The share of calls that may be retried; 0.1 by default, at least 0.
    ///   - minimumPerSecond: Retries allowed each second whatever the traffic; 10 by default, at least 0.
    ///   - window: How far back calls and retries count; 10 s by default, at least 1 s.
    public init(ratio: Double = 0.1, minimumPerSecond: Double = 10, window: Duration = .seconds(10)) {
        self.init(ratio: ratio, minimumPerSecond: minimumPerSecond, window: window, now: { .now })
    }

    /// A budget whose time is `now`'s: tests and the Benchmarks' simulation move it by hand, so
    /// that 30 s of an outage run in the time its calls take.
    ///
    /// - Parameters:
    ///   - ratio: The share of calls that may be retried.
    ///   - minimumPerSecond: Retries allowed each second whatever the traffic.
    ///   - window: How far back calls and retries count.
    ///   - now: The budget's clock.
    @_spi(Simulation)
    public init(ratio: Double = 0.1, minimumPerSecond: Double = 10, window: Duration = .seconds(10),
         now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.ratio = ratio.isFinite ? max(0, ratio) : 0
        self.minimumPerSecond = minimumPerSecond.isFinite ? max(0, minimumPerSecond) : 0
        self.window = max(.seconds(1), window)
        self.ledger = RetryLedger(window: self.window, now: now)
    }

    /// Counts the call for its origin and hands the budget to the stages inside.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response of the rest of the chain.
    /// - Throws: What the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        ledger.recordCall(for: request.originKey)
        request.options.retryBudget = self
        return try await next(request)
    }

    /// Takes one retry of `request`'s origin from the budget, or says why it cannot.
    ///
    /// A stage that sends a request again calls it just before it does; a retry taken is counted
    /// whether or not the stage sends it.
    ///
    /// - Parameter request: The request to send again.
    /// - Returns: `nil` when the retry may go; else why not, in words for an error or a log line.
    public func withdraw(for request: OutgoingRequest) -> String? {
        let key = request.originKey
        guard let (calls, retries) = ledger.withdraw(for: key, ratio: ratio, floor: minimumPerSecond * window.seconds) else {
            return nil
        }
        return "the retry budget of \(key) is spent: \(retries) \(retries == 1 ? "retry" : "retries") for \(calls) "
            + "\(calls == 1 ? "call" : "calls") in the last \(window.phrase) allow no more "
            + "(\(Self.percent(ratio)) of calls + \(Self.number(minimumPerSecond)) a second)"
    }

    /// Calls and retries counted for `request`'s origin over the window now.
    ///
    /// - Parameter request: A request to the origin.
    /// - Returns: The counts.
    public func counts(for request: OutgoingRequest) -> (calls: Int, retries: Int) {
        ledger.counts(for: request.originKey)
    }

    /// Takes one retry from the budget, or reports to the call's monitors and span why not.
    ///
    /// - Returns: `nil` when the retry may go; else why not.
    func refusal(for request: OutgoingRequest, context: RequestContext) -> String? {
        guard let refusal = withdraw(for: request) else { return nil }
        context.report(ResilienceEvent(.retryBudgetExhausted, origin: request.originKey, detail: refusal), request: request)
        return refusal
    }

    private static func percent(_ ratio: Double) -> String {
        number(ratio * 100) + "%"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2g", value)
    }
}

// MARK: - RetryLedger

/// Calls and retries per origin, each origin's in a ``SlicedCounts`` (calls first, retries
/// second) over the window. Invariant, under the lock: slice numbers only grow with the clock.
final class RetryLedger: Sendable {
    private let start: ContinuousClock.Instant
    private let width: Double
    private let now: @Sendable () -> ContinuousClock.Instant
    private let origins = Guarded([String: SlicedCounts]())

    init(window: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
        self.start = now()
        self.width = window.seconds / Double(SlicedCounts.sliceCount)
    }

    private func slice() -> Int {
        Int(max(0, (now() - start).seconds / width))
    }

    func recordCall(for key: String) {
        let slice = slice()
        origins.withLock { $0[key, default: SlicedCounts()].add(at: slice, first: 1) }
    }

    /// Counts a retry while the window's retries stay under `ratio` of its calls plus `floor`;
    /// returns the counts when they do not.
    func withdraw(for key: String, ratio: Double, floor: Double) -> (calls: Int, retries: Int)? {
        let slice = slice()
        return origins.withLock { origins -> (Int, Int)? in
            let (calls, retries) = origins[key, default: SlicedCounts()].totals(at: slice)
            guard Double(retries) < ratio * Double(calls) + floor else { return (calls, retries) }
            origins[key, default: SlicedCounts()].add(at: slice, second: 1)
            return nil
        }
    }

    func counts(for key: String) -> (calls: Int, retries: Int) {
        let slice = slice()
        return origins.withLock { $0[key]?.totals(at: slice) ?? (0, 0) }
    }
}

// MARK: - The option

extension RequestOptions {
    /// The ``RetryBudget`` that stages retrying this call ask before they send it again; a
    /// ``RetryBudget`` stage sets it for the calls it sees. `nil`: retries are not budgeted.
    public var retryBudget: RetryBudget? {
        get { self[RetryBudgetOption.self] }
        set { self[RetryBudgetOption.self] = newValue }
    }
}

enum RetryBudgetOption: RequestOptionKey {
    static let defaultValue: RetryBudget? = nil
}
