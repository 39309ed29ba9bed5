#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTPCompression
import Requests
import RequestsAsyncHTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Client

/// One way the benchmark sends its request (the four the issue compares, and the transport
/// alone), as one closure that sends it, reads the whole body and checks the answer.
///
/// Each client may open one connection per request in flight, so that all four see the same
/// server: `URLSession` through `httpMaximumConnectionsPerHost`, AsyncHTTPClient through its
/// pool's soft limit. Raw AsyncHTTPClient is configured as the transport configures its own
/// client (no redirects, decompression on, `Accept-Encoding` sent), so that its ratio measures
/// what `Session` and the transport add, nothing else.
struct Client: Sendable {
    /// Which client.
    enum Kind: CaseIterable, Sendable {
        case rawURLSession, sessionOverURLSession, rawAsyncHTTPClient, sessionOverAsyncHTTPClient
        /// For `--split` and `--profile`: the transport's `send` and the body collected,
        /// without `Session`, which splits what the two add.
        case transportAlone

        /// The four clients the issue compares.
        static let compared: [Kind] = [.rawURLSession, .sessionOverURLSession, .rawAsyncHTTPClient, .sessionOverAsyncHTTPClient]

        /// The name in the table.
        var name: String {
            switch self {
            case .rawURLSession: "raw `URLSession.data(for:)`"
            case .sessionOverURLSession: "`Session` over URLSession"
            case .rawAsyncHTTPClient: "raw AsyncHTTPClient"
            case .sessionOverAsyncHTTPClient: "`Session` over AsyncHTTPClient"
            case .transportAlone: "`AsyncHTTPClientTransport.send` alone"
            }
        }

        /// The name `--profile` takes.
        var argument: String {
            switch self {
            case .rawURLSession: "raw-urlsession"
            case .sessionOverURLSession: "session-urlsession"
            case .rawAsyncHTTPClient: "raw-ahc"
            case .sessionOverAsyncHTTPClient: "session-ahc"
            case .transportAlone: "transport-ahc"
            }
        }
    }

    let kind: Kind
    /// Sends one request and reads its whole body; throws unless the answer is the expected one.
    let send: @Sendable () async throws -> Void
    /// Closes the client's connections.
    let shutdown: @Sendable () async throws -> Void

    /// Makes a client of `kind` for the small answer at `url`.
    ///
    /// - Parameters:
    ///   - kind: Which client.
    ///   - url: The URL of the small answer.
    ///   - connections: How many connections it may open to the server.
    static func make(_ kind: Kind, url: URL, connections: Int) -> Client {
        let expected = NginxServer.smallBody.utf8.count
        switch kind {
        case .rawURLSession:
            let urlSession = URLSession(configuration: urlSessionConfiguration(connections: connections))
            let request = URLRequest(url: url)
            return Client(kind: kind, send: {
                let (data, response) = try await urlSession.data(for: request)
                try check(kind, status: (response as? HTTPURLResponse)?.statusCode, bytes: data.count, expected: expected)
            }, shutdown: { urlSession.invalidateAndCancel() })
        case .sessionOverURLSession:
            let session = Session(configuration: urlSessionConfiguration(connections: connections))
            return Client(kind: kind, send: {
                let response = try await session.request(url)
                try check(kind, status: response.statusCode, bytes: response.data.count, expected: expected)
            }, shutdown: { try await session.shutdown() })
        case .rawAsyncHTTPClient:
            let client = rawAsyncHTTPClient(connections: connections)
            let request = rawRequest(url)
            return Client(kind: kind, send: {
                let response = try await client.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1 << 20)
                try check(kind, status: Int(response.status.code), bytes: body.readableBytes, expected: expected)
            }, shutdown: { try await client.shutdown() })
        case .sessionOverAsyncHTTPClient:
            let session = sessionOverAsyncHTTPClient(connections: connections)
            return Client(kind: kind, send: {
                let response = try await session.request(url)
                try check(kind, status: response.statusCode, bytes: response.data.count, expected: expected)
            }, shutdown: { try await session.shutdown() })
        case .transportAlone:
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.maximumConnectionsPerHost = connections
            let transport = AsyncHTTPClientTransport(configuration: configuration)
            let request = OutgoingRequest(url: url)
            return Client(kind: kind, send: {
                let (head, body) = try await transport.send(TransportRequest(request, readsBodyWhole: true))
                let data = try await body.collect()
                try check(kind, status: head.statusCode, bytes: data.count, expected: expected)
            }, shutdown: { try await transport.shutdown() })
        }
    }

    // MARK: Engines

    /// `Session` over the transport with its default configuration but for the pool's size.
    static func sessionOverAsyncHTTPClient(connections: Int) -> Session {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.maximumConnectionsPerHost = connections
        return Session(transport: AsyncHTTPClientTransport(configuration: configuration))
    }

    /// AsyncHTTPClient configured as the transport's default configuration configures it, on the
    /// same shared event loop group.
    static func rawAsyncHTTPClient(connections: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            connectionPool: HTTPClient.Configuration.ConnectionPool(
                idleTimeout: .seconds(60),
                concurrentHTTP1ConnectionsPerHostSoftLimit: connections
            ),
            decompression: .enabled(limit: NIOHTTPDecompression.DecompressionLimit.ratio(100))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// A GET of `url` with the `Accept-Encoding` the transport adds when decompression is on.
    static func rawRequest(_ url: URL) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        return request
    }

    private static func urlSessionConfiguration(connections: Int) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        return configuration
    }

    private static func check(_ kind: Kind, status: Int?, bytes: Int, expected: Int) throws {
        guard status == 200, bytes == expected else {
            throw BenchmarkError("\(kind.name) got status \(status.map(String.init) ?? "none") and \(bytes) bytes, expected 200 and \(expected)")
        }
    }
}
#endif
