#if AsyncHTTPClient
import Foundation

// MARK: - Load

/// Sends a client's requests with a fixed number in flight: one task per slot, each sending its
/// next request as soon as its last one is done.
enum Load {
    /// Sends requests for `duration`, then lets the ones in flight finish.
    ///
    /// - Returns: Requests per second over the whole window, tail included.
    static func window(_ client: Client, inFlight: Int, duration: Duration) async throws -> Double {
        let (completed, elapsed) = try await counted(client, inFlight: inFlight, duration: duration)
        return Double(completed) / elapsed
    }

    /// Sends requests for `duration`, then lets the ones in flight finish.
    ///
    /// - Returns: How many requests were sent, and how many seconds that took.
    static func counted(_ client: Client, inFlight: Int, duration: Duration) async throws -> (requests: Int, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + duration
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<inFlight {
                group.addTask {
                    var count = 0
                    repeat {
                        try await client.send()
                        count += 1
                    } while clock.now < deadline
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return (completed, seconds(clock.now - start))
    }

    /// Sends exactly `count` requests.
    ///
    /// - Returns: Requests per second.
    @discardableResult
    static func requests(_ client: Client, count: Int, inFlight: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for slot in 0..<inFlight {
                group.addTask {
                    var next = slot
                    while next < count {
                        try await client.send()
                        next += inFlight
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(count) / seconds(clock.now - start)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// The middle value (the upper one of an even count); `nan` for none.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
#endif
