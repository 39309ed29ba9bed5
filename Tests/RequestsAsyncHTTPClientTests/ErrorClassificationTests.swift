#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import LoopbackFixture
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import Requests
import Testing
import TransportContract

@testable import RequestsAsyncHTTPClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `AsyncHTTPClientTransport.classify(_:)`: NIO's, NIOSSL's and AsyncHTTPClient's errors become
/// the transport-neutral kinds the retry policy reads, with the engine's error beneath; and the
/// same kinds arrive from a live refused connection and a live reset.
@Suite struct ErrorClassificationTests {
    /// One engine error and the kind it must be classified as.
    struct Row: Sendable, CustomStringConvertible {
        let error: any Error
        let kind: TransportError.Kind
        /// Words the classified error's description must hold, beyond the engine's own.
        var words: String = ""
        var description: String { "\(error) -> \(kind)" }
    }

    static let rows: [Row] = [
        Row(error: IOError(errnoCode: ECONNREFUSED, reason: "connect"), kind: .cannotConnect, words: "the connection was refused"),
        Row(error: IOError(errnoCode: ECONNRESET, reason: "read"), kind: .connectionLost, words: "the connection was reset"),
        Row(error: IOError(errnoCode: EPIPE, reason: "write"), kind: .connectionLost),
        Row(error: IOError(errnoCode: EHOSTUNREACH, reason: "connect"), kind: .cannotConnect),
        Row(error: IOError(errnoCode: ETIMEDOUT, reason: "connect"), kind: .timedOut),
        Row(error: ChannelError.ioOnClosedChannel, kind: .connectionLost, words: "the connection closed"),
        Row(error: ChannelError.eof, kind: .connectionLost),
        Row(error: ChannelError.connectTimeout(.seconds(1)), kind: .timedOut),
        Row(error: HTTPClientError.remoteConnectionClosed, kind: .connectionLost, words: "the server closed the connection"),
        Row(error: HTTPClientError.connectTimeout, kind: .timedOut, words: "connecting took too long"),
        Row(error: HTTPClientError.readTimeout, kind: .timedOut),
        Row(error: HTTPClientError.alreadyShutdown, kind: .other, words: "the transport was shut down"),
        // The transport never asks the engine to cancel: one it reports cancelled, it stopped on
        // its own (the transport shutting down under the request), which is no CancellationError.
        Row(error: HTTPClientError.cancelled, kind: .cancelled, words: "the engine cancelled the request"),
        Row(error: NIOSSLError.handshakeFailed(.sslError([])), kind: .tls, words: "the TLS handshake failed"),
        Row(error: NIOSSLError.uncleanShutdown, kind: .connectionLost),
        // NIOSSL's own words name no host when it checked an IP address ("Couldn't find <none>").
        Row(error: NIOSSLExtraError.failedToValidateHostname, kind: .tls, words: "the server's certificate is not for this host"),
        Row(error: NIOHTTPDecompression.DecompressionError.limit, kind: .other, words: "the decompressed body passed the decompression limit"),
        Row(error: NIOHTTPDecompression.DecompressionError.inflationError(-3), kind: .other, words: "the body could not be decompressed"),
        Row(error: HTTPParserError.invalidEOFState, kind: .connectionLost, words: "the connection closed before the response was complete"),
        Row(error: HTTPParserError.invalidChunkSize, kind: .other, words: "the response is not valid HTTP"),
        Row(error: Unknown(), kind: .other),
    ]

    @Test(arguments: rows)
    func engineErrorsAreClassifiedWithTheEngineErrorBeneath(_ row: Row) throws {
        let classified = AsyncHTTPClientTransport.classify(row.error)
        let error = try #require(classified as? TransportError, "\(row.error) became \(type(of: classified))")
        #expect(error.kind == row.kind, "\(row.error) was classified \(error.kind): \(error)")
        if !row.words.isEmpty {
            #expect(error.description.contains(row.words), "\(error)")
        }
        let beneath = try #require(error.underlyingError)
        #expect(type(of: beneath) == type(of: row.error))
        #expect("\(beneath)" == "\(row.error)")
        #expect(TransportError.kind(of: classified) == row.kind)
    }

