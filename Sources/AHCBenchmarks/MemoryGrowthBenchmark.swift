#if AsyncHTTPClient
import Foundation

// MARK: - MemoryGrowthBenchmark

/// The resident memory a client keeps after many requests: measured after a warm-up that opens
/// the connections and fills the allocator's caches, then after `requests` more, all with
/// `inFlight` in flight. Memory a client holds per request would show as growth; memory it keeps
/// once (pools, buffers) is already there before.
struct MemoryGrowthBenchmark {
    /// The small answer.
    let url: URL
    /// Requests measured, after the warm-up.
    let requests: Int
    /// Requests sent before the first reading.
    let warmUp: Int
    let inFlight: Int

    struct Result {
        let kind: Client.Kind
        let requests: Int
        let inFlight: Int
        let before: Int?
        let after: Int?
        /// Requests per second while measured, for context.
        let requestsPerSecond: Double

        /// `after - before`, where measured.
        var growth: Int? {
            guard let before, let after else { return nil }
            return after - before
        }
    }

    func run(_ kind: Client.Kind) async throws -> Result {
        let client = Client.make(kind, url: url, connections: inFlight)
        do {
            try await Load.requests(client, count: warmUp, inFlight: inFlight)
            let before = ResidentMemory.current()
            let rate = try await Load.requests(client, count: requests, inFlight: inFlight)
            let after = ResidentMemory.current()
            try await client.shutdown()
            return Result(kind: kind, requests: requests, inFlight: inFlight, before: before, after: after, requestsPerSecond: rate)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
#endif
