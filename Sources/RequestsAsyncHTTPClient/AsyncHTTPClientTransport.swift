#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Requests

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - AsyncHTTPClientTransport

/// A ``Transport`` over AsyncHTTPClient (SwiftNIO): the engine for Linux servers, where it serves
/// several times the requests per second of `URLSession` with flat memory, and for certificate
/// pinning.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let session = Session(transport: transport)
/// let user = try await session.request("https://api.example.com/user").decode(User.self)
/// try await session.shutdown()   // closes the connections
/// ```
///
/// The whole pipeline (retry, authentication, throttling, redirects, cookies, monitors,
/// streaming, downloads) runs as over `URLSession`: the engine follows no redirects and keeps no
/// cookies; every timeout is the session's. Response bodies are pulled from the connection as the
/// reader asks for them, at most three chunks ahead; request bodies stream from files and sequences.
/// Errors are classified as ``TransportError``s with NIO's own error underneath.
///
/// On Apple platforms, prefer ``URLSessionTransport``: it uses the system's network stack, proxy
/// settings and trust store.
public final class AsyncHTTPClientTransport: Transport, Sendable {
    /// The configuration the transport was made with.
    public let configuration: Configuration

    /// The client for hosts no pin names.
    private let client: PooledClient
    /// One client per pinned host or pattern, whose every new connection is checked against the
    /// pins before it carries a request (a connection's channel does not say which host it is
    /// for, a client's does).
    private let pinnedClients: [String: PooledClient]
    private let state = LockedFlag()

    /// Creates the transport and its connection pool.
    ///
    /// - Parameter configuration: Pool, TLS, pins, decompression, proxy and event loops; the
    ///   defaults when not given.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let group = configuration.eventLoopGroup ?? HTTPClient.defaultEventLoopGroup
        client = PooledClient(group: group, configuration: configuration, verifying: nil)
        var pinned: [String: PooledClient] = [:]
        for (pattern, pins) in configuration.pins.pinsByHost {
            let verifier = PinVerifier(pattern: pattern, pins: pins)
            pinned[pattern] = PooledClient(group: group, configuration: configuration, verifying: verifier)
        }
        pinnedClients = pinned
    }

    deinit {
        // A transport dropped without `shutdown()` closes its connections all the same.
        if state.set() {
            for client in [client] + pinnedClients.values {
                client.http.shutdown { _ in }
            }
        }
    }

    /// Decompression, when on, and the `Accept-Encoding` it adds.
    public var behavior: TransportBehavior {
        switch configuration.decompression {
        case .disabled:
            TransportBehavior()
        case .enabled:
            TransportBehavior(decodesContentEncoding: true, addedHeaders: ["Accept-Encoding": Configuration.acceptEncoding])
        }
    }

    /// Sends a request and returns when its head has arrived; the body streams from the connection
    /// as it is read.
    ///
    /// - Parameter request: The request and its body.
    /// - Returns: The head and the body.
    /// - Throws: A ``TransportError`` classifying the failure (NIO's error beneath), or
    ///   `CancellationError` when the calling task or the request's handle was cancelled.
    public func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let host = request.request.target.host
        guard !host.isEmpty else {
            throw TransportError(.other, detail: "the request has no URL with a host")
        }
        #if WebSocket
        if let upgrade = request.request.options.webSocketUpgrade {
            let pattern = configuration.pins.pattern(for: host)
            let pins = pattern.flatMap { pattern in configuration.pins.pinsByHost[pattern].map { PinVerifier(pattern: pattern, pins: $0) } }
            let group = configuration.eventLoopGroup ?? HTTPClient.defaultEventLoopGroup
            return try await WebSocketHandshake(request: request, upgrade: upgrade, configuration: configuration, group: group, pins: pins).run()
        }
        #else
        if request.request.options.webSocketUpgrade != nil {
            throw TransportError(.other, detail: "AsyncHTTPClientTransport opens a WebSocket only with the package trait WebSocket")
        }
        #endif
        let client = configuration.pins.pattern(for: host).flatMap { pinnedClients[$0] } ?? self.client
        let exchange = Exchange(client: client, request: request, decompression: configuration.decompression, shutDown: state)
        let stream = exchange.stream
        exchange.start()
        let head = try await stream.head()
        return (head, ResponseBody(source: stream))
    }

    /// Closes every connection and the clients; requests sent afterwards fail.
    ///
    /// - Throws: AsyncHTTPClient's error when a client could not shut down cleanly.
    public func shutdown() async throws {
        guard state.set() else { return }
        for client in [client] + pinnedClients.values {
            try await client.http.shutdown()
        }
    }

    /// `HTTP/1.1`, `HTTP/2`: the common versions without building the text per response.
    static func versionText(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (2, 0): "HTTP/2"
        case (1, 0): "HTTP/1.0"
        default: "HTTP/\(version.major)" + (version.major < 2 ? ".\(version.minor)" : "")
        }
    }

    /// The response's fields in the order the server sent them, repeats kept apart (the
    /// ``ResponseHead`` promise; only `HTTPURLResponse`, which keeps no order, is sorted by name).
    static func headers(_ fields: NIOHTTP1.HTTPHeaders) -> Requests.HTTPHeaders {
        var headers = Requests.HTTPHeaders()
        for (name, value) in fields {
            headers.append(name: name, value: value)
        }
        return headers
    }
}

// MARK: - LockedFlag

/// A flag that is set once. Invariant: once set, it stays set.
final class LockedFlag: Sendable {
    private let value = Guarded(false)

    /// Sets the flag.
    ///
    /// - Returns: Whether this call set it (it was not set before).
    func set() -> Bool {
        value.withLock { value in
            defer { value = true }
            return !value
        }
    }

    /// Whether the flag is set.
    var isSet: Bool {
        value.withLock { $0 }
    }
}
#endif
