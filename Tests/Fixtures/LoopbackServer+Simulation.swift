import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Simulation

/// What `/sim-count/<key>` answers: what reached the simulation server for one key.
public struct SimulationCounts: Decodable, Sendable {
    /// Requests seen.
    public let requests: Int
    /// Requests the server began to stall.
    public let stalled: Int
    /// Stalled requests whose client went away before the stall ended.
    public let abandoned: Int
    /// `503` answers sent.
    public let failed: Int
}

/// One run of the simulation: each call's latency (sorted) and what reached the server.
public struct SimulationRun: Sendable, CustomStringConvertible {
    /// Each call's latency, shortest first.
    public let latencies: [Duration]
    /// What the server counted for the run's key.
    public let counts: SimulationCounts

    /// The latency under which `fraction` of the calls finished (nearest rank).
    ///
    /// - Parameter fraction: From 0 to 1, such as `0.99`.
    /// - Returns: That call's latency, or zero for a run without calls.
    public func percentile(_ fraction: Double) -> Duration {
        guard !latencies.isEmpty else { return .zero }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up)) - 1
        return latencies[min(latencies.count - 1, max(0, rank))]
    }

    /// Requests per call: 1 when each call reached the server once.
    public var load: Double {
        latencies.isEmpty ? 0 : Double(counts.requests) / Double(latencies.count)
    }

    /// The share of requests beyond one per call (`0.05` for 5% more).
    public var extra: Double { max(0, load - 1) }

    public var description: String {
        "\(latencies.count) calls, \(counts.requests) requests (\(counts.stalled) stalled, \(counts.abandoned) abandoned, "
            + "\(counts.failed) failed), p50 \(percentile(0.5)), p99 \(percentile(0.99))"
    }
}

extension LoopbackServer {
    /// A key of its own for one run of `/sim/<key>`, so that runs never share counts or draws.
    public static func simulationKey() -> String {
        "sim-\(UUID().uuidString.prefix(8))"
    }

    /// Runs `calls` calls, `concurrency` at a time, each timed from its start to its return.
    ///
    /// - Parameters:
    ///   - key: The run's key (``simulationKey()``), whose counts the run reads at its end.
    ///   - calls: How many calls in all.
    ///   - concurrency: How many run at once.
    ///   - call: One call; it gets the call's number from 0.
    /// - Returns: The latencies and the server's counts for `key`.
    /// - Throws: What a call threw, or an error reading the counts.
    public func simulate(
        key: String, calls: Int, concurrency: Int, call: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> SimulationRun {
        let next = SimulationTicket()
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    var mine: [Duration] = []
                    while let number = next.take(below: calls) {
                        let start = ContinuousClock.now
                        try await call(number)
                        mine.append(.now - start)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return SimulationRun(latencies: latencies.sorted(), counts: try await simulationCounts(key: key))
    }

    /// ``simulate(key:calls:concurrency:call:)`` with a key of its own, each call given the URL
    /// `/sim/<key>?<query>`.
    ///
    /// - Parameters:
    ///   - query: The simulation's script, such as `latency=20-30&stall=0.05`.
    ///   - calls: How many calls in all.
    ///   - concurrency: How many run at once.
    ///   - call: One call of the URL.
    /// - Returns: The latencies and the server's counts for the run's key.
    /// - Throws: What a call threw, or an error reading the counts.
    public func simulate(
        query: String, calls: Int, concurrency: Int, call: @escaping @Sendable (URL) async throws -> Void
    ) async throws -> SimulationRun {
        let key = Self.simulationKey()
        let url = url("/sim/\(key)?\(query)")
        return try await simulate(key: key, calls: calls, concurrency: concurrency) { _ in try await call(url) }
    }

    /// What reached the server for `key` so far.
    ///
    /// - Parameter key: A key of `/sim/<key>`.
    /// - Returns: The counts `/sim-count/<key>` answers.
    /// - Throws: A transport error, or a decoding error when the answer is not the counts.
    public func simulationCounts(key: String) async throws -> SimulationCounts {
        let (data, _) = try await URLSession.shared.data(from: url("/sim-count/\(key)"))
        return try JSONDecoder().decode(SimulationCounts.self, from: data)
    }
}

/// Hands out call numbers to the simulation's workers.
private final class SimulationTicket: @unchecked Sendable {
    // Invariant: `next` is the number of tickets handed out; read and written only under `lock`.
    private let lock = NSLock()
    private var next = 0

    func take(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < limit else { return nil }
        defer { next += 1 }
        return next
    }
}
