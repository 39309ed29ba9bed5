#if OpenAPI
import Foundation
import HTTPTypes
import LoopbackFixture
import OpenAPIRuntime
import Requests
import RequestsOpenAPI
import RequestsTesting
import Testing

/// Tokens of a bearer realm of the loopback server, refreshed through the generated client
/// itself (a client of its own, over a session without authentication).
final class GeneratedClientTokens: TokenProvider {
    let realm: String
    let refresher: Client
    let stored: Guarded<String>
    let refreshes = Guarded(0)

    init(realm: String, refresher: Client, initial: String) {
        self.realm = realm
        self.refresher = refresher
        stored = Guarded(initial)
    }

    func token() async throws -> String {
        stored.withLock { $0 }
    }

    func refreshToken(rejected: String) async throws -> String {
        refreshes.withLock { $0 += 1 }
        let token = try await refresher.rotateToken(path: .init(realm: realm)).ok.body.json.token
        stored.withLock { $0 = token }
        return token
    }
}

/// Every event of every call, with the operation each names.
final class OperationMonitor: EventMonitor {
    let events = Guarded<[String]>([])

    func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
        events.withLock { $0.append("send \(request.options.operationName ?? "-") \(attempt.number)") }
    }

    func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        events.withLock { $0.append("receive \(response.outgoingRequest.options.operationName ?? "-") \(response.statusCode)") }
    }
}

/// The session's pipeline applied to a generated client's operations, over each engine.
@Suite struct GeneratedClientPipelineTests {
    @Test(arguments: Engine.all)
    func a503IsRetriedAndEveryAttemptIsSeen(engine: Engine) async throws {
        let key = uniqueKey("flaky")
        let monitor = OperationMonitor()
        try await withClient(engine, interceptors: [RetryPolicy(baseDelay: .milliseconds(10))], monitors: [monitor]) { client, _ in
            let echo = try await client.flaky(path: .init(key: key, failures: 2)).ok.body.json
            #expect(echo.path == "/flaky/\(key)/2")
        }
        #expect(try await plainClient().flakyCount(path: .init(key: key)).ok.body.json.count == 3)
        #expect(monitor.events.withLock { $0 } == ["send flaky 1", "receive flaky 503", "send flaky 2", "receive flaky 503", "send flaky 3", "receive flaky 200"])
    }

    @Test(arguments: Engine.all)
    func aBodyTheClientCanReadAgainIsSentAgainOnRetry(engine: Engine) async throws {
        let key = uniqueKey("again")
        let bytes = Array(LoopbackServer.pattern(100_000, from: 3))
        let retry = RetryPolicy(baseDelay: .milliseconds(10), methods: [.post])
        try await withClient(engine, interceptors: [retry]) { client, _ in
            // Bytes in memory: the client can iterate them several times (`.multiple`).
            let body = OpenAPIRuntime.HTTPBody(bytes)
            #expect(body.iterationBehavior == .multiple)
            let echo = try await client.flakyUpload(path: .init(key: key, failures: 2), body: .binary(body)).ok.body.json
            #expect(echoedBody(echo) == Data(bytes), "the third attempt carried the whole body")
        }
        #expect(try await plainClient().flakyCount(path: .init(key: key)).ok.body.json.count == 3)
    }

