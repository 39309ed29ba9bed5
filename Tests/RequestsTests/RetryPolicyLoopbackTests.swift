import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@_spi(Simulation) @testable import Requests

/// What `/flaky-count/<key>` and `/retry-after-times/<key>` answer.
private struct FlakyCount: Decodable { let count: Int }
private struct ArrivalTimes: Decodable { let times: [Double] }

private func fetch<T: Decodable>(_ type: T.Type, _ path: String) async throws -> T {
    let (data, _) = try await URLSession.shared.data(from: try server().url(path))
    return try JSONDecoder().decode(T.self, from: data)
}

/// A policy with short back-off waits.
private func policy(maxAttempts: Int = 3) -> RetryPolicy {
    RetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(20), maxDelay: .seconds(3))
}

/// `RetryPolicy` against the loopback server: the server counts the tries and times them.
@Suite struct RetryPolicyLoopbackTests {
    private func key(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test func aFlakyEndpointSucceedsOnTheThirdTry() async throws {
        let key = key("get")
        let monitor = RecordingMonitor()
        let session = Session(interceptors: [policy()], monitors: [monitor])
        let response = try await session.request(try server().url("/flaky/\(key)/2"))
        #expect(response.statusCode == 200)
        #expect(response.failedAttempts.map(\.description) == ["#1 status 503", "#2 status 503"])
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(key)").count == 3)
        #expect(monitor.events == [
            "send 1 GET /flaky/\(key)/2", "receive 1 503", "retry 1 status 503",
            "send 2 GET /flaky/\(key)/2", "receive 2 503", "retry 2 status 503",
            "send 3 GET /flaky/\(key)/2", "receive 3 200",
        ])
    }

    @Test func tooManyFailuresReturnTheLastResponseAndValidationSaysWhy() async throws {
        let key = key("exhaust")
        let session = Session(interceptors: [policy()])
        let response = try await session.request(try server().url("/flaky/\(key)/5?status=502"))
        #expect(response.statusCode == 502)
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(key)").count == 3)
        let error = try #require(throws: RequestError.self) { try response.validate() }
        #expect(error.description.contains("after 3 attempts: #1 status 502; #2 status 502; #3 status 502"))
    }

    @Test func aPostIsNotRetriedUnlessItCarriesAnIdempotencyKey() async throws {
        let plain = key("post")
        let session = Session(interceptors: [policy()])
        let refused = try await session.request(try server().url("/flaky/\(plain)/1"), method: .post, parameters: ["a": 1])
        #expect(refused.statusCode == 503)
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(plain)").count == 1)

        let keyed = key("post-keyed")
        let accepted = try await session.request(
            try server().url("/flaky/\(keyed)/1"), method: .post, parameters: ["a": 1], headers: ["Idempotency-Key": keyed]
        )
        #expect(accepted.statusCode == 200)
        #expect(try accepted.decode(Echo.self).bodyData == Data("a=1".utf8))
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(keyed)").count == 2)
    }

    @Test func aDroppedConnectionIsRetried() async throws {
        let key = key("drop")
        let session = Session(interceptors: [policy()])
        let response = try await session.request(try server().url("/flaky/\(key)/1?close=1"))
        #expect(response.statusCode == 200)
        #expect(response.failedAttempts.count == 1)
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(key)").count == 2)
    }

    @Test func retryAfterInSecondsIsWaitedFor() async throws {
        let key = key("seconds")
        let session = Session(interceptors: [policy()])
        let response = try await session.request(try server().url("/retry-after/\(key)/1"))
        #expect(response.statusCode == 200)
        #expect(response.failedAttempts.map(\.description) == ["#1 status 429"])
        let times = try await fetch(ArrivalTimes.self, "/retry-after-times/\(key)").times
        #expect(times.count == 2)
        #expect(times[1] - times[0] >= 0.95, "the server asked for 1 s and the second try came after \(times[1] - times[0]) s")
    }

    @Test func retryAfterAsAnHTTPDateIsWaitedFor() async throws {
        let key = key("date")
        let session = Session(interceptors: [policy()])
        let lateness = schedulerLateness()
        let response = try await session.request(try server().url("/retry-after/\(key)/2?date=1"))
        #expect(response.statusCode == 200)
        let times = try await fetch(ArrivalTimes.self, "/retry-after-times/\(key)").times
        #expect(times.count == 2)
        // An HTTP date has whole seconds: "now + 2 s" is between 1 and 2 s away when it is read;
        // a busy machine adds its scheduler's lateness.
        let slack = (await lateness.value).seconds
        #expect(times[1] - times[0] >= 0.9 && times[1] - times[0] < 3 + 2 * slack, "waited \(times[1] - times[0]) s, slack \(slack) s")
    }
}

/// `RetryBudget` over the default engine: the loopback server counts what reaches it.
@Suite struct RetryBudgetLoopbackTests {
    /// 400 calls at 200 a second of the budget's time into an endpoint that answers only 503, with
    /// 4 tries a call: 10% of the calls are retried (no floor), then the endpoint's origin answers
    /// every call again at once.
    @Test func anOutageReachesTheServer1Point1TimesPerCallThenEveryCallSucceeds() async throws {
        let key = "outage-\(UUID().uuidString.prefix(8))"
        let instant = Guarded(ContinuousClock.now)
        let budget = RetryBudget(ratio: 0.1, minimumPerSecond: 0, now: { instant.withLock { $0 } })
        let session = Session(interceptors: [budget, RetryPolicy(maxAttempts: 4, baseDelay: .zero, maxDelay: .zero)])
        let calls = 400
        for _ in 0..<calls {
            #expect(try await session.request(try server().url("/flaky/\(key)/1000000")).statusCode == 503)
            instant.withLock { $0 += .milliseconds(5) }
        }
        let reached = try await fetch(FlakyCount.self, "/flaky-count/\(key)").count
        #expect(reached == calls + calls / 10, "\(reached) requests for \(calls) calls")
        for _ in 0..<20 {
            #expect(try await session.request(try server().url("/anything")).statusCode == 200)
            instant.withLock { $0 += .milliseconds(5) }
        }
    }
}

/// `CircuitBreaker` over the default engine: the loopback server counts what reaches it.
@Suite struct CircuitBreakerLoopbackTests {
    /// `/flaky/<key>/3` answers 503 three times, then 200: the circuit opens after the third,
    /// fails the fourth call without a request, and after its interval one probe closes it.
    @Test func itOpensFailsFastProbesOnceAndCloses() async throws {
        let key = "breaker-\(UUID().uuidString.prefix(8))"
        let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(3), probeAfter: .milliseconds(200))
        let session = Session(interceptors: [breaker])
        let url = try server().url("/flaky/\(key)/3")
        for _ in 0..<3 { #expect(try await session.request(url).statusCode == 503) }
        let error = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(error?.code == .circuitOpen)
        #expect(error?.detail.hasPrefix("the circuit of http://127.0.0.1:\(try server().port) is open: 3 failures in a row (last: status 503)") == true)
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(key)").count == 3)
        try await Task.sleep(for: .milliseconds(250))
        #expect(try await session.request(url).statusCode == 200, "the probe")
        #expect(try await session.request(url).statusCode == 200, "closed again")
        #expect(try await fetch(FlakyCount.self, "/flaky-count/\(key)").count == 5)
    }
}
