#if AsyncHTTPClient
import AsyncHTTPClient
import NIOCore
import NIOHTTPCompression
import NIOSSL

extension AsyncHTTPClientTransport {
    /// How the transport's AsyncHTTPClient connects: pool, TLS, pins, decompression, proxy and
    /// event loops.
    ///
    /// The defaults are a `URLSession` user's: decompression on, HTTP/2 when a TLS server offers
    /// it, the system's trust roots, the shared event loop group.
    ///
    /// ```swift
    /// var configuration = AsyncHTTPClientTransport.Configuration()
    /// configuration.maximumConnectionsPerHost = 32
    /// configuration.pins = try CertificatePins(["api.example.com": ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]])
    /// let session = Session(transport: AsyncHTTPClientTransport(configuration: configuration))
    /// ```
    public struct Configuration: Sendable {
        /// How many HTTP/1.1 connections the pool opens to one host at most (HTTP/2 needs one);
        /// 8 by default.
        public var maximumConnectionsPerHost: Int = 8
        /// How long an unused connection stays open in the pool; 60 seconds by default.
        public var idleTimeout: Duration = .seconds(60)
        /// The longest a TCP connection (and its TLS handshake) may take, or `nil` to leave it to
        /// the session's deadlines, which end the wait in any case; `nil` by default.
        public var connectTimeout: Duration?
        /// Whether `gzip` and `deflate` bodies are decoded, and the limit against decompression
        /// bombs. On by default, as `URLSession` does, with a limit of 100 times the compressed
        /// size: a body that inflates further fails as ``TransportError/Kind/other`` instead
        /// of filling memory.
        public var decompression: Decompression = .enabled(limit: .ratio(100))
        /// HTTP/2 when a TLS server offers it (ALPN), HTTP/1.1 otherwise; `.http1Only` to never
        /// use HTTP/2.
        public var httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic
        /// An HTTP or SOCKS proxy, or `nil` for direct connections.
        public var proxy: HTTPClient.Configuration.Proxy?
        /// TLS: trust roots, client certificate, minimum version. The system's roots by default.
        public var tls: TLSConfiguration = .makeClientConfiguration()
        /// The SPKI SHA-256 pins per host: a connection to a pinned host whose certificate's key
        /// is not one of its pins fails before any request is written.
        public var pins: CertificatePins = CertificatePins()
        /// The event loop group the client runs on; `nil` for AsyncHTTPClient's shared singleton.
        public var eventLoopGroup: (any EventLoopGroup)?

        /// Decompression of response bodies.
        public enum Decompression: Sendable {
            /// Bodies are delivered as the server encoded them; no `Accept-Encoding` is added.
            case disabled
            /// `gzip` and `deflate` bodies are decoded, within `limit`; `Accept-Encoding:
            /// gzip, deflate` is added to requests that name no encoding.
            case enabled(limit: NIOHTTPDecompression.DecompressionLimit)
        }

        /// The defaults: see each property.
        public init() {}
    }
}

extension AsyncHTTPClientTransport.Configuration {
    /// The header a request gets when decompression is on and it names no encoding.
    static let acceptEncoding = "gzip, deflate"

    /// AsyncHTTPClient's configuration for one client of the transport.
    ///
    /// - Parameters:
    ///   - verifier: The pin check for the client's connections, if its host is pinned.
    ///   - connections: Counts the client's new connections, before any carries a request.
    /// - Returns: The configuration.
    func client(verifying verifier: PinVerifier?, counting connections: ConnectionCount) -> HTTPClient.Configuration {
        let limit: NIOHTTPDecompression.DecompressionLimit? =
            switch decompression {
            case .disabled: nil
            case .enabled(let limit): limit
            }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            // The pipeline follows redirects itself, with its own rules and cookies.
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: TimeAmount(connectTimeout ?? .seconds(7 * 86_400))),
            connectionPool: HTTPClient.Configuration.ConnectionPool(
                idleTimeout: TimeAmount(idleTimeout),
                concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maximumConnectionsPerHost)
            ),
            proxy: proxy,
            decompression: limit.map { .enabled(limit: $0) } ?? .disabled
        )
        // A refused connection is an answer the pipeline's retry policy decides on; retried
        // inside the pool it would only show as a timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = httpVersion
        #if Tracing
        // The session opens one span per trip and writes its context into the request's fields;
        // the engine's own span (from the head's send to its arrival, with fewer attributes)
        // would be a second span of the same trip, so it is turned off. Without the trait the
        // engine's span is the only one, and is left on.
        configuration.tracing.tracer = nil
        #endif
        // Run on each new connection before the pool hands it to a request.
        let opened: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
            connections.opened()
            return verifier?.verify(channel) ?? channel.eventLoop.makeSucceededVoidFuture()
        }
        configuration.http1_1ConnectionDebugInitializer = opened
        configuration.http2ConnectionDebugInitializer = opened
        return configuration
    }
}

extension TimeAmount {
    /// The same span in nanoseconds, clamped to what `TimeAmount` holds.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (nanos, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = overflow ? .nanoseconds(.max) : .nanoseconds(nanos &+ attoseconds / 1_000_000_000)
    }
}
#endif
