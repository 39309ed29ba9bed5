import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// Progress a screen can show: paced to at most 10 values a second and one per whole percent,
/// the first and the last reported once each, the same shape for uploads and downloads.
@Suite struct ProgressPacingTests {
    /// What a reporter yields for `values`, offered `spacing` apart on a clock of the test's own.
    private func reported(
        _ values: [TransferProgress], spacing: Duration, pacing: ProgressPacing = .standard, final: TransferProgress? = nil
    ) async -> [TransferProgress] {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
        let reporter = ProgressReporter(pacing: pacing, continuation: continuation)
        let start = ContinuousClock.now
        for (index, value) in values.enumerated() {
            reporter.offer(value, now: start + spacing * index)
        }
        if let final { reporter.offer(final, final: true, now: start + spacing * values.count) }
        continuation.finish()
        var seen: [TransferProgress] = []
        for await value in stream { seen.append(value) }
        return seen
    }

    @Test func aThousandWritesInASecondGiveAtMostElevenValues() async {
        let total: Int64 = 1_000
        let values = (0...999).map { TransferProgress(completedBytes: Int64($0), totalBytes: total) }
        let seen = await reported(values, spacing: .milliseconds(1), final: TransferProgress(completedBytes: total, totalBytes: total))
        // 0 at once, then one value each 100 ms, then the end.
        #expect(seen.first == TransferProgress(completedBytes: 0, totalBytes: total))
        #expect(seen.last == TransferProgress(completedBytes: total, totalBytes: total))
        #expect((10...12).contains(seen.count), "\(seen.map(\.completedBytes))")
        #expect(seen.filter { $0.fraction == 1 }.count == 1)
    }

    @Test func aSlowTransferIsReportedAtMostOncePerWholePercent() async {
        // 10,000 writes a second apart: the interval never holds a value back, the step does.
        let total: Int64 = 10_000
        let values = (0..<10_000).map { TransferProgress(completedBytes: Int64($0), totalBytes: total) }
        let seen = await reported(values, spacing: .seconds(1), final: TransferProgress(completedBytes: total, totalBytes: total))
        let percents = seen.map { Int($0.completedBytes * 100 / total) }
        #expect(percents == Array(0...100))
    }

    @Test func anUnknownLengthIsPacedByTimeAlone() async {
        let values = (0..<500).map { TransferProgress(completedBytes: Int64($0 * 10), totalBytes: nil) }
        let seen = await reported(values, spacing: .milliseconds(2), final: TransferProgress(completedBytes: 5_000, totalBytes: 5_000))
        // 1 s of writes: 0, then one value each 100 ms, then the end with its length now known.
        #expect((10...12).contains(seen.count), "\(seen.map(\.completedBytes))")
        #expect(seen.last?.fraction == 1)
    }

    @Test func theEndIsReportedOnceEvenWhenOfferedTwice() async {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
        let reporter = ProgressReporter(pacing: .standard, continuation: continuation)
        let done = TransferProgress(completedBytes: 10, totalBytes: 10)
        reporter.offer(TransferProgress(completedBytes: 0, totalBytes: 10))
        reporter.offer(done)   // complete, but not yet the end: held for it
        reporter.offer(done, final: true)
        reporter.offer(done, final: true)
        reporter.offer(TransferProgress(completedBytes: 20, totalBytes: 20))
        continuation.finish()
        var seen: [TransferProgress] = []
        for await value in stream { seen.append(value) }
        #expect(seen == [TransferProgress(completedBytes: 0, totalBytes: 10), done])
    }

    @Test func unpacedReportsEveryAdvance() async {
        let values = (0..<50).map { TransferProgress(completedBytes: Int64($0), totalBytes: 100) }
        let seen = await reported(values, spacing: .zero, pacing: .unpaced)
        #expect(seen.count == 50)
    }

    @Test func aBodySentAgainIsReportedFromWhereItIs() async {
        // A 307 sends the body again: its progress starts over instead of freezing at the first send's.
        let first = (0...50).map { TransferProgress(completedBytes: Int64($0 * 10), totalBytes: 1_000) }
        let second = (0...50).map { TransferProgress(completedBytes: Int64($0 * 10), totalBytes: 1_000) }
        let seen = await reported(first + second, spacing: .seconds(1))
        let sent: [Int64] = (0...50).map { Int64($0 * 10) }
        #expect(seen.map(\.completedBytes) == sent + sent)
    }

