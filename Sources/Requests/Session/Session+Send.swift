import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Session + send

extension Session {
    /// Runs the modifiers, then the request through the session's interceptors, the per-call ones
    /// and the transport.
    ///
    /// The request is consumed, so that on Linux, where every `URLRequest` mutation of a shared value
    /// copies the underlying `NSMutableURLRequest`, the stages change it in place. The call's
    /// ``CallClock`` keeps its deadline (retries and their back-off count towards it; for a
    /// stream, until the body's end) and the idle limit of each wait on the transport.
    ///
    /// - Parameter eachConnection: For an event stream, which has no end: `timeout` is then the
    ///   idle limit of this connection (its head and each silence), and there is no deadline.
    func send(
        _ request: consuming OutgoingRequest,
        timeout: Duration?,
        interceptors perCall: [any Interceptor],
        redirectPolicy: RedirectPolicy? = nil,
        mode: InterceptorChain.Mode = .collect,
        eachConnection: Bool = false,
        progress: (@Sendable (_ sent: Int64, _ total: Int64?) -> Void)? = nil
    ) async throws -> Response {
        // The call's own arguments, then the request's options (the call's over the session's),
        // then the session's settings; what applies is written back, for the stages and monitors.
        let silence = eachConnection ? timeout ?? idleTimeout : idleTimeout
        let timeout = eachConnection ? nil : timeout ?? request.options.timeout ?? self.timeout
        let redirectPolicy = redirectPolicy ?? request.options.redirectPolicy
        if timeout != request.options.timeout { request.options.timeout = timeout }
        let observer = observer(of: request)
        let context = RequestContext(
            deadline: timeout.map { ContinuousClock.now + $0 }, serverOrigins: serverOrigins, monitors: monitorGroup,
            observer: observer
        )
        let stages: [any Interceptor]
        if let redirectPolicy {
            stages = interceptors + perCall + Self.innerStages(redirectPolicy, cookies, cache)
        } else {
            stages = perCall.isEmpty ? defaultStages : interceptors + perCall + innerStages
        }
        // One clock for the call: it stops the trip's transfer when a limit passes, and a trip
        // that idles out fails as that trip (a retry policy may send it again).
        let clock = CallClock(timeout: timeout, idleLimit: silence)
        let chain = InterceptorChain(
            stages: stages, transport: transport, context: context, monitors: monitorGroup,
            clock: clock, mode: mode, progress: progress,
            isShutDown: { [isShutDown] in isShutDown.withLock { $0 } }
        )
        var url = request.url
        let method = request.method
        let options = request.options
        do {
            try checkOpen(request)
            var response: Response
            if let observer {
                // The modifiers and the stages run with the call's span as the current context,
                // so that a call either makes (a token refresh) is its child.
                var traced = request
                response = try await observer.running {
                    try await self.applyModifiers(to: &traced)
                    url = traced.url
                    observer.completed(traced)
                    return try await chain.run(traced, from: 0)
                }
            } else {
                try await applyModifiers(to: &request)
                url = request.url
                response = try await chain.run(request, from: 0)
            }
            if mode == .stream {
                // The body of the response the stages returned: the newest transfer's, or the
                // data of a response a stage made itself (from a cache, say), whose transfer, if
                // any, is cancelled.
                let newest = chain.latest.take()
                if let own = response.body {
                    if let newest, !own.owner.holds(newest.owner) { newest.cancel() }
                } else {
                    newest?.cancel()
                    response.body = ResponseBody(response.data)
                }
                // The clock goes on with the body the caller reads (the deadline stops it even
                // between reads), unless no transfer is left to read.
                if let body = response.body, body.clock != nil {
                    response.body?.clockHold = ClockHold(clock)
                    clock.holds(body.source)
                } else {
                    clock.end()
                }
            } else {
                clock.end()
            }
            // A response a trip made holds every trip's phases so far, and the throttle's wait;
            // one a stage made (the cache's) gets them here.
            if response.timings.trips.isEmpty {
                response.timings = context.timings
            }
            observer?.ended(response)
            return response
        } catch {
            // A wait the deadline ended (a throttle's, the cache's) may end as a cancellation.
            let verdict = clock.verdict
            clock.end()
            let cause: any Error = if let verdict, error is CancellationError, !Task.isCancelled { verdict } else { error }
            let failure = InterceptorChain.transportError(cause, method: method, url: url)
            chain.finish(failing: failure, url: url, method: method, options: options)
            observer?.failed(failure)
            throw failure
        }
    }

    /// Runs the modifiers: they complete the request once, in place, before anything decides on
    /// it (a throttle per host or credentials per origin need its final URL).
    private func applyModifiers(to request: inout OutgoingRequest) async throws {
        for modifier in modifiers {
            try Task.checkCancellation()
            try await modifier.apply(to: &request)
        }
        try Task.checkCancellation()
    }

    /// The call's span and metrics, or `nil` when the `Tracing` trait is off or nothing listens.
    func observer(of request: OutgoingRequest) -> (any CallObserver)? {
        #if Tracing
        CallTrace.start(request, bootstrapped: bootstrapped)
        #else
        nil
        #endif
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in words for errors: "3 seconds", "1 second", "0.25 seconds".
    var phrase: String {
        let value = seconds
        if value == 1 { return "1 second" }
        if value == value.rounded(), abs(value) < 1e15 { return "\(Int(value)) seconds" }
        return "\((value * 1000).rounded() / 1000) seconds"
    }
}

// MARK: - BodyEncoding

/// Puts a body value on the request the session builds, as the last building step.
struct BodyEncoding: ParameterEncoding {
    let body: any HTTPBody

    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try body.applied(to: urlRequest.asURLRequest())
    }

    /// The body and, where the request does not set them, the headers it needs, written into
    /// the request directly.
    func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        try body.apply(to: &target)
    }
}

/// Writes an `Encodable` value with a ``ParameterEncoder`` as a building step.
struct EncoderEncoding<Value: Encodable & Sendable>: ParameterEncoding {
    let value: Value
    let encoder: any ParameterEncoder

    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try encoder.encode(value, into: urlRequest)
    }

    /// The value written straight into the request, as the built-in encodings write.
    func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        try encoder.encode(value, into: &target)
    }
}

/// Writes parameter sets as a building step.
struct SetsEncoding: ParameterEncoding {
    let sets: [ParameterSet]

    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        try ParameterSet.encode(sets, into: urlRequest)
    }

    /// The sets written straight into the request, as the built-in encodings write.
    func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        try ParameterSet.encode(sets, into: &target)
    }
}
