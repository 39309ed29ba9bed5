import Foundation

// MARK: - EventSource

/// A server-sent event stream that reconnects when its connection drops, as the HTML standard's
/// `EventSource` does: made by ``Session/events(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:reconnection:)``.
///
/// ```swift
/// for try await event in session.events("https://example.com/feed") {
///     print(event.type, event.data)
/// }
/// ```
///
/// Each connection is a call through the whole session: its interceptors (a bearer token is
/// refreshed before a reconnection like before any call), monitors, logging and recording, over
/// its transport. A connection that ends, breaks, or stays silent longer than the timeout is
/// made again after the reconnection time (``Reconnection``, replaced by the server's `retry:`),
/// with `Last-Event-ID` set to the last event ID the stream gave, so the server can resume
/// after it. The sequence ends for good, without reconnecting, when the server answers 204 (it
/// ends normally), another status than 200 or another type than `text/event-stream` (it throws
/// ``RequestError``), or when the task is cancelled (it throws `CancellationError`, even during a
/// wait). Leaving the loop ends the transfer at once.
///
/// Iterate ``updates`` instead to hear of each connection and each wait too, so that a screen
/// can say "reconnecting".
public struct EventSource: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent

    let session: Session
    /// The request of every connection, built once; `Last-Event-ID` is set per connection.
    let request: Result<OutgoingRequest, any Error>
    let timeout: Duration?
    let interceptors: [any Interceptor]
    let redirectPolicy: RedirectPolicy?
    let reconnection: Reconnection
    /// Waits between connections; tests put a clock of their own here.
    let sleep: @Sendable (Duration) async throws -> Void
    /// A number in `0..<1` for the jitter; tests make it predictable.
    let random: @Sendable () -> Double

    init(
        session: Session, request: Result<OutgoingRequest, any Error>, timeout: Duration?, interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy? = nil, reconnection: Reconnection,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.session = session
        self.request = request
        self.timeout = timeout
        self.interceptors = interceptors
        self.redirectPolicy = redirectPolicy
        self.reconnection = reconnection
        self.sleep = sleep
        self.random = random
    }

    /// The same stream, reporting connections and waits as well as events.
    public var updates: Updates { Updates(source: self) }

    /// Starts the first connection.
    ///
    /// - Returns: The iterator; dropping it ends the transfer and any wait.
    public func makeAsyncIterator() -> Iterator {
        Iterator(updates: Updates.Iterator(source: self))
    }

    /// Reads the events, connecting again whenever the connection ends.
    public struct Iterator: AsyncIteratorProtocol {
        var updates: Updates.Iterator

        /// The next event.
        ///
        /// - Returns: The event, or `nil` once the server answered 204.
        /// - Throws: ``RequestError`` for an answer the standard fails the stream on (a status
        ///   other than 200, a type other than `text/event-stream`), for a failure that is not
        ///   the connection's (an interceptor's, a request that cannot be built or sent again),
        ///   or the last connection's failure once ``Reconnection/maximumAttempts`` reconnections
        ///   in a row delivered no event; `CancellationError` when the task is cancelled.
        public mutating func next() async throws -> ServerSentEvent? {
            while let update = try await updates.next() {
                if case .event(let event) = update { return event }
            }
            return nil
        }
    }
}

// MARK: - Updates

extension EventSource {
    /// What happens on an event stream: connections, events, and the waits before reconnecting.
    public enum Update: Sendable {
        /// A connection was made: its response (status 200, `text/event-stream`), whose body
        /// the stream reads.
        case connected(Response)
        /// An event.
        case event(ServerSentEvent)
        /// The connection ended or could not be made; the stream waits, then connects again.
        case reconnecting(ReconnectionWait)
    }

    /// A wait before connecting again.
    public struct ReconnectionWait: Sendable {
        /// Reconnections in a row without an event, this one included: 1 for the first after a
        /// connection that gave events.
        public let attempt: Int
        /// How long the stream waits before it connects.
        public let delay: Duration
        /// Why the connection ended: the transport's failure, or `nil` when the server ended the
        /// response.
        public let cause: RequestError?
        /// The `Last-Event-ID` the next connection sends; empty for none.
        public let lastEventID: String

