#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CircuitBreaker` and `Hedging` over AsyncHTTPClient: the loopback server counts what reaches it.
@Suite struct ResilienceTests {
    @Test func itOpensFailsFastProbesOnceAndCloses() async throws {
        let key = uniqueKey("breaker")
        try await withTransport { transport in
            let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(3), probeAfter: .milliseconds(200))
            let session = Session(transport: transport, interceptors: [breaker], cookies: .none)
            let url = try server().url("/flaky/\(key)/3")
            for _ in 0..<3 { #expect(try await session.request(url).statusCode == 503) }
            let error = await #expect(throws: RequestError.self) { try await session.request(url) }
            #expect(error?.code == .circuitOpen)
            #expect(try await SessionPipelineTests.count(transport, "/flaky-count/\(key)") == 3, "an open circuit sends nothing")
            try await Task.sleep(for: .milliseconds(250))
            #expect(try await session.request(url).statusCode == 200, "the probe")
            #expect(try await session.request(url).statusCode == 200, "closed again")
            #expect(try await SessionPipelineTests.count(transport, "/flaky-count/\(key)") == 5)
        }
    }

    /// Seed 4 of the simulation server stalls its first answer for the key (10 s) and not its
    /// second: the hedge wins, and the server sees the stalled trip's client go away.
    @Test func aHedgeBeatsAStalledTripWhichIsCancelledOnTheWire() async throws {
        let key = LoopbackServer.simulationKey()
        try await withTransport { transport in
            let session = Session(transport: transport, interceptors: [Hedging(after: .fixed(.milliseconds(100)))], cookies: .none)
            let start = ContinuousClock.now
            let response = try await session.request(try server().url("/sim/\(key)?latency=5-10&stall=0.5&stall_for=10&seed=4"))
            #expect(response.statusCode == 200)
            #expect(response.winningAttempt == 2)
            #expect(response.text == "sim \(key) 2")
            #expect(ContinuousClock.now - start < .seconds(10), "the stalled trip was not waited for")
            // The server polls its stalled request's socket every 5 ms; give it time on a loaded machine.
            var counts = try await server().simulationCounts(key: key)
            let deadline = ContinuousClock.now + .seconds(9)
            while counts.abandoned == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                counts = try await server().simulationCounts(key: key)
            }
            #expect(counts.requests == 2 && counts.stalled == 1 && counts.abandoned == 1, "\(counts)")
        }
    }
}
#endif