    @Test func theStreamEndsAfterTheLastValueOfferedFromManyThreads() async {
        // Engines' threads offer while the call ends: the end is yielded before the stream finishes.
        for _ in 0..<50 {
            let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
            let reporter = ProgressReporter(pacing: .unpaced, continuation: continuation)
            let total: Int64 = 4_000
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in 0..<1_000 {
                    reporter.offer(TransferProgress(completedBytes: Int64(index * 4 + thread), totalBytes: total))
                }
            }
            reporter.offer(TransferProgress(completedBytes: total, totalBytes: total), final: true)
            reporter.finish()
            reporter.offer(TransferProgress(completedBytes: 1, totalBytes: total))
            var seen: [TransferProgress] = []
            for await value in stream { seen.append(value) }
            #expect(seen.last == TransferProgress(completedBytes: total, totalBytes: total))
            #expect(seen.filter { $0.fraction == 1 }.count == 1)
        }
    }

    @Test func aStepTooSmallToCountIsAnyAdvance() async {
        let pacing = ProgressPacing(interval: .zero, step: .leastNonzeroMagnitude)
        #expect(pacing.step == 0)
        #expect(ProgressPacing(interval: .zero, step: .nan).step == 0)
        #expect(ProgressPacing(interval: .zero, step: 7).step == 1)
        let values = (0..<20).map { TransferProgress(completedBytes: Int64($0), totalBytes: 40) }
        #expect(await reported(values, spacing: .zero, pacing: pacing).count == 20)
    }

    // MARK: Over the loopback server

    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("requests-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A download's progress values, their rate per second of transfer (from the first value,
    /// which the head brings, to the end), and how late the runtime was meanwhile.
    private func download(_ url: URL) async throws -> (values: [TransferProgress], perSecond: Double, lateness: Duration) {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lateness = schedulerLateness()
        let download = Session(cookies: .none).download(url, to: directory.appendingPathComponent("body.bin"))
        var values: [TransferProgress] = []
        var first: ContinuousClock.Instant?
        for await value in download.progress {
            if first == nil { first = .now }
            values.append(value)
        }
        _ = try await download.response().validate()
        let late = await lateness.stop()
        let seconds = max(0.001, Double((ContinuousClock.now - (first ?? .now)) / .milliseconds(1)) / 1_000)
        return (values, Double(values.count) / seconds, late)
    }

    /// At most 101 values a second always; at least 2 unless the machine held the process back
    /// (a transfer that stalls has no bytes to report: the pacing cannot make values then).
    private func checkRate(_ values: [TransferProgress], _ perSecond: Double, _ lateness: Duration, _ name: String) {
        let detail = "\(values.count) values, \(perSecond) a second, the runtime up to \(lateness) late"
        #expect(perSecond <= 101, "\(detail)")
        if perSecond < 2 {
            #expect(lateness >= .milliseconds(200), "\(detail)")
            TestDetail.report(["\(name): under 2 values a second on a starved machine: \(detail)"], as: "progress-\(name)")
        }
    }

    @Test func aDrippedDownloadReportsAScreensWorth() async throws {
        // httpbin's /drip: 40 KB, a few bytes at a time, with its length announced.
        let url = try server().url("/drip/progress-\(UUID().uuidString.prefix(8))?bytes=40000&chunk=10&interval_ms=0.5&length=1")
        let (values, perSecond, lateness) = try await download(url)
        checkRate(values, perSecond, lateness, "drip")
        #expect(values.first?.completedBytes == 0)
        #expect(values.last == TransferProgress(completedBytes: 40_000, totalBytes: 40_000))
        #expect(values.filter { $0.fraction == 1 }.count == 1)
        #expect(values.map(\.completedBytes) == values.map(\.completedBytes).sorted())
    }

    @Test func aLargeDownloadReportsAScreensWorth() async throws {
        let total = 100 << 20
        let (values, perSecond, lateness) = try await download(try server().url("/range/\(total)"))
        checkRate(values, perSecond, lateness, "100-mb")
        #expect(values.count <= 102)
        #expect(values.last == TransferProgress(completedBytes: Int64(total), totalBytes: Int64(total)))
        #expect(values.filter { $0.fraction == 1 }.count == 1)
    }

    @Test func aMultipartUploadReportsItsEndOnce() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("photo.jpg")
        try Data(repeating: 7, count: 3 << 20).write(to: file)
        let form = MultipartFormBody([.text("title", "Holiday"), .file("photo", at: file)])
        let upload = Session(cookies: .none).upload(multipart: form, to: try server().url("/upload"))
        var values: [TransferProgress] = []
        for await value in upload.progress { values.append(value) }
        _ = try await upload.response().validate()
        #expect(values.first?.completedBytes == 0)
        #expect(values.filter { $0.fraction == 1 }.count == 1, "\(values)")
        #expect(values.last?.fraction == 1)
        #expect(values.count <= 102)
    }
}
