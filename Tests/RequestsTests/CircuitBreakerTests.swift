import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests
import RequestsTesting

/// A stub whose answer the test sets: a status, or a failure to connect.
private final class Switchable: Sendable {
    let answer = Guarded<StubResponse>(.status(503))
    let stub = StubTransport()
    init() {
        stub.on(respond: .computed { [answer] _ in answer.withLock { $0 } })
    }
}

/// `CircuitBreaker`: closed, open, half-open with one probe, closed again; per origin.
@Suite struct CircuitBreakerTests {
    @Test func itOpensAfterItsThresholdFailsCallsAtOnceProbesOnceAfterItsIntervalAndClosesAfterTheProbe() async throws {
        let clock = HandClock()
        let server = Switchable()
        let monitor = RecordingMonitor()
        let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(3), probeAfter: .seconds(5), now: { clock.now })
        let session = Session(transport: server.stub, interceptors: [breaker], monitors: [monitor])
        let url = "https://api.example.com/items"
        for _ in 0..<3 {
            #expect(try await session.request(url).statusCode == 503)
        }
        #expect(server.stub.requests.count == 3)
        #expect(breaker.state(for: OutgoingRequest(url: URL(string: url)!)) == "open")
        let error = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(error?.code == .circuitOpen)
        #expect(error?.detail == "the circuit of https://api.example.com is open: 3 failures in a row (last: status 503); it probes in 5 seconds")
        #expect(server.stub.requests.count == 3, "an open circuit sends nothing")

        clock.advance(.seconds(2))
        let later = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(later?.detail.hasSuffix("it probes in 3 seconds") == true)

        // The probe: held by the server while a second call arrives, which fails at once.
        clock.advance(.seconds(3))
        // Long enough that a starved test still asks while the probe runs.
        server.answer.withLock { $0 = StubResponse.status(200).delayed(by: .seconds(2)) }
        async let probe = session.request(url)
        while server.stub.requests.count < 4 { try await Task.sleep(for: .milliseconds(5)) }
        let during = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(during?.detail == "the circuit of https://api.example.com is half-open: 3 failures in a row (last: status 503); one probe is under way")
        #expect(try await probe.statusCode == 200)
        #expect(server.stub.requests.count == 4, "one probe")
        #expect(try await session.request(url).statusCode == 200)
        #expect(server.stub.requests.count == 5, "closed again")
        #expect(monitor.events.filter { $0.hasPrefix("circuit") } == [
            "circuit opened 1 https://api.example.com", "circuit half-open 0 https://api.example.com", "circuit closed 1 https://api.example.com",
        ].map { $0 })
    }

    @Test func aFailedProbeOpensItAgainAndACancelledOneLetsTheNextCallProbe() async throws {
        let clock = HandClock()
        let server = Switchable()
        let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(1), probeAfter: .seconds(1), now: { clock.now })
        let session = Session(transport: server.stub, interceptors: [breaker])
        let url = "https://api.example.com/"
        _ = try await session.request(url)
        clock.advance(.seconds(1))
        #expect(try await session.request(url).statusCode == 503, "the probe went and failed")
        let reopened = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(reopened?.detail == "the circuit of https://api.example.com is open: the probe failed (status 503); it probes in 1 second")

        clock.advance(.seconds(1))
        server.answer.withLock { $0 = StubResponse.status(200).delayed(by: .seconds(30)) }
        let cancelled = Task { try await session.request(url) }
        while server.stub.requests.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        cancelled.cancel()
        _ = await cancelled.result
        server.answer.withLock { $0 = .status(200) }
        #expect(try await session.request(url).statusCode == 200, "the next call probes at once")
        #expect(breaker.state(for: OutgoingRequest(url: URL(string: url)!)) == "closed")
    }

    @Test func fourHundredsAndSuccessesNeverOpenItAndOriginsHaveCircuitsOfTheirOwn() async throws {
        let server = Switchable()
        let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(2))
        let session = Session(transport: server.stub, interceptors: [breaker])
        server.answer.withLock { $0 = .status(404) }
        for _ in 0..<5 { _ = try await session.request("https://a.example.com/") }
        server.answer.withLock { $0 = .status(500) }
        _ = try await session.request("https://a.example.com/")
        server.answer.withLock { $0 = .status(200) }
        _ = try await session.request("https://a.example.com/")
        server.answer.withLock { $0 = .status(500) }
        _ = try await session.request("https://a.example.com/")
        #expect(breaker.state(for: OutgoingRequest(url: URL(string: "https://a.example.com/")!)) == "closed", "a success ends the run")
        _ = try await session.request("https://a.example.com/")
        #expect(breaker.state(for: OutgoingRequest(url: URL(string: "https://a.example.com/")!)) == "open")
        server.answer.withLock { $0 = .status(200) }
        #expect(try await session.request("https://b.example.com/").statusCode == 200)
        await #expect(throws: RequestError.self) { try await session.request("https://a.example.com/") }
        // A health check goes through the open circuit and counts for nothing.
        var check = RequestOptions()
        check.usesCircuitBreaker = false
        #expect(try await session.request("https://a.example.com/health", options: check).statusCode == 200)
        #expect(breaker.state(for: OutgoingRequest(url: URL(string: "https://a.example.com/")!)) == "open")
    }

    @Test func transportFailuresCountAndARateOverAWindowOpensItOnlyPastItsMinimum() async throws {
        let clock = HandClock()
        let server = Switchable()
        server.answer.withLock { $0 = .failure(.cannotConnect) }
        let breaker = CircuitBreaker(opensAfter: .failureRate(0.5, minimumCalls: 4, window: .seconds(10)), now: { clock.now })
        let session = Session(transport: server.stub, interceptors: [breaker])
        let url = "https://api.example.com/"
        let key = OutgoingRequest(url: URL(string: url)!)
        for _ in 0..<3 { await #expect(throws: RequestError.self) { try await session.request(url) } }
        #expect(breaker.state(for: key) == "closed", "3 calls are under the minimum of 4")
        server.answer.withLock { $0 = .status(200) }
        _ = try await session.request(url)
        // 11 s later the failures have left the window: 1 of 2 is not past a minimum of 4.
        clock.advance(.seconds(11))
        server.answer.withLock { $0 = .failure(.cannotConnect) }
        await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(breaker.state(for: key) == "closed")
        for _ in 0..<3 { await #expect(throws: RequestError.self) { try await session.request(url) } }
        #expect(breaker.state(for: key) == "open")
        let error = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(error?.detail.contains("is open: 4 of 4 calls failed in 10 seconds (last: cannot connect to host)") == true)
    }

    @Test func insideARetryPolicyEachTryCountsAndARetryMeetsTheOpenCircuit() async throws {
        let server = Switchable()
        let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(2))
        let session = Session(transport: server.stub, interceptors: [RetryPolicy(maxAttempts: 4, baseDelay: .zero), breaker])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://api.example.com/") }
        #expect(error?.code == .circuitOpen)
        #expect(server.stub.requests.count == 2)
        #expect(error?.failedAttempts.map(\.description) == ["#1 status 503", "#2 status 503"])
    }
}
