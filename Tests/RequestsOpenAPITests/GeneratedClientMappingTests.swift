#if OpenAPI
import Foundation
import HTTPTypes
import LoopbackFixture
import OpenAPIRuntime
import Requests
import RequestsOpenAPI
import TransportContract
import Testing

/// Records each request as the generated client hands it to the transport.
struct CapturingMiddleware: ClientMiddleware {
    let seen = Guarded<[HTTPRequest]>([])
    /// Fields appended to every request, after the client's own.
    var appending: [HTTPField] = []

    func intercept(
        _ request: HTTPRequest, body: OpenAPIRuntime.HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?)
    ) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        var request = request
        request.headerFields.append(contentsOf: appending)
        seen.withLock { $0.append(request) }
        return try await next(request, body, baseURL)
    }
}

/// A generated client over `SessionClientTransport` against the loopback server: what the client
/// encodes reaches the server unchanged, bodies stream both ways.
@Suite struct GeneratedClientMappingTests {
    @Test(arguments: Engine.all)
    func pathQueryAndHeaderArriveAsTheClientEncodedThem(engine: Engine) async throws {
        let capture = CapturingMiddleware()
        let echo = try await withClient(engine, middlewares: [capture]) { client, _ in
            try await client.getItem(
                path: .init(itemID: "item 7/é"),
                query: .init(tag: ["a b", "c&d=e", "ü+"], limit: 3),
                headers: .init(xTrace: "trace-1")
            ).ok.body.json
        }
        let sent = try #require(capture.seen.withLock { $0.first?.path })
        #expect(echo.method == "GET")
        // The server reads the raw target: byte for byte what the client encoded.
        #expect(echo.path + "?" + echo.query == sent)
        #expect(sent.hasPrefix("/anything/items/item%207%2F%C3%A9?"))
        #expect(echoedValues(echo, "X-Trace") == ["trace-1"])
        #expect(echoedValues(echo, "Accept") == ["application/json"])
    }

    @Test(arguments: Engine.all)
    func jsonGoesInAndComesOut(engine: Engine) async throws {
        try await withClient(engine) { client, _ in
            let output = try await client.createItem(body: .json(.init(name: "widget", tags: ["x", "y"], price: 2.5)))
            let echo = try output.ok.body.json
            #expect(echo.method == "POST")
            #expect(echo.path == "/anything/items")
            #expect(echoedValues(echo, "Content-Type") == ["application/json; charset=utf-8"])
            let item = try JSONDecoder().decode(Components.Schemas.NewItem.self, from: echoedBody(echo))
            #expect(item == .init(name: "widget", tags: ["x", "y"], price: 2.5))
            #expect(echoedValues(echo, "Content-Length") == ["\(echoedBody(echo).count)"])
        }
    }

    @Test(arguments: Engine.all)
    func fieldsKeepTheirOrderAndRepeats(engine: Engine) async throws {
        var capture = CapturingMiddleware()
        let repeated = HTTPField.Name("X-Repeat")!
        capture.appending = [HTTPField(name: repeated, value: "1"), HTTPField(name: .init("X-Middle")!, value: "m"), HTTPField(name: repeated, value: "2")]
        let echo = try await withClient(engine, middlewares: [capture]) { client, _ in
            try await client.getItem(path: .init(itemID: "order")).ok.body.json
        }
        let values = echoedValues(echo, "X-Repeat")
        switch engine {
        case .asyncHTTPClient:
            // Fields reach the wire in the client's order, each repeat a field of its own.
            let names = echo.headers.map { $0[0] }
            let ours = names.filter { ["X-Repeat", "X-Middle"].contains($0) }
            #expect(ours == ["X-Repeat", "X-Middle", "X-Repeat"])
            #expect(values == ["1", "2"])
        case .urlSession:
            // Foundation joins a repeated field into one line and orders fields itself.
            #expect(values.flatMap { $0.components(separatedBy: ", ") } == ["1", "2"])
        }
        #expect(echoedValues(echo, "X-Middle") == ["m"])
    }

    @Test(arguments: Engine.all)
    func aKnownLengthBodyStreamsWithContentLength(engine: Engine) async throws {
        let size = 3 << 20
        let bytes = Array(LoopbackServer.pattern(size))
        let (chunks, continuation) = AsyncThrowingStream<OpenAPIRuntime.HTTPBody.ByteChunk, any Error>.makeStream()
        let producer = Task {
            var offset = 0
            while offset < size {
                continuation.yield(bytes[offset..<min(size, offset + 65536)])
                offset += 65536
            }
            continuation.finish()
        }
        defer { producer.cancel() }
        try await withClient(engine) { client, _ in
            let body = OpenAPIRuntime.HTTPBody(chunks, length: .known(Int64(size)), iterationBehavior: .single)
            let result = try await client.upload(body: .binary(body)).ok.body.json
            // The server reads only as many bytes as Content-Length announces.
            #expect(result.method == "PUT")
            #expect(result.size == Int64(size))
            #expect(result.sha256 == SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined())
            #expect(result.contentType == "application/octet-stream")
        }
    }

