import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests
import RequestsTesting
import Testing

/// `StubTransport` with the rest of the pipeline: streamed bodies, delays and timeouts,
/// authentication, redirects, cookies, and recording under concurrency.
@Suite struct StubTransportPipelineTests {
    @Test func aStreamedBodyArrivesChunkByChunkAndCanFailMidway() async throws {
        let stub = StubTransport()
        let chunks = (0..<4).map { Data("line \($0)\n".utf8) }
        stub.on(.get, "/feed", respond: .stream(chunks, every: .milliseconds(20)))
        stub.on(.get, "/cut", respond: .stream(Array(chunks.prefix(2)), failingWith: .connectionLost))
        let session = Session(transport: stub)

        let stream = try await session.stream("https://api.example/feed")
        #expect(stream.headers["Content-Length"] == nil)
        var lines: [String] = []
        for try await line in stream.body.lines { lines.append(line) }
        #expect(lines == ["line 0", "line 1", "line 2", "line 3"])

        let cut = try await session.stream("https://api.example/cut")
        var read = Data()
        let error = await #expect(throws: RequestError.self) {
            for try await chunk in cut.body { read.append(chunk) }
        }
        #expect(read == chunks[0] + chunks[1])
        #expect(error?.code == .streamFailed)
        #expect(error?.transportErrorKind == .connectionLost)
    }

    @Test func aReplayableStreamIsSentWholeAgainOnRetryAndRedirect() async throws {
        let stub = StubTransport()
        stub.on(.post, "/busy", respond: .status(503), .status(307, headers: ["Location": "/moved"]))
        stub.on(.post, "/moved", respond: .text("done"))
        let made = Guarded(0)
        let body = RequestBody.stream(length: 6) { () -> AsyncStream<Data> in
            made.withLock { $0 += 1 }
            return AsyncStream { continuation in
                continuation.yield(Data("abc".utf8))
                continuation.yield(Data("def".utf8))
                continuation.finish()
            }
        }
        #expect(body.isReplayable)
        let retry = RetryPolicy(baseDelay: .zero, methods: [.post])
        let session = Session(transport: stub, interceptors: [retry])
        let response = try await session.request(OutgoingRequest(url: URL(string: "https://api.example/busy")!, method: .post, body: body))
        #expect(response.text == "done")
        #expect(stub.requests.map(\.description) == ["POST https://api.example/busy", "POST https://api.example/busy", "POST https://api.example/moved"])
        #expect(stub.requests.map(\.bodyText) == ["abcdef", "abcdef", "abcdef"])
        #expect(made.withLock { $0 } == 3, "one sequence per send")
    }

    @Test func aOneShotStreamFailsTheRetryThatWouldNeedItAgain() async throws {
        let stub = StubTransport()
        stub.on(.post, "/busy", respond: .status(503), .text("done"))
        let body = RequestBody.stream(AsyncStream { continuation in
            continuation.yield(Data("abc".utf8))
            continuation.finish()
        }, length: 3)
        let session = Session(transport: stub, interceptors: [RetryPolicy(baseDelay: .zero, methods: [.post])])
        let error = await #expect(throws: RequestError.self) {
            try await session.request(OutgoingRequest(url: URL(string: "https://api.example/busy")!, method: .post, body: body))
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("the body is a stream, which is sent once") == true)
        #expect(stub.requests.map(\.bodyText) == ["abc"], "sent once, never empty")
    }

    @Test func cancellingAStreamedBodyStopsItDuringAWait() async throws {
        let stub = StubTransport()
        stub.on(respond: .stream([Data("a".utf8), Data("b".utf8)], every: .seconds(30)))
        let stream = try await Session(transport: stub).stream("https://api.example/slow")
        var chunks = stream.body.makeAsyncIterator()
        #expect(try await chunks.next() == Data("a".utf8))
        let start = ContinuousClock.now
        Task {
            try await Task.sleep(for: .milliseconds(100))
            stream.body.cancel()
        }
        await #expect(throws: (any Error).self) { _ = try await chunks.next() }
        #expect(ContinuousClock.now - start < .seconds(20), "the 30 s wait was not cut short")
    }

    @Test func aDelayedHeadMeetsTheSessionsTimeout() async throws {
        let stub = StubTransport()
        stub.on(respond: StubResponse.text("late").delayed(by: .seconds(30)))
        let start = ContinuousClock.now
        let error = await #expect(throws: RequestError.self) {
            try await Session(transport: stub).request("https://api.example/", timeout: .milliseconds(200))
        }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(20), "the 30 s delay was not cut short")
    }

    actor Tokens: TokenProvider {
        private(set) var current = "old"
        private(set) var refreshes = 0
        func token() async throws -> String { current }
        func refreshToken(rejected: String) async throws -> String {
            refreshes += 1
            current = "new"
            return current
        }
    }

    @Test func bearerAuthenticationSeesTheStubbed401AndRetriesWithTheNewToken() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", headers: ["Authorization": "Bearer old"], respond: .status(401, headers: ["WWW-Authenticate": "Bearer"]))
        let accepted = stub.on(.get, "/me", headers: ["Authorization": "Bearer new"], respond: .text("me"))
        let tokens = Tokens()
        let session = Session(transport: stub, interceptors: [BearerAuthentication(provider: tokens, scope: .anyOrigin)])
        let response = try await session.request("https://api.example/me")
        #expect(response.text == "me")
        #expect(await tokens.refreshes == 1)
        #expect(accepted.hits == 1)
        #expect(stub.requests.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer new"])
    }

    @Test func redirectsAndCookiesFollowStubbed3xxAndSetCookie() async throws {
        let stub = StubTransport()
        stub.on(.post, "/login", respond: .status(303, headers: ["Location": "/home", "Set-Cookie": "session=abc; Path=/"]))
        let home = stub.on(.get, "/home", headers: ["Cookie": "session=abc"], respond: .text("welcome"))
        let session = Session(transport: stub)
        let response = try await session.request("https://api.example/login", method: .post, parameters: ["user": "ada"])
        #expect(response.text == "welcome")
        #expect(home.hits == 1)
        #expect(stub.requests.map(\.description) == ["POST https://api.example/login", "GET https://api.example/home"])
    }

    /// A stub sees the caller's fields as the pipeline built them: in order, repeats kept, a
    /// session field replaced by the call's of the same name.
    @Test func aStubSeesTheCallersFieldsInOrderWithTheirRepeats() async throws {
        let stub = StubTransport()
        stub.on(.get, "/fields", respond: .text("ok"))
        let session = Session(transport: stub, headers: ["X-Alpha": "session", "X-Session": "s"], cookies: .none)
        var call = HTTPHeaders()
        for (name, value) in [("X-Zeta", "1"), ("X-Alpha", "2"), ("X-Mid", "3"), ("X-Alpha", "4"), ("Cookie", "b=2"), ("Cookie", "a=1")] {
            call.append(name: name, value: value)
        }
        _ = try await session.request("https://api.example/fields", headers: call)
        let fields = try #require(stub.requests.first).headers.map { "\($0.name): \($0.value)" }
        #expect(fields == ["X-Session: s", "X-Zeta: 1", "X-Alpha: 2", "X-Mid: 3", "X-Alpha: 4", "Cookie: b=2", "Cookie: a=1"])
    }

    @Test func twoHundredConcurrentRequestsAreEachRecordedOnce() async throws {
        let stub = StubTransport()
        let route = stub.on(.post, "/items", respond: .status(201))
        let session = Session(transport: stub)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await session.request("https://api.example/items", method: .post, parameters: ["n": index]).statusCode
                }
            }
            for try await status in group { #expect(status == 201) }
        }
        #expect(route.hits == 200)
        let numbers = stub.requests.map(\.bodyText).sorted()
        #expect(Set(numbers) == Set((0..<200).map { "n=\($0)" }))
        #expect(numbers.count == 200)
    }

    @Test func aStreamedRequestBodyIsReadWholeWithProgress() async throws {
        let stub = StubTransport()
        let route = stub.on(.put, "/upload", respond: .status(204))
        let parts = (0..<3).map { Data(repeating: UInt8($0), count: 1000) }
        let body = AsyncStream<Data> { continuation in
            for part in parts { continuation.yield(part) }
            continuation.finish()
        }
        let upload = Session(transport: stub).upload(.stream(body, length: 3000), to: "https://api.example/upload", method: .put)
        #expect(try await upload.response().statusCode == 204)
        var progress: [Int64] = []
        for await step in upload.progress { progress.append(step.completedBytes) }
        #expect(progress.last == 3000)
        #expect(route.requests.first?.body == parts.reduce(Data(), +))
    }
}
