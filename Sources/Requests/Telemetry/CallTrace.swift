#if Tracing
import CoreMetrics
import Foundation
import Tracing

// MARK: - CallTrace

/// One call's span, the parent of its trips' spans, and its trips' metrics.
///
/// Made only when a tracer or a metrics backend listens (``Telemetry``); its fields are set once.
/// Spans are safe to use from any task, so it holds no lock.
final class CallTrace: CallObserver {
    let telemetry: Telemetry
    /// The call's span, when there is a tracer.
    let span: (any Span)?
    /// What the trips' spans, and calls the stages make, are children of: the call's span's
    /// context, or the caller's when there is no tracer.
    let context: ServiceContext

    /// The call's trace, or `nil` when nothing listens (then nothing is allocated).
    ///
    /// - Parameters:
    ///   - request: The call's request, after its options were merged.
    ///   - bootstrapped: What the session found bootstrapped, for a call whose options name none.
    static func start(_ request: OutgoingRequest, bootstrapped: Telemetry) -> CallTrace? {
        let telemetry = request.options.telemetry ?? bootstrapped
        return telemetry.isOn ? CallTrace(request, telemetry: telemetry) : nil
    }

    /// Starts the call's span, when there is a tracer.
    private init(_ request: OutgoingRequest, telemetry: Telemetry) {
        self.telemetry = telemetry
        let parent = ServiceContext.current ?? .topLevel
        guard let tracer = telemetry.tracer else {
            span = nil
            context = parent
            return
        }
        // Started before the modifiers run, so that their time is the call's; the request's
        // attributes are set now, and again once the modifiers have completed it.
        let span = tracer.startSpan(HTTPAttributes.spanName(request.method), context: parent, ofKind: .client)
        span.updateAttributes { attributes in
            HTTPAttributes.request(request, redacting: telemetry.redactedQueryItems, into: &attributes)
        }
        self.span = span
        context = span.context
    }

    func running(_ body: () async throws -> Response) async throws -> Response {
        guard span != nil else { return try await body() }
        return try await ServiceContext.withValue(context) { try await body() }
    }

    func completed(_ request: OutgoingRequest) {
        span?.updateAttributes { attributes in
            HTTPAttributes.request(request, redacting: telemetry.redactedQueryItems, into: &attributes)
        }
    }

    func tripStarted(_ request: inout OutgoingRequest, number: Int) -> any TripObserver {
        var tripSpan: (any Span)?
        if let tracer = telemetry.tracer {
            let span = tracer.startSpan(HTTPAttributes.spanName(request.method), context: context, ofKind: .client)
            let sent = request
            span.updateAttributes { attributes in
                HTTPAttributes.request(sent, redacting: telemetry.redactedQueryItems, into: &attributes)
                // Every trip after the first is a resend in the conventions' sense: a retry or a
                // redirect hop.
                if number > 1 {
                    attributes.set("http.request.resend_count", value: .int64(Int64(number - 1)))
                }
            }
            // The server joins the trip's span: `traceparent` and `tracestate` with a W3C tracer.
            tracer.inject(span.context, into: &request.headers, using: HeaderInjector())
            tripSpan = span
        }
        let metrics = telemetry.metrics.map { TripMetrics(request, factory: $0) }
        return TripTrace(span: tripSpan, metrics: metrics)
    }

    func queued(for wait: Duration) {
        span?.addEvent(SpanEvent(name: "throttle.wait", attributes: ["throttle.wait.duration": .double(wait.seconds)]))
    }

    func answeredFromCache(_ response: Response) {
        let status = response.cacheStatus ?? .hit
        span?.addEvent(SpanEvent(name: "cache.answer", attributes: ["cache.status": .string(status.rawValue)]))
    }

    func resilience(_ event: ResilienceEvent) {
        let name = event.kind.telemetryName
        span?.addEvent(SpanEvent(name: name, attributes: [
            "server.origin": .string(event.origin), "resilience.detail": .string(event.detail),
        ]))
        if let factory = telemetry.metrics {
            Counter(label: "http.client." + name, dimensions: [("server.origin", event.origin)], factory: factory).increment()
        }
    }

    func ended(_ response: Response) {
        guard let span else { return }
        span.updateAttributes { attributes in
            HTTPAttributes.response(response.head, into: &attributes)
            if let attempt = response.winningAttempt { attributes.set("requests.hedge.winning_attempt", value: .int64(Int64(attempt))) }
        }
        if response.statusCode >= 400 {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    func failed(_ error: any Error) {
        guard let span else { return }
        Self.fail(span, error)
    }

    /// Ends a span as failed. What the span records names the failure without its text, which
    /// holds the URL as sent (credentials and signatures included): `url.full` is the redacted one.
    static func fail(_ span: any Span, _ error: any Error) {
        let failure = TracedFailure(error)
        span.attributes["error.type"] = failure.type
        span.recordError(failure)
        span.setStatus(SpanStatus(code: .error, message: failure.description))
        span.end()
    }
}

// MARK: - TripTrace

/// One trip's span and metrics.
struct TripTrace: TripObserver {
    let span: (any Span)?
    let metrics: TripMetrics?

    func ended(_ response: Response, timings: TripTimings) {
        if let span {
            span.updateAttributes { HTTPAttributes.response(response.head, into: &$0) }
            if response.statusCode >= 400 {
                span.setStatus(SpanStatus(code: .error))
            }
            PhaseEvents.add(timings, to: span)
            span.end()
        }
        metrics?.ended(head: response.head, errorType: nil, responseBodySize: Self.bodySize(response))
    }

    /// The response body's size: none for `HEAD`, 204 and 304 (whose `Content-Length` describes
    /// another body); the announced length (the size on the wire, before any decoding), else the
    /// collected body's; `nil` for a stream that announced none.
    static func bodySize(_ response: Response) -> Int64? {
        if response.outgoingRequest.method == .head || response.statusCode == 204 || response.statusCode == 304 {
            return 0
        }
        let announced = response.headers["Content-Length"].flatMap(Int64.init)
        return response.body == nil ? announced ?? Int64(response.data.count) : announced
    }

    func failed(_ error: any Error, timings: TripTimings) {
        if let span {
            PhaseEvents.add(timings, to: span)
            CallTrace.fail(span, error)
        }
        metrics?.ended(head: nil, errorType: HTTPAttributes.errorType(error), responseBodySize: nil)
    }
}

// MARK: - TracedFailure

/// A failure as a span records it: its `error.type` and what failed, without the error's text.
struct TracedFailure: Error, CustomStringConvertible {
    let type: String
    let description: String

    init(_ error: any Error) {
        type = HTTPAttributes.errorType(error)
        if let error = error as? RequestError {
            description = "\(error.code): \(type)"
        } else {
            description = type
        }
    }
}

// MARK: - HeaderInjector

/// Writes trace context fields into a request's header fields, replacing any of the same name.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.update(name: key, value: value)
    }
}
#endif
