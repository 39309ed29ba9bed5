#if AsyncHTTPClient
import Foundation

// MARK: - ThroughputBenchmark

/// Requests per second of the four clients against the small answer, in rounds of one short
/// window per client: the order rotates from round to round, so that drift and a neighbour's
/// load land on all four alike instead of on whichever ran at the time.
struct ThroughputBenchmark {
    /// The small answer.
    let url: URL
    /// How long each client sends in one window.
    let window: Duration
    /// How many rounds of four windows are measured, after one warm-up round.
    let rounds: Int
    /// Connections each client may open, or `nil` for one per request in flight.
    let connections: Int?
    /// The clients, in the order of the first round.
    var kinds: [Client.Kind] = Client.Kind.compared

    /// The windows of one number in flight.
    struct Result {
        let inFlight: Int
        let connections: Int
        /// Requests per second of each client, one dictionary per round.
        let rounds: [[Client.Kind: Double]]

        /// The median over the rounds of a client's requests per second.
        func requestsPerSecond(_ kind: Client.Kind) -> Double {
            Load.median(rounds.compactMap { $0[kind] })
        }

        /// The median over the rounds of `ours` / `baseline`, each round's pair measured side by
        /// side.
        func ratio(_ ours: Client.Kind, to baseline: Client.Kind) -> Double {
            Load.median(rounds.compactMap { round in
                guard let ours = round[ours], let baseline = round[baseline], baseline > 0 else { return nil }
                return ours / baseline
            })
        }
    }

    /// Measures the four clients with `inFlight` requests in flight.
    ///
    /// - Parameters:
    ///   - inFlight: Requests in flight per client.
    ///   - progress: Told about each round, for the progress line.
    func run(inFlight: Int, progress: @Sendable (String) -> Void) async throws -> Result {
        let connections = connections ?? inFlight
        let clients = kinds.map { Client.make($0, url: url, connections: connections) }
        do {
            // Warm up: open the connections, fill the pools and caches.
            for client in clients {
                _ = try await Load.window(client, inFlight: inFlight, duration: window)
            }
            var results: [[Client.Kind: Double]] = []
            for round in 0..<rounds {
                var result: [Client.Kind: Double] = [:]
                for offset in clients.indices {
                    let client = clients[(round + offset) % clients.count]
                    result[client.kind] = try await Load.window(client, inFlight: inFlight, duration: window)
                }
                results.append(result)
                progress("\(inFlight) in flight: round \(round + 1) of \(rounds)")
            }
            try await Self.shutdown(clients)
            return Result(inFlight: inFlight, connections: connections, rounds: results)
        } catch {
            try? await Self.shutdown(clients)
            throw error
        }
    }

    private static func shutdown(_ clients: [Client]) async throws {
        for client in clients {
            try await client.shutdown()
        }
    }
}
#endif
