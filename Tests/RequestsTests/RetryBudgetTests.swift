import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@_spi(Simulation) @testable import Requests
import RequestsTesting

/// A policy that retries at once, up to `attempts` tries.
private func immediateRetries(_ attempts: Int) -> RetryPolicy {
    RetryPolicy(maxAttempts: attempts, baseDelay: .zero, maxDelay: .zero)
}

/// Tokens that are refused until refreshed once.
private final class CountingTokens: TokenProvider {
    let refreshes = Guarded(0)
    func token() async throws -> String { "old" }
    func refreshToken(rejected: String) async throws -> String {
        refreshes.withLock { $0 += 1 }
        return "new"
    }
}

/// `RetryBudget`: retries per origin under a share of the calls plus a floor, over a sliding window.
@Suite struct RetryBudgetTests {
    /// The outage the issue names, in the budget's time: 30 s of 200 calls a second into a server
    /// that answers only 503, then one second of a server that is back.
    @Test func aTotalOutageReachesTheServerAtMost1Point2TimesPerCallWithTheBudgetAnd4TimesWithout() async throws {
        func outage(budgeted: Bool) async throws -> (sent: Int, calls: Int, afterwards: [Int]) {
            let clock = HandClock()
            let down = Guarded(true)
            let stub = StubTransport()
            stub.on(respond: .computed { _ in down.withLock { $0 } ? .status(503) : .status(200) })
            let budget = RetryBudget(now: { clock.now })
            let stages: [any Interceptor] = budgeted ? [budget, immediateRetries(4)] : [immediateRetries(4)]
            let session = Session(transport: stub, interceptors: stages)
            let calls = 30 * 200
            for _ in 0..<calls {
                _ = try await session.request("https://api.example.com/items")
                clock.advance(.milliseconds(5))
            }
            let sent = stub.requests.count
            down.withLock { $0 = false }
            var afterwards: [Int] = []
            for _ in 0..<200 {
                afterwards.append(try await session.request("https://api.example.com/items").statusCode)
                clock.advance(.milliseconds(5))
            }
            return (sent, calls, afterwards)
        }
        let budgeted = try await outage(budgeted: true)
        let ratio = Double(budgeted.sent) / Double(budgeted.calls)
        #expect(ratio <= 1.2, "with the budget: \(budgeted.sent) requests for \(budgeted.calls) calls")
        // 10% of 2,000 calls + 10 a second, over 10 s: 300 retries per 10 s, 1.15 in all.
        #expect(ratio >= 1.1, "the floor and the share are spent, not more: \(ratio)")
        #expect(budgeted.afterwards.allSatisfy { $0 == 200 }, "every call succeeds once the server is back")
        let plain = try await outage(budgeted: false)
        #expect(plain.sent == 4 * plain.calls)
    }

