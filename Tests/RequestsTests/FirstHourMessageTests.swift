import Foundation
import Requests
import RequestsTesting
import Testing

/// The messages a new user meets in the first hour (issue 42): each says what was wrong, once,
/// on one line, and how to fix it where that is plain.
@Suite struct FirstHourMessageTests {
    @Test func aURLWithoutAschemeSaysSoOnceAndHowToWriteIt() async throws {
        let session = Session(transport: StubTransport())
        let error = try await #require(throws: RequestError.self) {
            try await session.request("127.0.0.1:8765/get")
        }
        let text = error.description
        #expect(error.code == .invalidURL)
        #expect(text.contains("has no scheme; write \"http://127.0.0.1:8765/get\""), "\(text)")
        // Said once: the underlying encoder error carries nothing the detail does not.
        #expect(text.components(separatedBy: "is not a URL").count == 2, "\(text)")
    }

    /// `localhost:8080/get` is a URL whose scheme is "localhost": the refusal says what to write.
    @Test func aHostAndPortWithoutASchemeAreNotTakenForAScheme() async throws {
        let error = try await #require(throws: RequestError.self) {
            try await Session(transport: StubTransport()).request("localhost:8080/get")
        }
        #expect(error.code == .invalidURL)
        #expect(error.description.contains("has no scheme (\"localhost:\" reads as one); write \"http://localhost:8080/get\""), "\(error)")
    }

    /// Every URL without a scheme gets the same message, with one fix: `https://` for a public
    /// host, `http://` for a local one.
    @Test(arguments: [
        ("example.com/users", "https://example.com/users"),
        ("api.example.com:8443/v1", "https://api.example.com:8443/v1"),
        ("localhost/get", "http://localhost/get"),
        ("127.0.0.1:8765/get", "http://127.0.0.1:8765/get"),
        ("printer.local/status", "http://printer.local/status"),
    ])
    func aURLWithoutASchemeGetsOneMessageAndOneFix(text: String, fixed: String) async throws {
        let error = try await #require(throws: RequestError.self) {
            try await Session(transport: StubTransport()).request(text)
        }
        #expect(error.code == .invalidURL)
        #expect(error.description.contains("has no scheme"), "\(error)")
        #expect(error.description.contains("write \"\(fixed)\""), "\(error)")
        #expect(!error.description.contains(" or \""), "one fix: \(error)")
    }

    /// A space where a URL cannot have one is pointed at.
    @Test func aSpaceInAURLIsPointedAt() async throws {
        let error = try await #require(throws: RequestError.self) {
            try await Session(transport: StubTransport()).request("http://exa mple.com/")
        }
        #expect(error.description.contains("a space at character 11, after \"http://exa\""), "\(error)")
    }

    @Test func textThatIsNoURLAtAllIsNamedWithoutAHint() async throws {
        let error = try await #require(throws: RequestError.self) {
            try await Session(transport: StubTransport()).request("http://exa mple.com/")
        }
        #expect(error.description.contains("\"http://exa mple.com/\" is not a URL"), "\(error)")
        #expect(!error.description.contains("no scheme"), "\(error)")
    }

    @Test func aDownloadIntoAFolderThatDoesNotExistNamesTheFolder() async throws {
        let stub = StubTransport()
        stub.on(.get, "/file", respond: .text("contents"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)")
        let error = try await #require(throws: RequestError.self) {
            try await Session(transport: stub).download("https://example.com/file", to: folder.appendingPathComponent("file.txt")).response()
        }
        #expect(error.code == .fileFailed)
        #expect(error.description.contains("the folder \(folder.path) does not exist"), "\(error)")
        // The file the caller named, not the hidden partial file beside it.
        #expect(error.description.contains("cannot download to \(folder.appendingPathComponent("file.txt").path)"), "\(error)")
        #expect(!error.description.contains(".part"), "\(error)")
        #expect(!error.description.contains("(null)"), "\(error)")
    }

    /// Each kind of decoding failure in one sentence, keys named as in the JSON, said once.
    @Test(arguments: [
        (#"{"name": "x"}"#, "could not decode User: the key \"id\" is missing"),
        (#"{"id": "seven"}"#, "could not decode User at id: expected Int, found a string"),
        (#"{"id": null}"#, "could not decode User at id: null (or nothing) where Int was expected"),
        (#"{"id": 1, "tags": [1, "b"]}"#, "could not decode User at tags[1]: expected Int"),
        ("not json", "could not decode User: The given data was not valid JSON."),
    ])
    func aDecodingFailureSaysWhatWasWrongOnce(body: String, expected: String) async throws {
        let stub = StubTransport()
        stub.on(.get, "/user", respond: .text(body))
        let response = try await Session(transport: stub).request("https://example.com/user")
        struct User: Decodable {
            let id: Int
            let tags: [Int]?
        }
        let error = try #require(throws: RequestError.self) { try response.decode(User.self) }
        #expect(error.detail.hasPrefix(expected), "\(error.detail)")
        #expect(!error.description.contains("CodingKeys"), "\(error.description)")
        #expect(!error.description.contains("No value associated"), "\(error.description)")
        #expect(!error.description.contains("Context("), "\(error.description)")
        #expect(error.underlyingError is DecodingError)
    }

    @Test func aDecodingFailureQuotesTheBodyOnOneShortLine() async throws {
        let stub = StubTransport()
        let body = "<html>\n<body>\n" + String(repeating: "Service unavailable\tretry later\r\n", count: 100) + "</body>\n</html>"
        stub.on(.get, "/user", respond: .text(body))
        let response = try await Session(transport: stub).request("https://example.com/user")
        struct User: Decodable { let id: Int }
        let error = try #require(throws: RequestError.self) { try response.decode(User.self) }
        let text = error.description
        #expect(!text.contains("\n") && !text.contains("\r") && !text.contains("\t"), "\(text)")
        #expect(text.contains("body: \"<html>\\n<body>\\nService unavailable\\tretry later\\r\\n"), "\(text)")
        #expect(text.contains("…\""), "the quoted body is cut: \(text)")
        #expect(text.utf8.count < 1_000, "\(text.utf8.count) bytes: \(text)")
        // The preview for programs keeps its kilobyte, line breaks and all.
        #expect(error.bodyPreview?.contains("\n") == true)
    }

    @Test func loggingMonitorDoesNotCountADownloadAsZeroBytes() async throws {
        let lines = Guarded<[String]>([])
        let monitor = LoggingMonitor { line in lines.withLock { $0.append(line) } }
        let stub = StubTransport()
        stub.on(.get, "/export.csv", respond: .data(Data(repeating: 0x41, count: 4096), headers: ["Content-Length": "4096"]))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: file) }
        let session = Session(transport: stub, monitors: [monitor])
        _ = try await session.download("https://example.com/export.csv", to: file).response()
        let received = try #require(lines.withLock { $0 }.first { $0.hasPrefix("< 200") })
        #expect(received.contains("body streamed (4096 bytes announced)"), "\(received)")
        #expect(!received.contains(": 0 bytes"), "\(received)")
    }
}
