import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests
import RequestsTesting
import TransportContract

/// A stub that answers with a list of outcomes in turn, the last one repeating: a status, or a
/// transport failure of the kind the `URLError` has.
private func scripted(_ outcomes: [Result<Int, URLError>], headers: HTTPHeaders = [:]) -> StubTransport {
    let stub = StubTransport()
    stub.on(respond: outcomes.map { outcome in
        switch outcome {
        case .success(let status): .status(status, headers: headers)
        case .failure(let error): .failure(TransportError.Kind(error), detail: "URLError \(error.code.rawValue)")
        }
    })
    return stub
}

/// A policy with short waits and no randomness: each wait is its upper bound.
private func quickPolicy(maxAttempts: Int = 3, base: Duration = .milliseconds(5), max: Duration = .seconds(1)) -> RetryPolicy {
    var policy = RetryPolicy(maxAttempts: maxAttempts, baseDelay: base, maxDelay: max)
    policy.random = { $0.upperBound }
    return policy
}

/// `RetryPolicy` with in-memory transports: what is retried, how long it waits, what it reports.
@Suite struct RetryPolicyTests {
    @Test func aRetryableStatusIsTriedMaxAttemptsTimesAndTheLastResponseListsEachTry() async throws {
        let transport = scripted([.success(503)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        let response = try await session.request("https://example.com/a")
        #expect(response.statusCode == 503)
        #expect(transport.requests.count == 3)
        #expect(response.failedAttempts.map(\.description) == ["#1 status 503", "#2 status 503", "#3 status 503"])
        let error = try #require(throws: RequestError.self) { try response.validate() }
        #expect(error.description.contains("expected 200..<300; after 3 attempts: #1 status 503; #2 status 503; #3 status 503"))
    }

    @Test func aRetryThatSucceedsReturnsTheSuccessAndTheFailuresBeforeIt() async throws {
        let transport = scripted([.success(500), .failure(URLError(.networkConnectionLost)), .success(200)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        let response = try await session.request("https://example.com/a")
        #expect(response.statusCode == 200)
        #expect(response.failedAttempts.map(\.description) == ["#1 status 500", "#2 connection lost"])
    }

    @Test func theFinalTransportErrorSaysHowManyTriesWereMadeAndWhyEachFailed() async throws {
        let transport = scripted([.failure(URLError(.cannotConnectToHost)), .failure(URLError(.timedOut)), .failure(URLError(.networkConnectionLost))])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .transportFailed)
        #expect(error?.failedAttempts.count == 3)
        #expect(error?.description.hasSuffix("after 3 attempts: #1 cannot connect to host; #2 timed out; #3 connection lost") == true)
    }

    @Test(arguments: [URLError.Code.badURL, .cancelled, .userAuthenticationRequired, .secureConnectionFailed])
    func otherTransportFailuresAreNotRetried(code: URLError.Code) async throws {
        let transport = scripted([.failure(URLError(code)), .success(200)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [200, 201, 301, 400, 401, 404, 501])
    func otherStatusesAreNotRetried(status: Int) async throws {
        let transport = scripted([.success(status)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        let response = try await session.request("https://example.com/a")
        #expect(transport.requests.count == 1)
        #expect(response.failedAttempts.isEmpty)
    }

    @Test(arguments: [HTTPMethod.post, .patch, "CONNECT"])
    func nonIdempotentMethodsAreNotRetried(method: HTTPMethod) async throws {
        let transport = scripted([.success(503)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        _ = try await session.request("https://example.com/a", method: method)
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [HTTPMethod.get, .head, .put, .delete, .options, .trace])
    func idempotentMethodsAreRetried(method: HTTPMethod) async throws {
        let transport = scripted([.success(503)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        _ = try await session.request("https://example.com/a", method: method)
        #expect(transport.requests.count == 3)
    }

    @Test func aPostWithAnIdempotencyKeyIsRetried() async throws {
        let transport = scripted([.success(503), .success(201)])
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        let response = try await session.request(
            "https://example.com/a", method: .post, parameters: ["x": 1], headers: ["Idempotency-Key": "order-17"]
        )
        #expect(response.statusCode == 201)
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.body == Data("x=1".utf8) })
    }

    @Test func theMethodsAndStatusCodesAreConfigurable() async throws {
        let transport = scripted([.success(418), .success(200)])
        var policy = quickPolicy()
        policy.methods = [.post]
        policy.statusCodes = [418]
        let session = Session(transport: transport, interceptors: [policy])
        #expect(try await session.request("https://example.com/a", method: .post).statusCode == 200)
        #expect(transport.requests.count == 2)
    }

    @Test func backOffDoublesUnderTheCapWithFullJitter() {
        var policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        let bounds = Guarded<[ClosedRange<Double>]>([])
        policy.random = { range in bounds.withLock { $0.append(range) }; return range.upperBound / 2 }
        let waits = (1...5).map { policy.backoff(after: $0) }
        #expect(bounds.withLock { $0 }.map(\.lowerBound) == [0, 0, 0, 0, 0])
        #expect(bounds.withLock { $0 }.map(\.upperBound) == [0.1, 0.2, 0.4, 0.5, 0.5])
        #expect(waits == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(250), .milliseconds(250)])
        #expect(RetryPolicy().backoff(after: 1) <= .milliseconds(500))
    }

    @Test func retryAfterIsReadInSecondsAndAsAnHTTPDate() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)   // Tue, 14 Nov 2023 22:13:20 GMT
        func wait(_ value: String) throws -> Duration? {
            RetryPolicy.retryAfter(try makeResponse(status: 429, headers: ["Retry-After": value]), now: now)
        }
        #expect(try wait("7") == .seconds(7))
        #expect(try wait(" 0 ") == .zero)
        #expect(try wait("Tue, 14 Nov 2023 22:13:25 GMT") == .seconds(5))
        #expect(try wait("Tuesday, 14-Nov-23 22:13:30 GMT") == .seconds(10))
        #expect(try wait("Tue Nov 14 22:13:21 2023") == .seconds(1))
        #expect(try wait("Tue, 14 Nov 2023 22:00:00 GMT") == .zero)
        #expect(try wait("soon") == nil)
        #expect(try wait("-3") == nil)
        #expect(RetryPolicy.retryAfter(try makeResponse(status: 503), now: now) == nil)
    }

    @Test func retryAfterReplacesTheBackOffAndIsCappedByTheMaximumDelay() async throws {
        let transport = scripted([.success(429), .success(200)], headers: ["Retry-After": "3600"])
        let monitor = RecordingMonitor()
        let delays = Guarded<[Duration]>([])
        struct Delays: EventMonitor {
            let delays: Guarded<[Duration]>
            func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String) {
                delays.withLock { $0.append(delay) }
            }
        }
        let session = Session(transport: transport, interceptors: [quickPolicy(max: .milliseconds(30))],
                              monitors: [monitor, Delays(delays: delays)])
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await session.request("https://example.com/a")
        #expect(response.statusCode == 200)
        #expect(clock.now - start >= .milliseconds(30))
        #expect(delays.withLock { $0 } == [.milliseconds(30)])
        #expect(monitor.events == ["send 1 GET /a", "receive 1 429", "retry 1 status 429", "send 2 GET /a", "receive 2 200"])
    }

    @Test func noWaitIsStartedThatWouldPassTheCallsTimeout() async throws {
        // A try during which the process got no CPU for a second or more is run again.
        try await retryingWhenLate { lateness in
            let transport = scripted([.success(503)], headers: ["Retry-After": "5"])
            let session = Session(transport: transport, interceptors: [quickPolicy(max: .seconds(10))])
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await session.request("https://example.com/a", timeout: .seconds(2))
            let elapsed = clock.now - start
            let slack = await lateness.value
            #expect(elapsed < allowingLateness(.milliseconds(1500), slack), "returned after \(elapsed), neither at once nor at the timeout; a plain sleep was \(slack) late")
            #expect(transport.requests.count == 1)
            #expect(response.failedAttempts.first?.reason == "status 503 (not retried: waiting 5.0 seconds would pass the call's timeout)")
        }
    }

    @Test(arguments: [nil, Duration.seconds(30)])
    func cancellingDuringTheWaitEndsTheCallAtOnce(timeout: Duration?) async throws {
        let transport = scripted([.success(503)])
        let session = Session(transport: transport, interceptors: [quickPolicy(base: .seconds(20), max: .seconds(20))])
        let task = Task { try await session.request("https://example.com/a", timeout: timeout) }
        for _ in 0..<200 where transport.requests.isEmpty {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(20))
        let clock = ContinuousClock()
        let cancelled = clock.now
        let lateness = schedulerLateness()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let elapsed = clock.now - cancelled
        let slack = await lateness.value
        #expect(elapsed < allowingLateness(.milliseconds(100), slack), "ended \(elapsed) after the cancellation")
        #expect(transport.requests.count == 1)
    }

    @Test func aCancelledCallIsNeverRetried() async throws {
        // The transport cancels the caller's task and then fails as a dropped connection would.
        let caller = Guarded<Task<Response, any Error>?>(nil)
        let started = Guarded(false)
        let transport = MockTransport { _ in
            while caller.withLock({ $0 }) == nil { await Task.yield() }
            caller.withLock { $0?.cancel() }
            started.withLock { $0 = true }
            throw URLError(.networkConnectionLost)
        }
        let session = Session(transport: transport, interceptors: [quickPolicy()])
        let task = Task { try await session.request("https://example.com/a") }
        caller.withLock { $0 = task }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(started.withLock { $0 })
        #expect(transport.requests.count == 1)
    }

    @Test func oneAttemptTurnsRetryingOff() async throws {
        let transport = scripted([.success(503)])
        let session = Session(transport: transport, interceptors: [quickPolicy(maxAttempts: 1)])
        let response = try await session.request("https://example.com/a")
        #expect(transport.requests.count == 1)
        #expect(response.failedAttempts.isEmpty)
    }
}
