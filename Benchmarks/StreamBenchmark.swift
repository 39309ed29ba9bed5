import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests

// MARK: - StreamBenchmark

/// Streamed responses and downloads from the loopback server, reporting throughput and the
/// process's peak memory while each ran: bodies must flow through, never be held whole.
///
/// - `stream`: `Session.stream` read chunk by chunk, against a `URLSession` data task whose
///   delegate only counts the bytes (the most FoundationNetworking itself delivers).
/// - `stream, slow reader`: the reader pauses 2 ms every 256 KiB, far slower than the loopback
///   network, so the back-pressure holds the server back; memory must stay bounded.
/// - `download`: `Session.download` to a file, against `URLSession`'s own download task.
struct StreamBenchmark {
    /// 1 GiB normally; 64 MiB with `--quick`.
    let size: Int
    /// 256 MiB normally; 32 MiB with `--quick`.
    let slowSize: Int

    func run(wanted: (String) -> Bool) async throws -> [Row] {
        let server = try LoopbackServer()
        defer { server.stop() }
        let session = Session(cookies: .none)
        var rows: [Row] = []
        if wanted("stream chunks") {
            rows.append(try await stream(session, server))
        }
        if wanted("stream slow reader") {
            rows.append(try await slowStream(session, server))
        }
        if wanted("download file") {
            rows.append(try await download(session, server))
        }
        return rows
    }

    private var label: String { Self.label(size) }

    private static func label(_ size: Int) -> String {
        size >= 1 << 30 ? "\(size >> 30) GiB" : "\(size >> 20) MiB"
    }

    private func stream(_ session: Session, _ server: LoopbackServer) async throws -> Row {
        let url = server.url("/blob/\(size)")
        let baseline = try await Self.time(expecting: size) { try await DelegateCounter.count(url) }
        PeakMemory.reset()
        let ours = try await Self.time(expecting: size) {
            let stream = try await session.stream(url).validate()
            var count = 0
            for try await chunk in stream.body { count += chunk.count }
            return count
        }
        var row = Row(group: "stream", name: "stream chunks, \(label), loopback", baselineName: "URLSession delegate",
                      throughput: .bytes(size), ours: ours, baseline: baseline, target: "peak < 64 MiB")
        row.peakMemory = PeakMemory.peak()
        return row
    }

    private func slowStream(_ session: Session, _ server: LoopbackServer) async throws -> Row {
        let url = server.url("/blob/\(slowSize)")
        PeakMemory.reset()
        let ours = try await Self.time(expecting: slowSize) {
            let stream = try await session.stream(url).validate()
            var count = 0
            var sincePause = 0
            for try await chunk in stream.body {
                count += chunk.count
                sincePause += chunk.count
                if sincePause >= 256 << 10 {
                    sincePause = 0
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            return count
        }
        var row = Row(group: "stream", name: "stream slow reader, \(Self.label(slowSize))", baselineName: "-",
                      throughput: .bytes(slowSize), ours: ours, baseline: nil, target: "peak < 64 MiB")
        row.peakMemory = PeakMemory.peak()
        return row
    }

    private func download(_ session: Session, _ server: LoopbackServer) async throws -> Row {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("download-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = server.url("/blob/\(size)")
        let file = directory.appendingPathComponent("ours.bin")
        let viaFoundation = { try await Self.time(expecting: self.size) { try await Self.foundationDownload(url, into: directory) } }
        // The peak is ours alone: reset before each of our transfers, read after, the largest kept.
        var peak: Int?
        let viaSession = {
            PeakMemory.reset()
            defer { peak = max(peak ?? 0, PeakMemory.peak() ?? 0) }
            return try await Self.time(expecting: self.size) {
                _ = try await session.download(url, to: file).response().validate()
                let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
                try FileManager.default.removeItem(at: file)
                return size?.intValue ?? -1
            }
        }
        // Alternating rounds, medians: one transfer of each moved by a fifth from run to run, as
        // the page cache and the server's threads warmed to one side or the other.
        var baselines: [Double] = []
        var ours: [Double] = []
        for round in 0..<Self.downloadRounds {
            if round.isMultiple(of: 2) {
                baselines.append(try await viaFoundation())
                ours.append(try await viaSession())
            } else {
                ours.append(try await viaSession())
                baselines.append(try await viaFoundation())
            }
        }
        var row = Row(group: "stream", name: "download file, \(label) to disk", baselineName: "URLSession download task",
                      throughput: .bytes(size), ours: Measure.median(ours), baseline: Measure.median(baselines), target: "peak < 64 MiB")
        row.peakMemory = peak
        return row
    }

    /// Rounds of the download row, each one transfer of either side.
    private static let downloadRounds = 5

    /// Times one transfer in nanoseconds, checking it moved `expected` bytes.
    private static func time(expecting expected: Int, _ transfer: () async throws -> Int) async throws -> Double {
        let start = ContinuousClock.now
        let count = try await transfer()
        let elapsed = ContinuousClock.now - start
        guard count == expected else {
            throw URLError(.cannotParseResponse, userInfo: [NSLocalizedDescriptionKey: "moved \(count) of \(expected) bytes"])
        }
        return Measure.nanoseconds(elapsed)
    }

    /// `URLSession`'s download task to a temporary file, which is then removed.
    private static func foundationDownload(_ url: URL, into directory: URL) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let task = URLSession.shared.downloadTask(with: url) { location, _, error in
                guard let location else {
                    continuation.resume(throwing: error ?? URLError(.unknown))
                    return
                }
                let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size] as? NSNumber)?.intValue ?? -1
                try? FileManager.default.removeItem(at: location)
                continuation.resume(returning: size)
            }
            task.resume()
        }
    }
}

// MARK: - DelegateCounter

/// A `URLSession` data task whose delegate only counts the bytes: the baseline for streaming.
final class DelegateCounter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private var count = 0
    private var continuation: CheckedContinuation<Int, any Error>?

    static func count(_ url: URL) async throws -> Int {
        let counter = DelegateCounter()
        let session = URLSession(configuration: .default, delegate: counter, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            counter.continuation = continuation
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        count += data.count  // the delegate queue is serial
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: count)
        }
        continuation = nil
    }
}
