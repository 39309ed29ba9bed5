#if Tracing
import CoreMetrics
import Foundation
import Tracing

// MARK: - Telemetry

/// Where a session's calls report their spans and metrics (trait `Tracing`).
///
/// By default a call reports to what the process had bootstrapped when its session was made
/// (`InstrumentationSystem.tracer` and `MetricsSystem.factory`), as AsyncHTTPClient reads its
/// tracer when its client is configured: bootstrap first, then make sessions. When neither is
/// bootstrapped a call does no tracing work at all. Set ``RequestOptions/telemetry`` on a
/// session's or a call's options to report elsewhere (a test's in-memory tracer, say) or nowhere:
///
/// ```swift
/// let tracer = InMemoryTracer()
/// var options = RequestOptions()
/// options.telemetry = Telemetry(tracer: tracer, metrics: nil)
/// let session = Session(options: options)
/// ```
///
/// Each call opens a client span named by its method, parented on the task's current
/// `ServiceContext`, and each trip to the transport (every retry and redirect hop) a child span
/// whose context goes out in the request's fields (W3C `traceparent` with an OpenTelemetry
/// tracer). Attributes follow OpenTelemetry's HTTP client conventions. Metrics, per trip:
/// `http.client.request.duration` (seconds), `http.client.active_requests`,
/// `http.client.request.body.size` and `http.client.response.body.size` (bytes).
public struct Telemetry: Sendable {
    /// The tracer that gets the spans, or `nil` for none.
    public var tracer: (any Tracer)?
    /// The factory that gets the metrics, or `nil` for none.
    public var metrics: (any MetricsFactory)?
    /// Query items whose values `url.full` shows as `REDACTED` (matched case-sensitively, as
    /// OpenTelemetry's list is). Credentials in a URL always show as `REDACTED`.
    public var redactedQueryItems: Set<String>

    /// The query items OpenTelemetry's conventions redact by default: signatures and access keys.
    public static let defaultRedactedQueryItems: Set<String> = ["AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature"]

    /// Creates a telemetry setting.
    ///
    /// - Parameters:
    ///   - tracer: The tracer for spans, or `nil` for none.
    ///   - metrics: The factory for metrics, or `nil` for none.
    ///   - redactedQueryItems: Query items shown as `REDACTED` in `url.full`.
    public init(
        tracer: (any Tracer)?,
        metrics: (any MetricsFactory)?,
        redactedQueryItems: Set<String> = Telemetry.defaultRedactedQueryItems
    ) {
        self.tracer = tracer
        self.metrics = metrics
        self.redactedQueryItems = redactedQueryItems
    }

    /// What the process has bootstrapped now: `InstrumentationSystem.tracer` and
    /// `MetricsSystem.factory`, each `nil` when it is the no-op one.
    public static var bootstrapped: Telemetry {
        Telemetry(tracer: nil, metrics: nil).resolvingBootstrapped()
    }

    /// Reports nothing.
    public static let off = Telemetry(tracer: nil, metrics: nil)

    /// Whether anything listens.
    var isOn: Bool { tracer != nil || metrics != nil }

    /// This setting with the process's bootstrapped tracer and metrics, no-op ones left out.
    ///
    /// The instrument is checked for the no-op one before the tracer is looked for in it (which
    /// casts each instrument, several times the cost).
    func resolvingBootstrapped() -> Telemetry {
        var resolved = self
        if InstrumentationSystem.instrument is NoOpInstrument {
            resolved.tracer = nil
        } else {
            let tracer = InstrumentationSystem.tracer
            resolved.tracer = tracer is NoOpTracer ? nil : tracer
        }
        let factory = MetricsSystem.factory
        resolved.metrics = factory is NOOPMetricsHandler ? nil : factory
        return resolved
    }
}

// MARK: - RequestOptions + telemetry

extension RequestOptions {
    /// Where the call's spans and metrics go (trait `Tracing`); `nil`, the default, for what the
    /// process had bootstrapped when the session was made (``Telemetry/bootstrapped``).
    public var telemetry: Telemetry? {
        get { self[TelemetryOption.self] }
        set { self[TelemetryOption.self] = newValue }
    }
}

enum TelemetryOption: RequestOptionKey {
    static let defaultValue: Telemetry? = nil
}
#endif
