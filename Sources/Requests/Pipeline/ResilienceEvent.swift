import Foundation

// MARK: - ResilienceEvent

/// Something a stage that protects a server or a call decided: a retry the ``RetryBudget``
/// refused, a circuit a ``CircuitBreaker`` opened, half-opened or closed, a hedge ``Hedging``
/// sent or that won.
///
/// Monitors hear it in ``EventMonitor/resilienceEvent(_:request:attempt:)``; ``LoggingMonitor``
/// writes it as a line starting with `x`; under the `Tracing` trait it is an event of the call's
/// span (such as `retry_budget.exhausted`, with `server.origin` and `resilience.detail`) and a
/// count in a metric of the same name under `http.client.` (`http.client.circuit.opened`).
public struct ResilienceEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened. New kinds may be added; compare with the static values.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, such as `retry budget exhausted`.
        public let name: String
        /// The name of the span event and metric, such as `retry_budget.exhausted`.
        public let telemetryName: String

        /// A retry was not sent because the ``RetryBudget`` of its origin was spent.
        public static let retryBudgetExhausted = Kind(name: "retry budget exhausted", telemetryName: "retry_budget.exhausted")
        /// A ``CircuitBreaker`` opened the circuit of an origin: calls to it fail at once.
        public static let circuitOpened = Kind(name: "circuit opened", telemetryName: "circuit.opened")
        /// A ``CircuitBreaker`` lets one probe call through to an origin whose circuit was open.
        public static let circuitHalfOpen = Kind(name: "circuit half-open", telemetryName: "circuit.half_open")
        /// A ``CircuitBreaker``'s probe succeeded: calls to the origin go through again.
        public static let circuitClosed = Kind(name: "circuit closed", telemetryName: "circuit.closed")
        /// A ``Hedging`` stage sent one more trip of a call that had no answer after its delay.
        public static let hedgeSent = Kind(name: "hedge sent", telemetryName: "hedge.sent")
        /// A hedge, not the call's first trip, gave the answer; the other trips were cancelled.
        public static let hedgeWon = Kind(name: "hedge won", telemetryName: "hedge.won")

        /// The kind's name.
        public var description: String { name }
    }

    /// What happened.
    public let kind: Kind
    /// The origin it concerns, such as `https://api.example.com`.
    public let origin: String
    /// The decision in words, such as why the budget is spent.
    public let detail: String

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - origin: The origin it concerns.
    ///   - detail: The decision in words.
    public init(_ kind: Kind, origin: String, detail: String) {
        self.kind = kind
        self.origin = origin
        self.detail = detail
    }

    /// `retry budget exhausted: <detail>`.
    public var description: String {
        "\(kind): \(detail)"
    }
}

extension RequestContext {
    /// Tells the call's monitors what a stage decided.
    ///
    /// - Parameters:
    ///   - event: The decision.
    ///   - request: The request it concerns.
    func report(_ event: ResilienceEvent, request: OutgoingRequest) {
        monitor.resilienceEvent(event, request: request, attempt: RequestAttempt(callID: id, number: attemptCount, start: .now))
        observer?.resilience(event)
    }
}
