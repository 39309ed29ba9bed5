import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// What `/sim-count/<key>` answers.
private struct SimCounts: Decodable {
    let requests: Int
    let stalled: Int
    let abandoned: Int
}

/// A run of the simulation: each call's latency, sorted, and what reached the server.
private struct SimulationRun: CustomStringConvertible {
    let latencies: [Duration]
    let counts: SimCounts

    func percentile(_ fraction: Double) -> Duration {
        latencies[min(latencies.count - 1, max(0, Int((fraction * Double(latencies.count)).rounded(.up)) - 1))]
    }

    var extra: Double { Double(counts.requests - latencies.count) / Double(latencies.count) }

    var description: String {
        "\(latencies.count) calls, \(counts.requests) requests (\(counts.stalled) stalled, \(counts.abandoned) abandoned), "
            + "p50 \(percentile(0.5)), p99 \(percentile(0.99))"
    }
}

/// Runs `calls` calls to `/sim/<key>?<query>`, `concurrency` at a time.
private func simulate(_ session: Session, query: String, calls: Int = 400, concurrency: Int = 16) async throws -> SimulationRun {
    let key = "sim-\(UUID().uuidString.prefix(8))"
    let url = try server().url("/sim/\(key)?\(query)")
    let next = Guarded(0)
    let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var mine: [Duration] = []
                while next.withLock({ count in defer { count += 1 }; return count }) < calls {
                    let start = ContinuousClock.now
                    let status = try await session.request(url).statusCode
                    #expect(status == 200)
                    mine.append(.now - start)
                }
                return mine
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    let (data, _) = try await URLSession.shared.data(from: try server().url("/sim-count/\(key)"))
    return SimulationRun(latencies: latencies.sorted(), counts: try JSONDecoder().decode(SimCounts.self, from: data))
}

/// A session whose engine opens as many connections as the simulation keeps busy (a stalled
/// request holds its HTTP/1.1 connection; URLSession's default is 6 a host).
func simulationSession(_ interceptors: [any Interceptor] = []) -> Session {
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = 64
    return Session(transport: URLSessionTransport(configuration: configuration), interceptors: interceptors)
}

/// `Hedging` against the loopback simulation server: answers take 20–30 ms, and in one run 5%
/// of them stall for 2 s. The hedging stage first learns the origin's latencies from 40 calls.
@Suite(.serialized) struct HedgingSimulationTests {
    private static let normal = "latency=20-30"
    private static let stalling = "latency=20-30&stall=0.05&stall_for=2&seed=7"

    private func warmedUp(_ hedging: Hedging) async throws -> Session {
        let session = simulationSession([hedging])
        _ = try await simulate(session, query: Self.normal, calls: 40, concurrency: 4)
        return session
    }

    @Test func hedgingAtThe95thPercentileCutsTheP99OfStallsByFiveTimesWithAtMostTenPercentMoreRequests() async throws {
        let plain = try await simulate(simulationSession(), query: Self.stalling)
        let hedged = try await simulate(try await warmedUp(Hedging()), query: Self.stalling)
        #expect(plain.percentile(0.99) >= .seconds(2), "\(plain)")
        #expect(hedged.percentile(0.99) * 5 <= plain.percentile(0.99), "hedged: \(hedged); plain: \(plain)")
        #expect(hedged.extra <= 0.10, "\(hedged)")
        // The stalled trips a hedge beat were cancelled: the server saw their clients go.
        #expect(hedged.counts.abandoned >= hedged.counts.stalled * 3 / 4, "\(hedged)")
    }

    @Test func withoutStallsHedgingSendsAtMostTwoPercentMoreRequests() async throws {
        let hedged = try await simulate(try await warmedUp(Hedging()), query: Self.normal)
        #expect(hedged.extra <= 0.02, "\(hedged)")
    }
}
