import Foundation
import TestScheduling
import Testing

/// `--output FILE` without `--download`: the output goes to the file instead of standard output,
/// exactly as a pipe would receive it.
@Suite(.backgroundPriority) struct ReqOutputFileTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    @Test func theFileGetsWhatAPipeWouldGet() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let piped = try await req([try url("/json")])
        for flag in ["-o", "--output"] {
            let file = directory.appendingPathComponent("out\(flag).json")
            let run = try await req([flag, file.path, try url("/json")])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(try Data(contentsOf: file) == piped.stdout)
        }
        let binary = directory.appendingPathComponent("bytes.bin")
        let bytes = try await req(["-o", binary.path, try url("/range/300")])
        #expect(bytes.status == 0)
        #expect(try Data(contentsOf: binary) == (try await req([try url("/range/300")])).stdout)
    }

    @Test func anExistingFileIsReplacedAndPrintPartsApply() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.txt")
        try Data(String(repeating: "old ", count: 1000).utf8).write(to: file)
        let run = try await req(["-o", file.path, "-p", "h", try url("/status/201")])
        #expect(run.stdout.isEmpty)
        let written = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(written.hasPrefix("HTTP/1.1 201 Created\n"))
        #expect(!written.contains("old"))
    }

    @Test func offlineRequestsAreWrittenToTheFileByteForByte() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("request.http")
        let arguments = ["--offline", "--form", "example.org/f", "a=1", "a=2"]
        let run = try await req(["-o", file.path] + arguments)
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
        #expect(try Data(contentsOf: file) == (try await req(arguments)).stdout)
    }

    @Test func aFileThatCannotBeOpenedIsAUsageError() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("req-no-such-\(UUID().uuidString)/out")
        let run = try await req(["-o", missing.path, try url("/anything")])
        #expect(run.status == 1)
        #expect(run.stderr.contains(missing.path))
        #expect(run.stderr.contains("cannot open it for writing"))
        #expect(run.stdout.isEmpty)
    }
}
