import Requests
#if Tracing
import InMemoryTracing
import MetricsTestKit
#endif

// MARK: - StressTelemetry

/// What a traced run (`--traced`, trait Tracing) reports its calls to: an in-memory tracer and a
/// test metrics backend, whose records are dropped with the transports' now and then. At the end
/// no span may be left open: a call that ended has ended its span and its trips'.
final class StressTelemetry: Sendable {
    #if Tracing
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    #endif

    /// Whether this build can trace (the Tracing trait).
    static var isAvailable: Bool {
        #if Tracing
        true
        #else
        false
        #endif
    }

    /// The options that send a session's calls here.
    var options: RequestOptions {
        var options = RequestOptions()
        #if Tracing
        options.telemetry = Telemetry(tracer: tracer, metrics: metrics)
        #endif
        return options
    }

    /// Drops the finished spans and the metrics recorded so far.
    func drop() {
        #if Tracing
        tracer.clearFinishedSpans()
        metrics.reset()
        #endif
    }

    /// The spans started and not ended.
    var openSpans: Int {
        #if Tracing
        tracer.activeSpans.count
        #else
        0
        #endif
    }
}
