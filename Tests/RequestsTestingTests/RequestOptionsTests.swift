import Foundation
import Requests
import RequestsTesting
import Testing

/// Per-request options: set on a session or a call, read by the stages (timeout, redirects,
/// retry) and shown by monitors, logs and HAR entries (the operation's name).
@Suite struct RequestOptionsTests {
    private enum Tenant: RequestOptionKey {
        static let defaultValue = "none"
    }

    @Test func aCallsOptionsReplaceTheSessionsKeyByKeyAndReachEveryStage() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", respond: .text("me"))
        let seen = Guarded<[String]>([])
        let probe = ModifyRequest { request in
            seen.withLock { $0.append("\(request.options[Tenant.self]) \(request.options.operationName ?? "-")") }
        }
        var sessionOptions = RequestOptions()
        sessionOptions[Tenant.self] = "acme"
        sessionOptions.operationName = "session default"
        let session = Session(transport: stub, interceptors: [probe], options: sessionOptions)
        var call = RequestOptions()
        call.operationName = "getMe"
        _ = try await session.request("https://api.example/me", options: call)
        _ = try await session.request("https://api.example/me")
        #expect(seen.withLock { $0 } == ["acme getMe", "acme session default"])
        #expect(stub.requests.first?.request.options.operationName == "getMe")
    }

    @Test func theTimeoutOptionIsTheCallsTimeoutAndAnArgumentWins() async throws {
        let stub = StubTransport()
        stub.on(.get, "/slow", respond: StubResponse.text("late").delayed(by: .seconds(30)))
        var options = RequestOptions()
        options.timeout = .milliseconds(100)
        let session = Session(transport: stub)
        let started = ContinuousClock.now
        let error = await #expect(throws: RequestError.self) { try await session.request("https://api.example/slow", options: options) }
        #expect(error?.code == .timedOut)
        #expect(error?.description.contains("0.1 seconds") == true, "\(String(describing: error))")
        // Far below the 30 s the answer takes, whatever the machine's load.
        #expect(ContinuousClock.now - started < .seconds(20))
        let overridden = await #expect(throws: RequestError.self) {
            try await session.request("https://api.example/slow", timeout: .milliseconds(200), options: options)
        }
        #expect(overridden?.description.contains("0.2 seconds") == true, "\(String(describing: overridden))")
    }

    @Test func theRedirectPolicyOptionDecidesWhetherA3xxIsFollowed() async throws {
        let stub = StubTransport()
        stub.on(.get, "/old", respond: .status(301, headers: ["Location": "/new"]))
        stub.on(.get, "/new", respond: .text("moved"))
        let session = Session(transport: stub)
        var options = RequestOptions()
        options.redirectPolicy = .doNotFollow
        let raw = try await session.request("https://api.example/old", options: options)
        #expect(raw.statusCode == 301)
        let followed = try await session.request("https://api.example/old")
        #expect(followed.text == "moved")
    }

    @Test func retriesOffSendsTheRequestOnce() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/flaky", respond: .status(503), .text("ok"))
        let retry = RetryPolicy(baseDelay: .milliseconds(1))
        let session = Session(transport: stub, interceptors: [retry])
        var once = RequestOptions()
        once.retries = false
        let response = try await session.request("https://api.example/flaky", options: once)
        #expect(response.statusCode == 503)
        #expect(route.hits == 1)
        let retried = try await session.request("https://api.example/flaky")
        #expect(retried.text == "ok")
    }

    @Test func theOperationNameIsInLogLinesAndHAREntries() async throws {
        let stub = StubTransport()
        stub.on(.get, "/users/1", respond: .text("ada"))
        let lines = Guarded<[String]>([])
        let recording = RecordingTransport(wrapping: stub)
        let session = Session(transport: recording, monitors: [LoggingMonitor { line in lines.withLock { $0.append(line) } }])
        var options = RequestOptions()
        options.operationName = "getUser"
        _ = try await session.request("https://api.example/users/1", options: options)
        let logged = lines.withLock { $0 }
        #expect(logged.first?.hasSuffix(" # operation getUser") == true, "\(logged)")
        #expect(logged.last?.contains("GET https://api.example/users/1 (getUser)") == true, "\(logged)")
        #expect(recording.har.log.entries.first?.comment == "operation getUser")
    }
}
