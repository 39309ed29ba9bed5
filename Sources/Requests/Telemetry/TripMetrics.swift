#if Tracing
import CoreMetrics
import Foundation

// MARK: - TripMetrics

/// One trip's metrics, named and dimensioned as OpenTelemetry's HTTP client conventions say:
/// `http.client.active_requests` while it runs, then `http.client.request.duration` (seconds,
/// a histogram), `http.client.request.body.size` and `http.client.response.body.size` (bytes).
struct TripMetrics: Sendable {
    let factory: any MetricsFactory
    /// Method, `server.address`, `server.port` and `url.scheme`: what every metric carries.
    let dimensions: [(String, String)]
    let active: Meter
    let start = ContinuousClock.now
    let requestBodySize: Int64?

    init(_ request: OutgoingRequest, factory: any MetricsFactory) {
        self.factory = factory
        let target = request.target
        var dimensions = [("http.request.method", HTTPAttributes.method(request.method)), ("server.address", target.host)]
        if let port = HTTPAttributes.port(target) {
            dimensions.append(("server.port", String(port)))
        }
        dimensions.append(("url.scheme", target.scheme.lowercased()))
        self.dimensions = dimensions
        requestBodySize = request.body.isEmpty ? nil : request.body.length
        active = Meter(label: "http.client.active_requests", dimensions: dimensions, factory: factory)
        active.increment()
    }

    /// Records the trip's end: with its response head, or the failure's `error.type`.
    func ended(head: ResponseHead?, errorType: String?, responseBodySize: Int64?) {
        let duration = ContinuousClock.now - start
        active.decrement()
        var dimensions = self.dimensions
        if let head {
            dimensions.append(("http.response.status_code", String(head.statusCode)))
            if let version = HTTPAttributes.protocolVersion(head) {
                dimensions.append(("network.protocol.version", version))
            }
            if head.statusCode >= 400 {
                dimensions.append(("error.type", String(head.statusCode)))
            }
        }
        if let errorType {
            dimensions.append(("error.type", errorType))
        }
        Recorder(label: "http.client.request.duration", dimensions: dimensions, aggregate: true, factory: factory)
            .record(duration.seconds)
        if let size = requestBodySize {
            Recorder(label: "http.client.request.body.size", dimensions: dimensions, aggregate: true, factory: factory).record(size)
        }
        if let size = responseBodySize {
            Recorder(label: "http.client.response.body.size", dimensions: dimensions, aggregate: true, factory: factory).record(size)
        }
    }
}
#endif
