#if Tracing
import Foundation
import InMemoryTracing
import MetricsTestKit
import Requests
import Testing
import Tracing
import W3CTraceContext

/// An in-memory tracer whose spans carry W3C identifiers and whose context goes out as a W3C
/// `traceparent` field, as swift-otel's tracer writes it (formatted by swift-w3c-trace-context).
struct W3CTracer: Tracer {
    let spans = InMemoryTracer(idGenerator: .init(
        nextTraceID: { TraceContext.random().traceID.description },
        nextSpanID: { TraceContext.random().spanID.description }
    ))

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        spans.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext,
              let trace = try? TraceContext(traceParentHeaderValue: "00-\(span.traceID)-\(span.spanID)-01")
        else { return }
        injector.inject(trace.traceParentHeaderValue, forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    var finished: [FinishedInMemorySpan] { spans.finishedSpans }
}

extension TraceContext {
    /// A context with random identifiers.
    static func random() -> TraceContext {
        TraceContext(traceID: .random(), spanID: .random(), flags: .sampled, state: TraceState())
    }
}

/// A tracer and a metrics backend of a test's own, and the options that send a session's calls
/// to them.
struct Listeners {
    let tracer = W3CTracer()
    let metrics = TestMetrics()

    var options: RequestOptions {
        var options = RequestOptions()
        options.telemetry = Telemetry(tracer: tracer, metrics: metrics)
        return options
    }

    /// The finished spans that are children of `parent` (roots when `nil`), in start order.
    func children(of parent: FinishedInMemorySpan?) -> [FinishedInMemorySpan] {
        tracer.finished
            .filter { $0.spanContext.parentSpanID == parent?.spanContext.spanID }
            .sorted { $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch }
    }

    /// The one root span.
    func root() throws -> FinishedInMemorySpan {
        let roots = children(of: nil)
        try #require(roots.count == 1, "root spans: \(roots.map(\.operationName))")
        return roots[0]
    }

    /// The values recorded for `label`, from every dimension set, with each set's
    /// `http.response.status_code` (or `error.type`).
    func recorded(_ label: String) -> [(outcome: String, values: [Double])] {
        metrics.recorders(label: label).map { recorder in
            let dimensions = Dictionary(recorder.dimensions, uniquingKeysWith: { first, _ in first })
            return (dimensions["http.response.status_code"] ?? dimensions["error.type"] ?? "?", recorder.values)
        }
    }
}

extension FinishedInMemorySpan {
    /// An attribute as text, or `nil`.
    func text(_ name: String) -> String? {
        attributes.get(name).map { attribute in
            switch attribute {
            case .string(let value): value
            case .int64(let value): String(value)
            case .int32(let value): String(value)
            case .bool(let value): String(value)
            case .double(let value): String(value)
            default: "\(attribute)"
            }
        }
    }

    /// The names of the span's events, in order.
    var eventNames: [String] { events.map(\.name) }

    /// The `traceparent` value this span's context makes.
    var traceparent: String { "00-\(spanContext.traceID)-\(spanContext.spanID)-01" }
}
#endif
