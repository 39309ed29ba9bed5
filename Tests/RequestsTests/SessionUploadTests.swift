import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import Requests

/// What the loopback server's `/upload` answers: the body's size and hash, and its multipart parse.
struct UploadEcho: Decodable, Sendable {
    struct Multipart: Decodable, Sendable {
        let parts: [Part]
        let error: String?
    }

    struct Part: Decodable, Sendable {
        let name: String?
        let filename: String?
        let contentType: String?
        let size: Int
        let sha256: String
        let base64: String?

        var data: Data? { base64.flatMap { Data(base64Encoded: $0) } }
    }

    let method: String
    let size: Int
    let contentType: String
    let multipart: Multipart?
}

/// SHA-256 of a file in hex, by python3 (which the loopback server needs anyway).
func sha256Hex(of file: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Every progress value, once the stream ends.
func collect(_ stream: AsyncStream<TransferProgress>) async -> [TransferProgress] {
    var values: [TransferProgress] = []
    for await value in stream {
        values.append(value)
    }
    return values
}

@Suite struct SessionUploadTests {
    let session = Session(headers: ["Content-Type": "application/json"])

    final class Directory: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-tests-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        func file(_ name: String, _ contents: Data) throws -> URL {
            let file = url.appendingPathComponent(name)
            try contents.write(to: file)
            return file
        }
    }

    @Test func textAndTwoFilesOneOf20MiBArriveIntact() async throws {
        let directory = try Directory()
        let small = try directory.file("notes.md", Data("# Notes\r\n--not a boundary\r\n日本 🌎".utf8))
        // 20 MiB: a 64 KiB pattern (each copy numbered) repeated, cheap to build in a debug build.
        let pattern = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) })
        var bigBytes = Data(capacity: 20 << 20)
        for copy in 0..<320 {
            bigBytes.append(pattern)
            bigBytes[bigBytes.count - 1] = UInt8(truncatingIfNeeded: copy)
        }
        let big = try directory.file("photo.jpg", bigBytes)
        let form = MultipartFormBody([
            .text("title", "Holiday \"2026\" – Été"),
            .file("notes", at: small),
            .file("photo", at: big),
            .data("raw", Data([0, 13, 10, 45, 45, 255]), fileName: "raw.bin", mimeType: "application/x-raw"),
        ])

        let upload = session.upload(multipart: form, to: try server().url("/upload"), headers: ["X-Trace": "1"], options: .unpacedProgress)
        let progressTask = Task { await collect(upload.progress) }
        let response = try await upload.response()
        let progress = await progressTask.value
        let echo = try response.validate().decode(UploadEcho.self)

        #expect(echo.method == "POST")
        #expect(echo.contentType.hasPrefix("multipart/form-data; boundary=swift-requests-"))
        let multipart = try #require(echo.multipart)
        #expect(multipart.error == nil)
        #expect(multipart.parts.map(\.name) == ["title", "notes", "photo", "raw"])
        #expect(multipart.parts.map(\.filename) == [nil, "notes.md", "photo.jpg", "raw.bin"])
        #expect(multipart.parts.map(\.contentType) == [nil, "text/markdown", "image/jpeg", "application/x-raw"])
        #expect(multipart.parts[0].data == Data("Holiday \"2026\" – Été".utf8))
        #expect(multipart.parts[1].data == (try Data(contentsOf: small)))
        #expect(multipart.parts[2].size == bigBytes.count)
        #expect(multipart.parts[2].sha256 == (try await onThread { try sha256Hex(of: big) }))
        #expect(multipart.parts[3].data == Data([0, 13, 10, 45, 45, 255]))

        #expect(progress.first?.completedBytes == 0)
        #expect(progress.last == TransferProgress(completedBytes: Int64(echo.size), totalBytes: Int64(echo.size)))
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        #expect(progress.count > 2)
    }

    @Test func multipartAsAnInMemoryBodyArrivesIntact() async throws {
        let form = MultipartFormBody([.text("a", "1"), .data("b", Data("two".utf8), fileName: "b.txt")])
        // As with every body, a Content-Type the caller sets would win; this session sets none.
        let response = try await Session().request(try server().url("/upload"), method: .post, body: form)
        let echo = try response.validate().decode(UploadEcho.self)
        #expect(echo.contentType == "multipart/form-data; boundary=\(form.boundary)")
        #expect(echo.multipart?.parts.map(\.name) == ["a", "b"])
        #expect(echo.multipart?.parts.compactMap(\.data) == [Data("1".utf8), Data("two".utf8)])
        #expect(echo.multipart?.parts.last?.contentType == "text/plain")
    }

    @Test func aMissingFileIsAnEncodingErrorNamingThePart() async throws {
        let upload = session.upload(multipart: MultipartFormBody([.file("scan", at: URL(fileURLWithPath: "/nonexistent/scan.pdf"))]),
                                    to: try server().url("/upload"))
        let error = await #expect(throws: RequestError.self) { try await upload.response() }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("part 1 (\"scan\"): cannot open /nonexistent/scan.pdf") == true)
        #expect(await collect(upload.progress).isEmpty)
    }

    @Test func cancellingAnUploadStopsIt() async throws {
        let directory = try Directory()
        let file = try directory.file("big.bin", Data(count: 8 << 20))
        let upload = session.upload(multipart: MultipartFormBody([.file("f", at: file)]), to: try server().url("/delay/5"))
        upload.cancel()
        await #expect(throws: CancellationError.self) { try await upload.response() }
    }
}
