import Foundation
import TestScheduling
import Testing

/// Headers (`Header:` removes, `Header;` sends empty, `--json` alone) and file fields
/// (`;type=`, `--multipart`, refused without `--form`).
@Suite(.backgroundPriority) struct ReqHeaderAndFileTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    private func echo(_ run: Run) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: run.stdout)
    }

    @Test func anEmptyHeaderItemRemovesADefaultHeader() async throws {
        // A session's header is a default too: `X-Team:` leaves it out of this request.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["REQ_CONFIG_DIR": directory.path]
        _ = try await req(["--session", "s", try url("/anything"), "X-Team:blue", "X-Kept:yes"], environment: environment)
        let run = try await req(["--session", "s", try url("/anything"), "X-Team:"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let echo = try echo(run)
        #expect(echo.header("X-Team") == nil)
        #expect(echo.header("X-Kept") == "yes")
        // Offline shows what would go out: req's own defaults gone, the transport's own kept and
        // named on standard error.
        let offline = try await req(["--offline", "-p", "H", "example.org", "User-Agent:", "Accept:"])
        #expect(offline.output == withTransportHeaders("GET / HTTP/1.1\nHost: example.org\n\n"))
        #expect(!offline.output.contains("User-Agent"))
        #if AsyncHTTPClient
        // AsyncHTTPClient adds neither back: both are gone on the wire too.
        #expect(offline.stderr.isEmpty, "\(offline.stderr)")
        #else
        #expect(offline.stderr.contains("req: note: User-Agent: cannot be removed: URLSession sends its own"), "\(offline.stderr)")
        #endif
    }

    @Test func aHeaderTheTransportAddsBackIsNamedOnStandardError() async throws {
        let run = try await req([try url("/anything"), "Accept-Encoding:"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("req: note: Accept-Encoding: cannot be removed: the transport adds"), "\(run.stderr)")
        #expect(try echo(run).header("Accept-Encoding") != nil)
        #if !AsyncHTTPClient
        // URLSession sends its own User-Agent (process name, engine version) to a request without one.
        let agent = try await req([try url("/anything"), "User-Agent:"])
        #expect(agent.stderr.contains("req: note: User-Agent: cannot be removed: URLSession sends its own"), "\(agent.stderr)")
        #expect(try echo(agent).header("User-Agent") != "req/0.2.0")
        let type = try await req([try url("/anything"), "Content-Type:", "a=1"])
        #expect(type.stderr.contains("req: note: Content-Type: cannot be removed"), "\(type.stderr)")
        #expect(try echo(type).bodyText == #"{"a":"1"}"#)
        #endif
    }

    @Test func aSemicolonSendsAnEmptyHeader() async throws {
        let echo = try echo(try await req([try url("/anything"), "X-Empty;", "User-Agent;"]))
        #expect(echo.header("X-Empty") == "")
        #expect(echo.header("User-Agent") == "")
        let bad = try await req(["--offline", "example.org", "X;y"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("\"X;y\": Header; sends an empty header and takes no value"))
    }

    @Test func jsonAloneAsksForAndLabelsJSON() async throws {
        let echo = try echo(try await req(["--json", try url("/anything")]))
        #expect(echo.method == "GET")
        #expect(echo.header("Accept") == "application/json, */*;q=0.5")
        #expect(echo.header("Content-Type") == "application/json")
        let plain = try self.echo(try await req([try url("/anything")]))
        #expect(plain.header("Accept") == "*/*")
        #expect(plain.header("Content-Type") == nil)
    }

    @Test func aFileFieldWithoutFormIsRefusedAsHttpieRefusesIt() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("x".utf8).write(to: directory.appendingPathComponent("f.txt"))
        let run = try await req([try url("/anything"), "f@f.txt"], in: directory)
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\"f@f.txt\": a file field is sent as multipart, so it needs --form or --multipart"), "\(run.stderr)")
    }

    @Test func aFileFieldCanNameItsType() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("a,b\n".utf8).write(to: directory.appendingPathComponent("t.txt"))
        let run = try await req(["--form", "--boundary", "BOUNDARY", "--offline", "-p", "B", "example.org", "f@t.txt;type=text/csv"], in: directory)
        #expect(run.output.contains("Content-Disposition: form-data; name=\"f\"; filename=\"t.txt\"\r\nContent-Type: text/csv\r\n\r\na,b\n"), "\(run.output)")
        let sent = try echo(try await req(["--form", try url("/anything"), "f@t.txt;type=text/csv"], in: directory))
        #expect(sent.multipart?.parts.first?.filename == "t.txt")
        #expect(sent.multipart?.parts.first?.text == "a,b\n")
        let empty = try await req(["--form", "--offline", "example.org", "f@t.txt;type="], in: directory)
        #expect(empty.status == 1)
        #expect(empty.stderr.contains(";type= needs a MIME type"))
    }

    @Test func multipartWithoutAFile() async throws {
        let echo = try echo(try await req(["--multipart", try url("/anything"), "a=1", "b=2"]))
        #expect(echo.method == "POST")
        #expect(echo.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(echo.multipart?.parts.map(\.name) == ["a", "b"])
        #expect(echo.multipart?.parts.map(\.text) == ["1", "2"])
    }
}