    @Test(arguments: Engine.all)
    func aBodyOfUnknownLengthArrivesWhole(engine: Engine) async throws {
        let bytes = Array(LoopbackServer.pattern(300_000, from: 7))
        try await withClient(engine) { client, _ in
            let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                for start in stride(from: 0, to: bytes.count, by: 10_000) {
                    continuation.yield(bytes[start..<min(bytes.count, start + 10_000)])
                }
                continuation.finish()
            }
            let body = OpenAPIRuntime.HTTPBody(stream, length: .unknown, iterationBehavior: .single)
            let echo = try await client.sendChunked(body: .binary(body)).ok.body.json
            #expect(echoedBody(echo) == Data(bytes))
        }
    }

    @Test(arguments: Engine.all)
    func aTenMebibyteDownloadStreamsAsItArrives(engine: Engine) async throws {
        let key = uniqueKey("download")
        let total = 10 << 20
        let stats = try plainClient()
        // A try whose first chunk came only after the server had finished, while this process
        // was a second or more late, is made again: the process, not the transport, waited.
        try await retryingWhenLate { beside in try await withClient(engine) { client, _ in
            let key = "\(key)-\(UUID().uuidString.prefix(4))"
            // 160 chunks of 64 KiB, 20 ms apart: the server needs 3.2 s at least.
            let output = try await client.download(path: .init(key: key), query: .init(bytes: total, chunk: 65536, intervalMs: 20))
            let ok = try output.ok
            let body = try ok.body.binary
            #expect(body.length == .unknown, "a chunked answer has no length")
            var iterator = body.makeAsyncIterator()
            let first = try #require(try await iterator.next())
            let atFirst = try await stats.downloadStats(path: .init(key: key)).ok.body.json
            // The client holds the first bytes while the server has not sent the rest: nothing
            // waited for the whole body.
            guard !atFirst.finished else {
                throw FixtureError("the server had finished before the first chunk was read: \(atFirst) (the runtime was \(await beside.value) late)")
            }
            var count = first.count
            var largest = first.count
            var intact = LoopbackServer.isPattern(first)
            while let chunk = try await iterator.next() {
                intact = intact && LoopbackServer.isPattern(chunk, from: count)
                count += chunk.count
                largest = max(largest, chunk.count)
            }
            #expect(count == total)
            #expect(intact)
            #expect(largest <= 1 << 20, "a chunk of \(largest) bytes: the body was gathered, not streamed")
        } }
    }

    @Test(arguments: Engine.all)
    func droppingADownloadUnreadEndsItAtTheServer(engine: Engine) async throws {
        let key = uniqueKey("dropped")
        let stats = try plainClient()
        try await withClient(engine) { client, _ in
            do {
                let output = try await client.download(path: .init(key: key), query: .init(bytes: 50_000_000, chunk: 4096, intervalMs: 10))
                var iterator = try output.ok.body.binary.makeAsyncIterator()
                _ = try await iterator.next()
            }
            let end = ContinuousClock.now + .seconds(20)
            var seen = try await stats.downloadStats(path: .init(key: key)).ok.body.json
            while !seen.aborted, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(50))
                seen = try await stats.downloadStats(path: .init(key: key)).ok.body.json
            }
            #expect(seen.aborted, "the server kept sending: \(seen)")
            #expect(!seen.finished)
        }
    }

    @Test(arguments: Engine.all)
    func noStatusIsValidated(engine: Engine) async throws {
        try await withClient(engine) { client, _ in
            let output = try await client.whoAmI(path: .init(realm: uniqueKey("anonymous")))
            #expect(try output.unauthorized.body.json.error == "invalid_token")
        }
    }

    @Test(arguments: Engine.all)
    func aFailedTransferIsARequestErrorInsideClientError(engine: Engine) async throws {
        // Port 9 (discard) is closed on loopback here: the connection is refused.
        let error = try await withClient(engine, serverURL: URL(string: "http://127.0.0.1:9")) { client, _ in
            await #expect(throws: ClientError.self) {
                try await client.getItem(path: .init(itemID: "1"))
            }
        }
        #expect(error?.operationID == "getItem")
        let thrown = try #require(error)
        let cause = try #require(requestError(in: thrown))
        #expect(cause.code == .transportFailed)
        #expect(cause.transportErrorKind == .cannotConnect)
    }
}
#endif
