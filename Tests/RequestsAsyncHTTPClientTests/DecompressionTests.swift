#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import NIOHTTPCompression
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Configuration.decompression`: gzip and deflate bodies are decoded and asked for, a caller's
/// own `Accept-Encoding` is kept, `.disabled` delivers the bytes on the wire, and the limit stops
/// a decompression bomb early, in memory as in time.
@Suite struct DecompressionTests {
    @Test(arguments: ["gzip", "deflate"])
    func aCompressedBodyIsDecodedAndAcceptEncodingWasSent(encoding: String) async throws {
        try await withTransport { transport in
            #expect(transport.behavior.decodesContentEncoding)
            #expect(transport.behavior.addedHeaders["Accept-Encoding"] == "gzip, deflate")
            let session = Session(transport: transport, cookies: .none)
            let response = try await session.request(try server().url("/\(encoding)"))
            #expect(response.statusCode == 200)
            #expect(response.headers["Content-Encoding"] == encoding)
            // The server compressed its echo of the request: it reads as JSON only once decoded.
            let echo = try response.decode(Echo.self)
            #expect(echo.path == "/\(encoding)")
            #expect(echo.values("Accept-Encoding") == ["gzip, deflate"])
        }
    }

    @Test func aRequestThatNamesItsOwnAcceptEncodingKeepsIt() async throws {
        try await withTransport { transport in
            let session = Session(transport: transport, cookies: .none)
            let identity = try await session.request(try server().url("/anything"), headers: ["Accept-Encoding": "identity"])
            #expect(try identity.decode(Echo.self).values("Accept-Encoding") == ["identity"])
            // A body the server compresses anyway is still decoded.
            let gzip = try await session.request(try server().url("/gzip"), headers: ["accept-encoding": "gzip"])
            #expect(try gzip.decode(Echo.self).values("Accept-Encoding") == ["gzip"])
        }
    }

    @Test func disabledDeliversTheBytesOnTheWireAndAddsNoAcceptEncoding() async throws {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.decompression = .disabled
        try await withTransport(configuration) { transport in
            #expect(!transport.behavior.decodesContentEncoding)
            #expect(transport.behavior.addedHeaders.isEmpty)
            let session = Session(transport: transport, cookies: .none)
            let echo = try await session.request(try server().url("/anything")).decode(Echo.self)
            #expect(echo.values("Accept-Encoding").isEmpty, "\(echo.headers)")
            let raw = try await session.request(try server().url("/gzip"))
            #expect(raw.headers["Content-Encoding"] == "gzip")
            #expect(raw.headers["Content-Length"] == String(raw.data.count))
            #expect(Array(raw.data.prefix(2)) == [0x1F, 0x8B], "the body is not the gzip stream: \(Array(raw.data.prefix(8)))")
        }
    }

    /// 200 MB of zeros, gzipped to about 200 KB by the server as it sends them: the default limit
    /// (100 times the compressed size) stops the body at its first chunks, fewer than 10 MB
    /// decoded. The process's resident memory is printed, not bounded: with the whole suite in the
    /// same process (`swift test --traits AsyncHTTPClient`), other tests move it by as much.
    @Test func aDecompressionBombFailsAtTheDefaultLimitQuicklyAndInLittleMemory() async throws {
        try await withTransport { transport in
            let session = Session(transport: transport, cookies: .none)
            let before = residentMemory()
            let probe = LatenessProbe()
            let start = ContinuousClock.now
            let inflated = 200_000_000
            let stream = try await session.stream(try server().url("/zeros/\(inflated)"))
            #expect(stream.headers["Content-Encoding"] == "gzip")
            var received = 0
            var peak = before ?? 0
            let error = await #expect(throws: RequestError.self) {
                for try await chunk in stream.body {
                    received += chunk.count
                    peak = max(peak, residentMemory() ?? 0)
                }
            }
            peak = max(peak, residentMemory() ?? 0)
            let (inTime, took) = await isWithin(.seconds(5), ContinuousClock.now - start, beside: probe)
            print("decompression bomb: \(error.map { "\($0)" } ?? "no error") after \(megabytes(received)) decoded, \(took), resident memory \(before.map(megabytes) ?? "?") -> peak \(megabytes(peak))")
            #expect(error?.code == .streamFailed)
            #expect(error?.transportErrorKind == .other)
            #expect(error?.description.contains("decompression limit") == true, "\(String(describing: error))")
            #expect(inTime, "the bomb \(took)")
            #expect(received < 10_000_000, "\(received) bytes were decoded before the limit stopped the body")
        }
    }

    @Test func aDecompressionBombFailsTheSameWayForAWholeBodyRequest() async throws {
        try await withTransport { transport in
            let session = Session(transport: transport, cookies: .none)
            let error = await #expect(throws: RequestError.self) {
                try await session.request(try server().url("/zeros/50000000"))
            }
            #expect(error?.code == .transportFailed)
            #expect(error?.transportErrorKind == .other)
            #expect(error?.description.contains("decompression limit") == true, "\(String(describing: error))")
        }
    }

    /// 2 MiB of zeros compress a thousandfold: a size limit, unlike the default ratio, can let
    /// them through, and a smaller one stops them.
    @Test func aSizeLimitIsHonoured() async throws {
        let zeros = 2 << 20
        var roomy = AsyncHTTPClientTransport.Configuration()
        roomy.decompression = .enabled(limit: .size(4 << 20))
        try await withTransport(roomy) { transport in
            let data = try await Session(transport: transport, cookies: .none).request(try server().url("/zeros/\(zeros)")).data
            #expect(data.count == zeros)
            #expect(data.allSatisfy { $0 == 0 })
        }
        var tight = AsyncHTTPClientTransport.Configuration()
        tight.decompression = .enabled(limit: .size(1 << 20))
        try await withTransport(tight) { transport in
            let error = await #expect(throws: RequestError.self) {
                try await Session(transport: transport, cookies: .none).request(try server().url("/zeros/\(zeros)"))
            }
            #expect(error?.transportErrorKind == .other)
            #expect(error?.description.contains("decompression limit") == true, "\(String(describing: error))")
        }
        try await withTransport { transport in
            let error = await #expect(throws: RequestError.self) {
                try await Session(transport: transport, cookies: .none).request(try server().url("/zeros/\(zeros)"))
            }
            #expect(error?.description.contains("decompression limit") == true, "the default ratio let 2 MiB of zeros through")
        }
    }

    /// The decompressor hands on what each piece of the wire inflates to, which may be nothing
    /// (a gzip header): the reader never sees an empty chunk.
    @Test func noDecodedChunkIsEmpty() async throws {
        var roomy = AsyncHTTPClientTransport.Configuration()
        roomy.decompression = .enabled(limit: .size(8 << 20))
        try await withTransport(roomy) { transport in
            for path in ["/gzip", "/deflate", "/zeros/4194304"] {
                let (_, body) = try await transport.send(TransportRequest(OutgoingRequest(url: try server().url(path))))
                var sizes: [Int] = []
                for try await chunk in body { sizes.append(chunk.count) }
                let empty = sizes.filter { $0 == 0 }.count
                #expect(empty == 0, "\(path) came in \(sizes.count) chunks, \(empty) of them empty: \(sizes.prefix(8))…")
                #expect(sizes.reduce(0, +) > 0)
            }
        }
    }
}
#endif