    /// AsyncHTTPClient's `cancelled` of a request nobody stopped: the pool ended it because the
    /// connection it was handed is closing (`HTTP2Tests` meets it when requests meet the server's
    /// idle close).
    @Test func theEnginesCancelledOfARequestNotStoppedIsALostConnection() throws {
        let classified = AsyncHTTPClientTransport.classify(HTTPClientError.cancelled, stopped: false)
        let error = try #require(classified as? TransportError)
        #expect(error.kind == .connectionLost)
        #expect(error.detail == "the connection closed under the request")
        #expect(error.underlyingError as? HTTPClientError == .cancelled)
    }

    @Test func theEnginesCancelledOfAStoppedRequestIsCancelled() throws {
        let classified = AsyncHTTPClientTransport.classify(HTTPClientError.cancelled, stopped: true)
        #expect(try #require(classified as? TransportError).kind == .cancelled)
    }

    @Test func cancellationStaysCancellation() {
        #expect(AsyncHTTPClientTransport.classify(CancellationError()) is CancellationError)
    }

    @Test func aTransportErrorIsKeptAsItIs() throws {
        let original = TransportError(.tls, detail: "pinned", underlyingError: Unknown())
        let kept = try #require(AsyncHTTPClientTransport.classify(original) as? TransportError)
        #expect(kept.kind == .tls && kept.detail == "pinned")
    }

    /// A name that does not resolve: NIO's own error for it, made by a bootstrap whose resolver
    /// fails every query, so that no lookup leaves the process.
    @Test func aNameThatDoesNotResolveIsDNSFailed() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let connecting = ClientBootstrap(group: loop)
            .resolver(FailingResolver(loop: loop))
            .connect(host: "no-such-host.test", port: 80)
        let error = await #expect(throws: (any Error).self) { try await connecting.get() }
        let engineError = try #require(error)
        let classified = try #require(AsyncHTTPClientTransport.classify(engineError) as? TransportError)
        print("a name that does not resolve: \(engineError) -> \(classified)")
        #expect(classified.kind == .dnsFailed, "\(classified)")
        #expect(classified.description.contains("no-such-host.test could not be resolved"))
    }

    // MARK: Live

    @Test func aRefusedPortIsCannotConnect() async throws {
        try await withTransport { transport in
            let session = Session(transport: transport, cookies: .none)
            let refused = try #require(URL(string: "http://127.0.0.1:1/anything"))
            let error = await #expect(throws: RequestError.self) { try await session.request(refused) }
            print("refused: \(error.map { "\($0)" } ?? "no error")")
            #expect(error?.code == .transportFailed)
            #expect(error?.transportErrorKind == .cannotConnect)
            #expect(error?.description.contains("127.0.0.1") == true)
        }
    }

    @Test func aResetMidBodyIsConnectionLostFromTheBody() async throws {
        try await withTransport { transport in
            let url = try hostileServer().url("/reset-in-body")
            let (head, body) = try await transport.send(TransportRequest(OutgoingRequest(url: url)))
            #expect(head.statusCode == 200)
            var received = 0
            let error = await #expect(throws: RequestError.self) {
                for try await chunk in body { received += chunk.count }
            }
            print("reset mid-body, after \(received) bytes: \(error.map { "\($0)" } ?? "no error")")
            #expect(error?.code == .streamFailed)
            #expect(error?.transportErrorKind == .connectionLost)
            #expect(received <= 1000)
        }
    }
}

// MARK: - Helpers

/// An error no engine knows.
private struct Unknown: Error, CustomStringConvertible {
    var description: String { "unknown" }
}

/// A resolver that answers every query with a failure, at once.
private final class FailingResolver: Resolver, Sendable {
    struct NoSuchHost: Error, CustomStringConvertible {
        let host: String
        var description: String { "no such host: \(host) (a test resolver)" }
    }

    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeFailedFuture(NoSuchHost(host: host))
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeFailedFuture(NoSuchHost(host: host))
    }

    func cancelQueries() {}
}
#endif