    @Test func aRefusedRetryEndsTheCallWithItsLastFailureAndSaysWhyInTheErrorTheMonitorAndTheLog() async throws {
        let clock = HandClock()
        let stub = StubTransport()
        stub.on(respond: .status(503))
        let lines = Guarded<[String]>([])
        let monitor = RecordingMonitor()
        let budget = RetryBudget(ratio: 0, minimumPerSecond: 0.1, now: { clock.now })  // 1 retry per 10 s
        let session = Session(transport: stub, interceptors: [budget, immediateRetries(3)],
                              monitors: [monitor, LoggingMonitor { line in lines.withLock { $0.append(line) } }])
        let first = try await session.request("https://api.example.com/a")
        #expect(first.failedAttempts.map(\.number) == [1, 2])
        #expect(stub.requests.count == 2, "one retry allowed: the first call is tried twice")
        let reason = try #require(first.failedAttempts.last?.reason)
        #expect(reason.hasPrefix("status 503 (not retried: the retry budget of https://api.example.com is spent: 1 retry for 1 call in the last 10 seconds"))
        let second = try await session.request("https://api.example.com/a")
        #expect(second.failedAttempts.count == 1)
        #expect(stub.requests.count == 3)
        let error = try #require(throws: RequestError.self) { try second.validate() }
        #expect(error.description.contains("not retried: the retry budget of https://api.example.com is spent: 1 retry for 2 calls"))
        #expect(monitor.events.filter { $0.hasPrefix("retry budget exhausted") } == [
            "retry budget exhausted 2 https://api.example.com", "retry budget exhausted 1 https://api.example.com",
        ])
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("x GET https://api.example.com/a: retry budget exhausted: the retry budget of") })
    }

    @Test func retriesComeBackAsTheWindowSlidesAndOriginsHaveBudgetsOfTheirOwn() async throws {
        let clock = HandClock()
        let stub = StubTransport()
        stub.on(respond: .status(503))
        let budget = RetryBudget(ratio: 0, minimumPerSecond: 0.1, window: .seconds(10), now: { clock.now })
        let session = Session(transport: stub, interceptors: [budget, immediateRetries(2)])
        _ = try await session.request("https://a.example.com/")
        _ = try await session.request("https://a.example.com/")
        #expect(stub.requests.count == 3, "one retry for a.example.com in the window")
        _ = try await session.request("https://b.example.com/")
        #expect(stub.requests.count == 5, "b.example.com has a budget of its own")
        clock.advance(.seconds(5))
        _ = try await session.request("https://a.example.com/")
        #expect(stub.requests.count == 6, "the retry still counts 5 s later")
        clock.advance(.seconds(6))
        _ = try await session.request("https://a.example.com/")
        #expect(stub.requests.count == 8, "11 s later it dropped out of the window")
        let request = OutgoingRequest(url: URL(string: "https://a.example.com/")!)
        #expect(budget.counts(for: request) == (calls: 2, retries: 1))
    }

    @Test func theShareGrowsWithTheCalls() {
        let clock = HandClock()
        let budget = RetryBudget(ratio: 0.5, minimumPerSecond: 0, now: { clock.now })
        let request = OutgoingRequest(url: URL(string: "https://api.example.com/")!)
        #expect(budget.withdraw(for: request) != nil, "no calls, no floor: nothing to retry")
        for _ in 0..<4 { budget.ledger.recordCall(for: request.originKey) }
        #expect(budget.withdraw(for: request) == nil)
        #expect(budget.withdraw(for: request) == nil)
        #expect(budget.withdraw(for: request)?.contains("2 retries for 4 calls in the last 10 seconds allow no more (50% of calls + 0 a second)") == true)
    }

    @Test func theTryWithARefreshedTokenIsARetryTheBudgetCanRefuse() async throws {
        let clock = HandClock()
        let stub = StubTransport()
        // The newest route that matches answers.
        stub.on(respond: .status(401))
        stub.on(headers: ["Authorization": "Bearer new"], respond: .status(200))
        let tokens = CountingTokens()
        let budget = RetryBudget(ratio: 0, minimumPerSecond: 0.1, now: { clock.now })
        let session = Session(transport: stub, interceptors: [budget, BearerAuthentication(provider: tokens, scope: .anyOrigin)])
        #expect(try await session.request("https://api.example.com/me").statusCode == 200)
        #expect(tokens.refreshes.withLock { $0 } == 1)
        // The budget's one retry is spent: a call whose 401 meets it keeps the 401, unrefreshed.
        let stale = StubTransport()
        stale.on(respond: .status(401))
        let otherTokens = CountingTokens()
        let strict = Session(transport: stale, interceptors: [budget, BearerAuthentication(provider: otherTokens, scope: .anyOrigin)])
        let answer = try await strict.request("https://api.example.com/me")
        #expect(answer.statusCode == 401)
        #expect(stale.requests.count == 1)
        #expect(otherTokens.refreshes.withLock { $0 } == 0)
        #expect(answer.failedAttempts.first?.reason.contains("not retried: the retry budget of https://api.example.com is spent") == true)
    }

    @Test func aBudgetWithNonsenseSettingsStillDecides() {
        let budget = RetryBudget(ratio: .nan, minimumPerSecond: -3, window: .zero)
        #expect(budget.ratio == 0)
        #expect(budget.minimumPerSecond == 0)
        #expect(budget.window == .seconds(1))
        #expect(budget.withdraw(for: OutgoingRequest(url: URL(string: "https://x.example/")!)) != nil)
    }
}
