import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing

/// `req --cache DIR`: responses kept on disk between runs, as RFC 9111 says.
@Suite(.backgroundPriority) struct ReqCacheTests {
    /// Scripts `/script/<id>` on the loopback server and returns its URL for req.
    private func script(_ answers: [[String: Any]]) async throws -> (url: String, id: String) {
        let id = UUID().uuidString.lowercased()
        let port = try server().port
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/script-set/\(id)")!)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: answers)
        _ = try await URLSession(configuration: .ephemeral).data(for: request)
        return ("127.0.0.1:\(port)/script/\(id)", id)
    }

    /// How many requests the scripted URL received.
    private func received(_ id: String) async throws -> Int {
        let port = try server().port
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: URL(string: "http://127.0.0.1:\(port)/script-log/\(id)")!)
        let log = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (log?["requests"] as? [Any])?.count ?? -1
    }

    @Test func aFreshResponseAnswersTheNextRunFromTheFolder() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("cache").path
        let (url, id) = try await script([
            ["status": 200, "headers": [["Cache-Control", "max-age=600"], ["Content-Type", "text/plain"]], "body": "kept"],
            ["status": 200, "headers": [["Content-Type", "text/plain"]], "body": "not kept"],
        ])
        let first = try await req(["--cache", folder, url])
        #expect(first.status == 0)
        #expect(first.output == "kept")
        let second = try await req(["--cache", folder, "-p", "hb", url])
        #expect(second.status == 0)
        #expect(second.output.contains("Age: "))
        #expect(second.output.hasSuffix("kept"))
        #expect(try await received(id) == 1)
        let without = try await req([url])
        #expect(without.output == "not kept")
    }

    /// `-v` of an answer from the cache: the request is shown, and a note on standard error says
    /// it was answered from the cache and not sent.
    @Test func verboseShowsTheRequestTheCacheAnswered() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("cache").path
        let (url, id) = try await script([
            ["status": 200, "headers": [["Cache-Control", "max-age=600"], ["Content-Type", "text/plain"]], "body": "kept"],
        ])
        _ = try await req(["--cache", folder, url])
        let verbose = try await req(["--cache", folder, "-v", url])
        #expect(verbose.status == 0)
        #expect(verbose.output.contains("GET /script/\(id) HTTP/1.1"), "\(verbose.output)")
        #expect(verbose.output.hasSuffix("kept"), "\(verbose.output)")
        #expect(verbose.stderr.contains("req: note: answered from the cache (hit"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("this request was not sent"), "\(verbose.stderr)")
        #expect(try await received(id) == 1)
    }

    @Test func aFolderThatCannotBeMadeIsAUsageError() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let run = try await req(["--cache", file.appendingPathComponent("sub").path, "127.0.0.1:\(try server().port)/anything"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--cache"))
    }
}
