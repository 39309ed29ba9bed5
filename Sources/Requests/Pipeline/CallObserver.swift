import Foundation

// MARK: - CallObserver

/// What watches one call besides its monitors: its span and its trips' spans and metrics (trait
/// `Tracing`, `CallTrace`). The pipeline holds none when nothing listens, so a call then pays a
/// `nil` check and no more.
///
/// Each method is called on the call's task, outside every lock of the pipeline.
protocol CallObserver: Sendable {
    /// Runs the call's modifiers and stages with the call's span as the task's current context,
    /// so that a call one of them makes (a token refresh) is its child.
    ///
    /// - Parameter body: The call's modifiers and stages.
    func running(_ body: () async throws -> Response) async throws -> Response

    /// The modifiers completed the request: the span's attributes name its final URL.
    func completed(_ request: OutgoingRequest)

    /// A trip is about to go to the transport: its span starts, and its context is written into
    /// the request's fields.
    ///
    /// - Parameters:
    ///   - request: The request; the trace context fields are set in it.
    ///   - number: The trip's number in its call, from 1.
    /// - Returns: What ends the trip's span and records its metrics.
    func tripStarted(_ request: inout OutgoingRequest, number: Int) -> any TripObserver

    /// The call waited for a throttle slot.
    func queued(for wait: Duration)

    /// The session's cache answered the call.
    func answeredFromCache(_ response: Response)

    /// A stage that protects a server decided something for the call (a retry the budget refused).
    func resilience(_ event: ResilienceEvent)

    /// The call returned this response.
    func ended(_ response: Response)

    /// The call failed.
    func failed(_ error: any Error)
}

/// The end of one trip's span and metrics.
protocol TripObserver: Sendable {
    /// The trip got a response (for a stream, its head).
    func ended(_ response: Response, timings: TripTimings)

    /// The trip failed.
    func failed(_ error: any Error, timings: TripTimings)
}