        /// Creates a wait, as the stream reports it; for tests of code that shows it.
        ///
        /// - Parameters:
        ///   - attempt: Reconnections in a row without an event, this one included.
        ///   - delay: How long the stream waits.
        ///   - cause: Why the connection ended; `nil` when the server ended the response.
        ///   - lastEventID: The `Last-Event-ID` the next connection sends; empty for none.
        public init(attempt: Int, delay: Duration, cause: RequestError?, lastEventID: String) {
            self.attempt = attempt
            self.delay = delay
            self.cause = cause
            self.lastEventID = lastEventID
        }
    }

    /// The stream's updates, as an `AsyncSequence` of ``Update``.
    public struct Updates: AsyncSequence, Sendable {
        /// One update.
        public typealias Element = Update

        let source: EventSource

        /// Starts the first connection.
        ///
        /// - Returns: The iterator; dropping it ends the transfer and any wait.
        public func makeAsyncIterator() -> Iterator {
            Iterator(source: source)
        }
    }
}

// MARK: - Reconnection

extension EventSource {
    /// When and how often an event stream connects again.
    ///
    /// The first wait is the reconnection time: ``initialDelay`` until the server sets its own
    /// with a `retry:` field. Each further reconnection in a row without an event waits
    /// ``backoff`` times longer, up to ``maximumDelay``, which also caps the server's value;
    /// ``jitter`` shortens each wait by up to that fraction, at random, so that many clients a
    /// server dropped at once do not come back at once.
    public struct Reconnection: Sendable, Equatable {
        /// The reconnection time before the server sets one: 3 seconds, as browsers wait.
        public var initialDelay: Duration
        /// The longest wait, the server's `retry:` included: 60 seconds.
        public var maximumDelay: Duration
        /// What each failed reconnection in a row multiplies the wait by: 2. 1 keeps every wait
        /// the reconnection time, as the standard describes.
        public var backoff: Double
        /// The fraction of each wait that is random, from 0 (none, the default) to 1.
        public var jitter: Double
        /// Reconnections in a row that may deliver no event before the stream stops: with the
        /// last connection's error, or normally when the server ended that one; `nil` (the
        /// default) never gives up, 0 never reconnects.
        public var maximumAttempts: Int?

        /// Creates a reconnection policy.
        ///
        /// - Parameters:
        ///   - initialDelay: The reconnection time until the server sets one.
        ///   - maximumDelay: The longest wait.
        ///   - backoff: What each failed reconnection in a row multiplies the wait by; values
        ///     under 1 count as 1.
        ///   - jitter: The random fraction of each wait, clamped to 0...1.
        ///   - maximumAttempts: Reconnections in a row without an event before the stream fails;
        ///     `nil` for no limit.
        public init(
            initialDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60), backoff: Double = 2,
            jitter: Double = 0, maximumAttempts: Int? = nil
        ) {
            self.initialDelay = Swift.max(initialDelay, .zero)
            self.maximumDelay = Swift.max(maximumDelay, .zero)
            self.backoff = backoff.isFinite ? Swift.max(backoff, 1) : 1
            self.jitter = jitter.isFinite ? Swift.min(Swift.max(jitter, 0), 1) : 0
            self.maximumAttempts = maximumAttempts.map { Swift.max($0, 0) }
        }

        /// Reconnects after the standard's default wait, without limit.
        public static let `default` = Reconnection()

        /// Never reconnects: the stream ends with its first connection.
        public static let never = Reconnection(maximumAttempts: 0)

        /// The wait before reconnection `attempt` (1 for the first in a row), from the current
        /// reconnection time and a random number in `0..<1`.
        func delay(attempt: Int, reconnectionTime: Duration, random: Double) -> Duration {
            // After a failure, at least a tenth of a second, so that a server's `retry: 0` does
            // not turn failures in a row into a tight loop.
            let base = attempt > 1 ? Swift.max(reconnectionTime, .milliseconds(100)) : reconnectionTime
            let growth = pow(backoff, Double(Swift.max(attempt - 1, 0)))
            if growth == 1, jitter == 0 {
                // Exactly the reconnection time, not a round trip through Double.
                return Swift.min(base, maximumDelay)
            }
            let seconds = Swift.min(base.seconds * growth, maximumDelay.seconds)
            let waited = seconds * (1 - jitter * random)
            guard waited.isFinite, waited > 0 else { return .zero }
            return .nanoseconds(Int64((Swift.min(waited, 9e9) * 1e9).rounded()))
        }
    }
}
