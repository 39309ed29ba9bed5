import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Testing
@_spi(Simulation) @testable import Requests

/// A session whose engine opens as many connections as the simulation keeps busy (a stalled
/// request holds its HTTP/1.1 connection; URLSession's default is 6 a host).
func simulationSession(_ interceptors: [any Interceptor] = []) -> Session {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 64
    return Session(transport: URLSessionTransport(configuration: configuration), interceptors: interceptors)
}

/// The resilience stages against the loopback simulation server (`sim_routes.py`), whose latency
/// and failures each run scripts. (The Benchmarks' `resilience` rows run the same simulations.)
@Suite(.serialized) struct ResilienceSimulationTests {
    private static let normal = "latency=20-30"
    private static let stalling = "latency=20-30&stall=0.05&stall_for=2&seed=7"

    /// `calls` calls to `/sim/<key>?<query>`, 16 at a time, each expected to answer 200; first 64
    /// calls at the usual latency, which open the connections and teach a hedging stage.
    private func simulate(_ session: Session, query: String, calls: Int = 400) async throws -> SimulationRun {
        let server = try server()
        _ = try await server.simulate(query: Self.normal, calls: 64, concurrency: 16) { url in
            _ = try await session.request(url).validate()
        }
        return try await server.simulate(query: query, calls: calls, concurrency: 16) { url in
            let status = try await session.request(url).statusCode
            #expect(status == 200)
        }
    }

    @Test func hedgingAtThe95thPercentileCutsTheP99OfStallsByFiveTimesWithAtMostTenPercentMoreRequests() async throws {
        let plain = try await simulate(simulationSession(), query: Self.stalling)
        let hedged = try await simulate(simulationSession([Hedging()]), query: Self.stalling)
        #expect(plain.percentile(0.99) >= .seconds(2), "\(plain)")
        #expect(hedged.percentile(0.99) * 5 <= plain.percentile(0.99), "hedged: \(hedged); plain: \(plain)")
        #expect(hedged.extra <= 0.10, "\(hedged)")
        // The stalled trips a hedge beat were cancelled: the server saw their clients go.
        #expect(hedged.counts.abandoned >= hedged.counts.stalled * 3 / 4, "\(hedged)")
    }

    @Test func withoutStallsHedgingSendsAtMostTwoPercentMoreRequests() async throws {
        let hedged = try await simulate(simulationSession([Hedging()]), query: Self.normal)
        #expect(hedged.extra <= 0.02, "\(hedged)")
    }

    /// 10 s of an outage at 200 calls a second in the budget's time (its clock moves 5 ms a call),
    /// four tries a call, then a server that is back: over the engine and a real server, what
    /// `RetryBudgetTests` shows over the stub for 30 s.
    @Test func anOutageOverLoopbackCostsTheServerAtMost1Point2RequestsPerCallWithTheBudget() async throws {
        let server = try server()
        func outage(budgeted: Bool) async throws -> (run: SimulationRun, after: [Int]) {
            let clock = HandClock()
            let retries = RetryPolicy(maxAttempts: 4, baseDelay: .zero, maxDelay: .zero)
            let session = simulationSession(budgeted ? [RetryBudget(now: { clock.now }), retries] : [retries])
            let key = LoopbackServer.simulationKey()
            let down = server.url("/sim/\(key)?fail=1")
            let run = try await server.simulate(key: key, calls: 2_000, concurrency: 16) { _ in
                clock.advance(.milliseconds(5))
                let status = try await session.request(down).statusCode
                #expect(status == 503)
            }
            let after = Guarded<[Int]>([])
            let up = server.url("/sim/\(key)?latency=0-0")
            _ = try await server.simulate(key: key, calls: 200, concurrency: 16) { _ in
                clock.advance(.milliseconds(5))
                let status = try await session.request(up).statusCode
                after.withLock { $0.append(status) }
            }
            return (run, after.withLock { $0 })
        }
        let budgeted = try await outage(budgeted: true)
        #expect(budgeted.run.load <= 1.2, "\(budgeted.run)")
        #expect(budgeted.run.counts.failed == budgeted.run.counts.requests)
        #expect(budgeted.after.count == 200 && budgeted.after.allSatisfy { $0 == 200 }, "\(budgeted.after)")
        let plain = try await outage(budgeted: false)
        #expect(plain.run.load == 4, "\(plain.run)")
    }
}