    @Test(arguments: Engine.all)
    func aBodyTheClientCanReadOnceFailsTheRetryThatNeedsItAgain(engine: Engine) async throws {
        let key = uniqueKey("once")
        let retry = RetryPolicy(baseDelay: .milliseconds(10), methods: [.post])
        try await withClient(engine, interceptors: [retry]) { client, _ in
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                continuation.yield(ArraySlice(LoopbackServer.pattern(5000)))
                continuation.finish()
            }
            let body = OpenAPIRuntime.HTTPBody(chunks, length: .known(5000), iterationBehavior: .single)
            let error = await #expect(throws: ClientError.self) {
                try await client.flakyUpload(path: .init(key: key, failures: 1), body: .binary(body))
            }
            let thrown = try #require(error)
            #expect(thrown.operationID == "flakyUpload")
            let cause = try #require(requestError(in: thrown))
            #expect(cause.code == .encodingFailed)
            #expect(cause.description.contains("the body is a stream, which is sent once; a redirect or retry cannot send it again"))
        }
        // One attempt reached the server, with the whole body; the retry never went out empty.
        #expect(try await plainClient().flakyCount(path: .init(key: key)).ok.body.json.count == 1)
    }

    @Test(arguments: Engine.all)
    func a401IsRefreshedOnceForConcurrentOperationsThroughTheClientItself(engine: Engine) async throws {
        let realm = uniqueKey("realm")
        let base = try server().baseURL
        let tokens = GeneratedClientTokens(realm: realm, refresher: try plainClient(), initial: "stale")
        let bearer = BearerAuthentication(provider: tokens, scope: .origins([try Origin(base)]))
        try await withClient(engine, interceptors: [bearer]) { client, _ in
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await client.whoAmI(path: .init(realm: realm)).ok.body.json.token }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers == Array(repeating: "\(realm)-1", count: 12))
        }
        #expect(tokens.refreshes.withLock { $0 } == 1)
        let stats = try await plainClient().bearerStats(path: .init(realm: realm)).ok.body.json
        #expect(stats.refreshes == 1)
        #expect(stats.valid == "\(realm)-1")
    }

    @Test(arguments: Engine.all)
    func monitorsLogLinesAndHAREntriesNameTheOperation(engine: Engine) async throws {
        let lines = Guarded<[String]>([])
        let logging = LoggingMonitor(write: { line in lines.withLock { $0.append(line) } })
        var recorder: RecordingTransport?
        let wrap: (any Transport) -> any Transport = { inner in
            let recording = RecordingTransport(wrapping: inner)
            recorder = recording
            return recording
        }
        try await withClient(engine, wrap: wrap, monitors: [logging]) { client, _ in
            _ = try await client.getItem(path: .init(itemID: "logged"), query: .init(limit: 1)).ok
        }
        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.hasPrefix("curl") && $0.contains("# operation getItem") }, "\(logged)")
        #expect(logged.contains { $0.contains("/anything/items/logged?limit=1 (getItem)") }, "\(logged)")
        let entries = try #require(recorder).har.log.entries
        #expect(entries.map(\.comment) == ["operation getItem"])
        #expect(entries.first?.request.url.hasSuffix("/anything/items/logged?limit=1") == true)
        #expect(entries.first?.response.status == 200)
    }

    @Test(arguments: Engine.all)
    func redirectsAreFollowed(engine: Engine) async throws {
        try await withClient(engine) { client, _ in
            let echo = try await client.redirected(path: .init(hops: 3)).ok.body.json
            #expect(echo.path == "/redirect/0")
        }
    }

    @Test(arguments: Engine.all)
    func theSessionsCookiesGoWithTheOperations(engine: Engine) async throws {
        try await withClient(engine) { client, session in
            // A cookie set by an ordinary call of the session…
            _ = try await session.request(try server().url("/cookies/set?flavor=oat")).validate()
            // …goes with the generated client's operations.
            let cookies = try await client.listCookies().ok.body.json.cookies
            #expect(cookies.additionalProperties == ["flavor": "oat"])
        }
    }

    @Test(arguments: Engine.all)
    func aThrottleBoundsTheOperationsInFlight(engine: Engine) async throws {
        let key = uniqueKey("throttled")
        try await withClient(engine, interceptors: [Throttle(maxConcurrent: 2)]) { client, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { _ = try await client.slow(path: .init(key: key, milliseconds: 150)).ok }
                }
                try await group.waitForAll()
            }
        }
        let stats = try await plainClient().slowStats(path: .init(key: key)).ok.body.json
        #expect(stats.total == 6)
        #expect(stats.max <= 2, "\(stats.max) operations were in flight at once")
    }
}
#endif
