import Foundation

// MARK: - Timings

/// Where the time of one call went: the wait for a ``Throttle`` slot, then each trip to the
/// transport (retries and redirect hops included) with the phases its engine can tell.
///
/// A phase the engine cannot tell is `nil`, never estimated: `URLSession` on Apple platforms
/// reports every phase of a `request` call (from `URLSessionTaskMetrics`, which arrive as the task
/// ends, so a stream's or download's trip has only its callbacks' marks); FoundationNetworking on
/// Linux reports when a request body's last byte went out and when the head came, and
/// AsyncHTTPClient when the request was sent and the head came, neither how the connection was
/// made; an in-memory transport reports nothing of its own.
///
/// ```swift
/// let response = try await session.request(url)
/// for trip in response.timings.trips {
///     print(trip.waiting.map { "server took \($0)" } ?? "no request-sent mark")
/// }
/// ```
public struct Timings: Sendable, Hashable {
    /// How long the call waited for a ``Throttle`` slot, or `nil` when it did not wait.
    public var queued: Duration?
    /// Each trip to the transport, in order; empty when nothing went to the network (the cache
    /// answered, or the call failed before its first trip).
    public var trips: [TripTimings]

    /// Creates timings.
    ///
    /// - Parameters:
    ///   - queued: The wait for a throttle slot, if any.
    ///   - trips: The trips, in order.
    public init(queued: Duration? = nil, trips: [TripTimings] = []) {
        self.queued = queued
        self.trips = trips
    }
}

// MARK: - TripTimings

/// The phases of one trip to the transport, as instants on the session's clock.
public struct TripTimings: Sendable, Hashable {
    /// When the request was handed to the transport.
    public var start: ContinuousClock.Instant
    /// How the connection was found or made, when the engine tells.
    public var connection: ConnectionTimings?
    /// When the last byte of the request (head and body) went to the network, when the engine tells.
    public var requestSent: ContinuousClock.Instant?
    /// When the response's head arrived: when the engine saw its first byte if it tells, or
    /// else when the session received the head.
    public var responseStart: ContinuousClock.Instant?
    /// When the body was read whole: set for calls that collect the body (`request`), `nil`
    /// for streams and downloads, whose bodies are read after the call returns, and for a trip
    /// that failed.
    public var responseEnd: ContinuousClock.Instant?

    /// Creates the timings of a trip.
    ///
    /// - Parameters:
    ///   - start: When the request was handed to the transport.
    ///   - connection: How the connection was made, if known.
    ///   - requestSent: When the request's last byte was sent, if known.
    ///   - responseStart: When the response began, if it did.
    ///   - responseEnd: When the body was read whole, if it was.
    public init(
        start: ContinuousClock.Instant,
        connection: ConnectionTimings? = nil,
        requestSent: ContinuousClock.Instant? = nil,
        responseStart: ContinuousClock.Instant? = nil,
        responseEnd: ContinuousClock.Instant? = nil
    ) {
        self.start = start
        self.connection = connection
        self.requestSent = requestSent
        self.responseStart = responseStart
        self.responseEnd = responseEnd
    }

    /// The server's time: from the request's last byte to the response's first, or `nil` when
    /// either is unknown.
    public var waiting: Duration? {
        guard let requestSent, let responseStart else { return nil }
        return max(.zero, responseStart - requestSent)
    }

    /// From the request handed to the transport to the body read whole (or, for a stream or a
    /// trip that failed in its body, to the head); `nil` for a trip that got no head.
    public var total: Duration? {
        (responseEnd ?? responseStart).map { $0 - start }
    }
}

// MARK: - ConnectionTimings

/// How a trip's connection was found or made, as far as the engine tells.
public struct ConnectionTimings: Sendable, Hashable {
    /// Whether an open connection was reused (then the other phases are `nil`).
    public var isReused: Bool
    /// The name lookup, when one was made and timed.
    public var dns: Duration?
    /// Opening the connection, TLS included when the engine does not time it apart.
    public var connect: Duration?
    /// The TLS handshake, when there was one and it was timed.
    public var tls: Duration?

    /// Creates connection timings.
    ///
    /// - Parameters:
    ///   - isReused: Whether an open connection was reused.
    ///   - dns: The name lookup's duration, if known.
    ///   - connect: The connection's opening, if known.
    ///   - tls: The TLS handshake's duration, if known.
    public init(isReused: Bool, dns: Duration? = nil, connect: Duration? = nil, tls: Duration? = nil) {
        self.isReused = isReused
        self.dns = dns
        self.connect = connect
        self.tls = tls
    }
}
