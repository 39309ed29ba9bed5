#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import Requests

// MARK: - StreamingBenchmark

/// One large body read chunk by chunk, counting the bytes: `session.stream(url)` over the
/// transport against raw AsyncHTTPClient iterating `response.body`, in alternating rounds, with
/// the process's peak resident memory during each `Session` read.
struct StreamingBenchmark {
    /// The large file.
    let url: URL
    /// Its size.
    let size: Int
    /// Reads per client; the rounds alternate which client goes first.
    let rounds: Int

    struct Result {
        let size: Int
        /// Megabytes (10^6 bytes) per second of each read.
        let raw: [Double]
        let session: [Double]
        /// The highest peak resident size of a `Session` read, and the resident size when that
        /// read began.
        let sessionStart: Int?
        let sessionPeak: Int?

        var rawMegabytesPerSecond: Double { Load.median(raw) }
        var sessionMegabytesPerSecond: Double { Load.median(session) }

        /// The median over the rounds of `Session` / raw.
        var ratio: Double {
            Load.median(zip(session, raw).map { $0 / $1 })
        }
    }

    func run(progress: @Sendable (String) -> Void) async throws -> Result {
        let client = Client.rawAsyncHTTPClient(connections: 8)
        let session = Client.sessionOverAsyncHTTPClient(connections: 8)
        do {
            // Warm up both: open the connections, bring the file's pages into the page cache.
            let warmUp = min(size, 64 << 20)
            _ = try await readRaw(client, first: warmUp)
            _ = try await readSession(session, first: warmUp)
            var raw: [Double] = []
            var ours: [Double] = []
            var start: Int?
            var peak: Int?
            for round in 0..<rounds {
                // One order, then the other: whichever goes second finds the file in the page
                // cache and the connection open, in turn.
                let rawFirst = round.isMultiple(of: 2)
                if rawFirst {
                    raw.append(try await readRaw(client))
                }
                let roundStart = ResidentMemory.current()
                ResidentMemory.resetPeak()
                ours.append(try await readSession(session))
                if let roundPeak = ResidentMemory.peak(), roundPeak > peak ?? 0 {
                    (start, peak) = (roundStart, roundPeak)
                }
                if !rawFirst {
                    raw.append(try await readRaw(client))
                }
                progress("stream: round \(round + 1) of \(rounds)")
            }
            try await client.shutdown()
            try await session.shutdown()
            return Result(size: size, raw: raw, session: ours, sessionStart: start, sessionPeak: peak)
        } catch {
            try? await client.shutdown()
            try? await session.shutdown()
            throw error
        }
    }

    /// Reads the file, or its first `first` bytes, through raw AsyncHTTPClient.
    private func readRaw(_ client: HTTPClient, first: Int? = nil) async throws -> Double {
        try await timed(expecting: first ?? size) {
            var request = Client.rawRequest(url)
            if let first {
                request.headers.add(name: "Range", value: "bytes=0-\(first - 1)")
            }
            let response = try await client.execute(request, timeout: .hours(1))
            guard (200..<300).contains(response.status.code) else {
                throw BenchmarkError("raw AsyncHTTPClient got status \(response.status.code) for \(url)")
            }
            var count = 0
            for try await buffer in response.body {
                count += buffer.readableBytes
            }
            return count
        }
    }

    /// Reads the file, or its first `first` bytes, through `Session`.
    private func readSession(_ session: Session, first: Int? = nil) async throws -> Double {
        try await timed(expecting: first ?? size) {
            let headers: Requests.HTTPHeaders = first.map { ["Range": "bytes=0-\($0 - 1)"] } ?? [:]
            let stream = try await session.stream(url, headers: headers).validate()
            var count = 0
            for try await chunk in stream.body {
                count += chunk.count
            }
            return count
        }
    }

    /// Times one read in megabytes per second, checking that it read `expected` bytes.
    private func timed(expecting expected: Int, _ read: () async throws -> Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let count = try await read()
        let elapsed = clock.now - start
        guard count == expected else { throw BenchmarkError("read \(count) bytes of \(expected) from \(url)") }
        return Double(expected) / Load.seconds(elapsed) / 1e6
    }
}
#endif
