import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// What `/range-log/<key>` answers.
private struct RangeLog: Decodable { let ranges: [String?] }

/// `Session.download` against the loopback server.
@Suite struct DownloadTests {
    let session = Session(cookies: .none)

    /// A fresh, empty directory for one test.
    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("requests-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func key(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test func theBodyGoesToTheFileWithProgress() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data.bin")
        let download = session.download(try server().url("/range/3000000"), options: .unpacedProgress, to: file)
        var seen: [TransferProgress] = []
        for await progress in download.progress { seen.append(progress) }
        let response = try await download.response().validate()
        #expect(response.fileURL == file)
        #expect(response.data.isEmpty)
        let data = try Data(contentsOf: file)
        #expect(data.count == 3_000_000)
        #expect(LoopbackServer.isPattern(data))
        #expect(seen.last == TransferProgress(completedBytes: 3_000_000, totalBytes: 3_000_000))
        #expect(seen.map(\.completedBytes) == seen.map(\.completedBytes).sorted())
        #expect(seen.count > 2)
        #expect(try contents(of: directory) == ["data.bin"])
    }

    @Test func aCutDownloadIsResumedWithRange() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("resumed.bin")
        let key = key("resume")
        let total = 2_000_000
        let cut = session.download(try server().url("/range/\(total)?cut=700000&key=\(key)"), to: file, resumable: true)
        let error = await #expect(throws: RequestError.self) { try await cut.response() }
        #expect(error?.code == .streamFailed)
        let part = directory.appendingPathComponent("resumed.bin.part")
        let kept = try Data(contentsOf: part)
        #expect(kept.count > 0 && kept.count <= 700_000)
        #expect(LoopbackServer.isPattern(kept))
        #expect(!FileManager.default.fileExists(atPath: file.path))

        let resumed = session.download(try server().url("/range/\(total)?key=\(key)"), to: file, resumable: true)
        var first: TransferProgress?
        for await progress in resumed.progress where first == nil { first = progress }
        let response = try await resumed.response().validate()
        #expect(response.statusCode == 206)
        #expect(first?.completedBytes == Int64(kept.count))
        let data = try Data(contentsOf: file)
        #expect(data.count == total)
        #expect(LoopbackServer.isPattern(data))
        #expect(try contents(of: directory) == ["resumed.bin"])  // the part and its validator are gone
        let log = try await fetchJSON(RangeLog.self, "/range-log/\(key)")
        #expect(log.ranges == [nil, "bytes=\(kept.count)-"])
    }

    @Test func aFileThatChangedSinceTheCutIsDownloadedWhole() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("changed.bin")
        let key = key("changed")
        let cut = session.download(try server().url("/range/400000?cut=100000&etag=v1&key=\(key)"), to: file, resumable: true)
        await #expect(throws: RequestError.self) { try await cut.response() }
        let validator = try String(contentsOf: directory.appendingPathComponent("changed.bin.part.validator"), encoding: .utf8)
        #expect(validator == "\"v1\"")
        let response = try await session.download(try server().url("/range/400000?etag=v2&key=\(key)"), to: file, resumable: true).response()
        #expect(response.statusCode == 200)
        let data = try Data(contentsOf: file)
        #expect(data.count == 400_000 && LoopbackServer.isPattern(data))
        #expect(try contents(of: directory) == ["changed.bin"])
    }

    @Test func aServerThatIgnoresRangeMakesTheDownloadStartOver() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("over.bin")
        try Data(repeating: 0xEE, count: 5000).write(to: directory.appendingPathComponent("over.bin.part"))
        let download = session.download(try server().url("/range/20000?norange=1"), to: file, resumable: true)
        let response = try await download.response().validate()
        #expect(response.statusCode == 200)
        let data = try Data(contentsOf: file)
        #expect(data.count == 20000 && LoopbackServer.isPattern(data))
        #expect(try contents(of: directory) == ["over.bin"])
    }

    @Test func aStalePartThatDoesNotFitStartsOver() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("stale.bin")
        try Data(repeating: 0xEE, count: 50_000).write(to: directory.appendingPathComponent("stale.bin.part"))
        let response = try await session.download(try server().url("/range/20000"), to: file, resumable: true).response().validate()
        #expect(response.statusCode == 200)
        let data = try Data(contentsOf: file)
        #expect(data.count == 20000 && LoopbackServer.isPattern(data))
    }

    @Test func aFailedDownloadLeavesNothingBehindUnlessResumable() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cut.bin")
        let download = session.download(try server().url("/range/1000000?cut=100000"), to: file)
        await #expect(throws: RequestError.self) { try await download.response() }
        #expect(try contents(of: directory) == [])
    }

    @Test func cancellingRemovesThePartialFile() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cancelled.bin")
        let key = "dl-\(UUID().uuidString.prefix(8))"
        let download = session.download(try server().url("/drip/\(key)?bytes=10000000&chunk=1024&interval_ms=100"), to: file)
        for await progress in download.progress where progress.completedBytes > 0 { break }
        download.cancel()
        await #expect(throws: CancellationError.self) { try await download.response() }
        #expect(try contents(of: directory) == [])
        #expect(try await waitForDrip(key) { $0.aborted }.aborted)
    }

    @Test func anErrorStatusIsNotWrittenToDisk() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("missing.bin")
        let response = try await session.download(try server().url("/status/404"), to: file).response()
        #expect(response.statusCode == 404)
        #expect(response.fileURL == nil)
        #expect(response.text == "status 404")
        #expect(throws: RequestError.self) { try response.validate() }
        #expect(try contents(of: directory) == [])
    }

    @Test func anUnwritableDestinationIsAFileError() async throws {
        let file = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/x.bin")
        let error = await #expect(throws: RequestError.self) {
            try await session.download(try server().url("/range/100"), to: file).response()
        }
        #expect(error?.code == .fileFailed)
    }
}

/// `Session.requestBlocking`.
@Suite struct BlockingTests {
    @Test func worksFromAPlainThread() async throws {
        let url = try server().url("/anything?blocking=1")
        let status: Int = try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    let response = try Session(cookies: .none).requestBlocking(url)
                    continuation.resume(returning: response.statusCode)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
        #expect(status == 200)
    }

    @Test func isRefusedFromATask() async throws {
        let url = try server().url("/anything")
        let error = #expect(throws: RequestError.self) { try Session(cookies: .none).requestBlocking(url) }
        #expect(error?.code == .blockingCallInTask)
    }
}
