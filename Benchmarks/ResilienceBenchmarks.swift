import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
@_spi(Simulation) import Requests

// MARK: - ResilienceBenchmarks

/// The resilience stages against the loopback simulation server (`/sim/<key>`, whose latency and
/// failures each run scripts): the p99 latency with and without ``Hedging`` when 5% of answers
/// stall 2 s, what hedging costs when nothing stalls, and the load a total outage puts on the
/// server with a ``RetryBudget`` and with ``RetryPolicy`` alone. Each row's baseline is the same
/// run without the stage; `load` is requests per call.
struct ResilienceBenchmarks {
    let quick: Bool

    func run(wanted: (String) -> Bool) async throws -> [Row] {
        guard wanted("resilience") else { return [] }
        let server = try LoopbackServer()
        defer { server.stop() }
        return [
            try await hedging(server, stalls: true),
            try await hedging(server, stalls: false),
            try await outage(server, seconds: quick ? 10 : 30),
        ]
    }

    /// A session whose engine opens as many connections as the simulation keeps busy (a stalled
    /// request holds its HTTP/1.1 connection; URLSession's default is 6 a host).
    private static func session(_ interceptors: [any Interceptor]) -> Session {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return Session(transport: URLSessionTransport(configuration: configuration), interceptors: interceptors)
    }

    /// 400 calls, 16 at a time, answered in 20–30 ms, 5% of them (with `stalls`) after 2 s: the
    /// p99 with ``Hedging`` at its defaults (after 64 calls that teach it the origin's latencies)
    /// against the same calls without it.
    private func hedging(_ server: LoopbackServer, stalls: Bool) async throws -> Row {
        let query = stalls ? "latency=20-30&stall=0.05&stall_for=2&seed=7" : "latency=20-30&seed=7"
        func run(_ session: Session) async throws -> SimulationRun {
            // Both sides first open their connections, and the hedging stage learns the latencies.
            _ = try await server.simulate(query: "latency=20-30", calls: 64, concurrency: 16) { url in
                _ = try await session.request(url).validate()
            }
            return try await server.simulate(query: query, calls: 400, concurrency: 16) { url in
                _ = try await session.request(url).validate()
            }
        }
        let plain = try await run(Self.session([]))
        let hedged = try await run(Self.session([Hedging()]))
        var row = Row(
            group: "resilience", name: stalls ? "p99, 5% stall 2 s, hedged at p95" : "p99, no stalls, hedged at p95",
            baselineName: "without hedging", throughput: .none,
            ours: Measure.nanoseconds(hedged.percentile(0.99)), baseline: Measure.nanoseconds(plain.percentile(0.99)),
            target: stalls ? "≥ 5x, load ≤ 1.1x" : "load ≤ 1.02x"
        )
        row.figures = ["load": hedged.load, "baseline load": plain.load]
        return row
    }

    /// `seconds` of a server that answers only 503, 200 calls a second (in the budget's time: its
    /// clock moves 5 ms a call, so the run takes only as long as its requests), then one second
    /// of a server that is back. Four tries a call, at once. `recovery`: how long after the end
    /// of the outage the last call failed (0: the first one succeeded).
    private func outage(_ server: LoopbackServer, seconds: Int) async throws -> Row {
        let calls = seconds * 200
        func run(budgeted: Bool) async throws -> (outage: SimulationRun, recovery: Double) {
            let clock = Guarded(ContinuousClock.now)
            let retries = RetryPolicy(maxAttempts: 4, baseDelay: .zero, maxDelay: .zero)
            let stages: [any Interceptor] = budgeted ? [RetryBudget(now: { clock.withLock { $0 } }), retries] : [retries]
            let session = Self.session(stages)
            let key = LoopbackServer.simulationKey()
            let down = server.url("/sim/\(key)?fail=1")
            let outage = try await server.simulate(key: key, calls: calls, concurrency: 16) { _ in
                clock.withLock { $0 += .milliseconds(5) }
                _ = try await session.request(down)
            }
            let end = clock.withLock { $0 }
            let lastFailure = Guarded(Duration.zero)
            let up = server.url("/sim/\(key)?latency=0-0")
            _ = try await server.simulate(key: key, calls: 200, concurrency: 16) { _ in
                let sent = clock.withLock { $0 += .milliseconds(5); return $0 }
                if try await session.request(up).statusCode != 200 {
                    lastFailure.withLock { $0 = max($0, sent - end) }
                }
            }
            return (outage, Measure.nanoseconds(lastFailure.withLock { $0 }) / 1e9)
        }
        let plain = try await run(budgeted: false)
        let budgeted = try await run(budgeted: true)
        // Time a call: the budget ends refused calls sooner, so it is faster too.
        func perCall(_ run: SimulationRun) -> Double {
            run.latencies.reduce(0) { $0 + Measure.nanoseconds($1) } / Double(max(1, run.latencies.count))
        }
        var row = Row(
            group: "resilience", name: "outage \(seconds) s at 200 calls/s, budget", baselineName: "RetryPolicy alone",
            throughput: .none, ours: perCall(budgeted.outage), baseline: perCall(plain.outage),
            target: "load ≤ 1.2x, recovery < 1 s"
        )
        row.figures = [
            "load": budgeted.outage.load, "baseline load": plain.outage.load,
            "recovery": budgeted.recovery, "baseline recovery": plain.recovery,
        ]
        return row
    }
}
