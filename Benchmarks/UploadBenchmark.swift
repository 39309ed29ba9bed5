import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests

// MARK: - UploadBenchmark

/// A multipart upload of one large file to the loopback server, reporting the process's peak
/// memory while it ran: files must stream from disk, never be held whole.
///
/// The file is generated in a temporary directory, 1 MiB at a time, and deleted afterwards.
struct UploadBenchmark {
    /// 1 GiB normally; 64 MiB with `--quick`, to keep CI short.
    let fileSize: Int

    func run() async throws -> Row {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("large.bin")
        try Self.generate(file, size: fileSize)

        let server = try LoopbackServer()
        defer { server.stop() }
        let session = Session()
        let form = MultipartFormBody([.text("title", "benchmark"), .file("payload", at: file)])

        PeakMemory.reset()
        let clock = ContinuousClock()
        let start = clock.now
        let upload = session.upload(multipart: form, to: server.url("/upload"))
        let response = try await upload.response()
        let elapsed = clock.now - start
        let peak = PeakMemory.peak()

        struct Answer: Decodable {
            struct Multipart: Decodable { let parts: [Part] }
            struct Part: Decodable { let size: Int }
            let multipart: Multipart
        }
        let answer = try response.validate().decode(Answer.self)
        guard answer.multipart.parts.last?.size == fileSize else {
            throw URLError(.cannotParseResponse, userInfo: [NSLocalizedDescriptionKey: "the server received \(answer.multipart.parts.last?.size ?? -1) of \(fileSize) bytes"])
        }
        let label = fileSize >= 1 << 30 ? "\(fileSize >> 30) GiB" : "\(fileSize >> 20) MiB"
        var row = Row(group: "upload", name: "multipart \(label) file, streamed", baselineName: "-",
                      throughput: .bytes(fileSize), ours: Measure.nanoseconds(elapsed), baseline: nil, target: "peak < 64 MiB")
        row.peakMemory = peak
        return row
    }

    /// Writes `size` bytes of a repeating pattern, 1 MiB at a time.
    private static func generate(_ file: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        var written = 0
        while written < size {
            chunk[0] = UInt8(truncatingIfNeeded: written >> 20)
            let count = min(chunk.count, size - written)
            try handle.write(contentsOf: count == chunk.count ? chunk : chunk.prefix(count))
            written += count
        }
    }
}
