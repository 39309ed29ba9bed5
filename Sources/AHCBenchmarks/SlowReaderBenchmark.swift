#if AsyncHTTPClient
import Foundation
import Requests

// MARK: - SlowReaderBenchmark

/// A reader far slower than loopback: `session.stream(url)` over the transport, sleeping after
/// each chunk until it is back on a fixed pace. Without back-pressure the body would pile up in
/// memory as fast as nginx sends it; with it, the resident size stays where it began.
struct SlowReaderBenchmark {
    /// The large file; the first `size` bytes of it are asked for with a `Range` header.
    let url: URL
    let size: Int
    /// The reader's pace in bytes per second.
    let bytesPerSecond: Int

    struct Result {
        let size: Int
        let seconds: Double
        /// The resident size before the request, and the peak while reading.
        let start: Int?
        let peak: Int?

        var growth: Int? {
            guard let start, let peak else { return nil }
            return peak - start
        }
    }

    func run() async throws -> Result {
        let session = Client.sessionOverAsyncHTTPClient(connections: 8)
        do {
            let start = ResidentMemory.current()
            ResidentMemory.resetPeak()
            let clock = ContinuousClock()
            let began = clock.now
            let stream = try await session.stream(url, headers: ["Range": "bytes=0-\(size - 1)"]).validate()
            var count = 0
            for try await chunk in stream.body {
                count += chunk.count
                let due = began + .seconds(Double(count) / Double(bytesPerSecond))
                if due > clock.now {
                    try await Task.sleep(until: due, clock: clock)
                }
            }
            let seconds = Load.seconds(clock.now - began)
            let peak = ResidentMemory.peak()
            try await session.shutdown()
            guard count == size else { throw BenchmarkError("the slow reader read \(count) bytes of \(size)") }
            return Result(size: size, seconds: seconds, start: start, peak: peak)
        } catch {
            try? await session.shutdown()
            throw error
        }
    }
}
#endif
