#if Tracing
import Foundation
import InMemoryTracing
import Instrumentation
import Metrics
import MetricsTestKit
import Requests
import TransportContract
#if AsyncHTTPClient
import RequestsAsyncHTTPClient
#endif

/// One call to a scripted answer with an in-memory tracer and a test metrics backend bootstrapped
/// for the process, the transport made after the bootstrap (as AsyncHTTPClient reads the global
/// tracer when its client is configured).
///
/// - Returns: `spans=<finished spans> roots=<spans without a parent> trips=<the call's children>
///   server_span=<span id the server received> trip_span=<the trip's span id>
///   durations=<durations recorded> active=<active requests at the end>`.
func traced(_ base: String, engine: String) async throws -> String {
    guard let base = URL(string: base) else { throw ProbeError(description: "\(base) is not a URL") }
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    InstrumentationSystem.bootstrap(tracer)
    MetricsSystem.bootstrap(metrics)
    let transport: any Transport
    switch engine {
    case "urlsession": transport = URLSessionTransport()
    #if AsyncHTTPClient
    case "asynchttpclient": transport = AsyncHTTPClientTransport()
    #endif
    default: throw ProbeError(description: "no transport \(engine) in this build")
    }
    // Setting the script is traced too; what it left is cleared before the call.
    let origin = LoopbackOrigin(transport: URLSessionTransport(), server: base)
    let url = try await origin.script([ScriptedAnswer(status: 200, headers: ["Content-Length": "2"], body: "ok")])
    tracer.clearAll()
    metrics.reset()

    let session = Session(transport: transport)
    _ = try await session.request(url)
    try await session.shutdown()

    // Read before the server's log is asked for, which is a call of its own.
    let spans = tracer.finishedSpans
    let roots = spans.filter { $0.spanContext.parentSpanID == nil }
    let trips = spans.filter { span in roots.contains { $0.spanContext.spanID == span.spanContext.parentSpanID } }
    let active = metrics.meters(label: "http.client.active_requests").compactMap(\.lastValue).reduce(0, +)
    let durations = metrics.recorders(label: "http.client.request.duration").map(\.values.count).reduce(0, +)
    let received = try await origin.requests(to: url).last?.headers[InMemoryTracer.spanIDKey] ?? "none"
    return [
        "spans=\(spans.count)", "roots=\(roots.count)", "trips=\(trips.count)", "server_span=\(received)",
        "trip_span=\(trips.first?.spanContext.spanID ?? "none")",
        "durations=\(durations)",
        "active=\(active)",
    ].joined(separator: " ")
}
#endif
