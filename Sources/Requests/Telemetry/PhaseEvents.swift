#if Tracing
import Foundation
import Tracing

// MARK: - PhaseEvents

/// A trip's phases (``TripTimings``) as events of its span, at the instants they happened.
enum PhaseEvents {
    static func add(_ timings: TripTimings, to span: any Span) {
        let clock = EpochClock()
        if let connection = timings.connection {
            var attributes: SpanAttributes = ["connection.reused": .bool(connection.isReused)]
            // Ready after the lookup and the opening (TLS is a part of `connect`).
            var ready = timings.start
            for (name, phase) in [("dns", connection.dns), ("connect", connection.connect), ("tls", connection.tls)] {
                guard let phase else { continue }
                attributes.set("connection.\(name).duration", value: .double(phase.seconds))
                if name != "tls" { ready += phase }
            }
            span.addEvent(SpanEvent(name: "connection", at: clock.instant(ready), attributes: attributes))
        }
        if let sent = timings.requestSent {
            span.addEvent(SpanEvent(name: "request.sent", at: clock.instant(sent)))
        }
        if let first = timings.responseStart {
            span.addEvent(SpanEvent(name: "response.first_byte", at: clock.instant(first)))
        }
        if let end = timings.responseEnd {
            span.addEvent(SpanEvent(name: "response.end", at: clock.instant(end)))
        }
    }
}

/// Turns instants of the session's monotonic clock into the wall-clock instants tracers take,
/// from one reading of both clocks.
struct EpochClock {
    let now = ContinuousClock.now
    let wall = DefaultTracerClock.now.nanosecondsSinceEpoch

    func instant(_ instant: ContinuousClock.Instant) -> EpochInstant {
        // A transport may report any instant: the arithmetic saturates instead of trapping.
        let (seconds, attoseconds) = (now - instant).components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let ago = overflow ? (seconds < 0 ? Int64.min : Int64.max) : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
        let (nanoseconds, wrapped) = Int64(clamping: wall).subtractingReportingOverflow(ago)
        let clamped = wrapped ? (ago < 0 ? Int64.max : 0) : nanoseconds
        return EpochInstant(nanosecondsSinceEpoch: UInt64(max(0, clamped)))
    }
}

/// A wall-clock instant, in nanoseconds since 1970.
struct EpochInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    static func < (lhs: EpochInstant, rhs: EpochInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }
}
#endif
