import Foundation
import TestScheduling
import Testing

/// `req` against the loopback server: every item kind and flag.
@Suite(.backgroundPriority) struct ReqOnlineTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    private func echo(_ run: Run) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: run.stdout)
    }

    @Test func everyItemKindReachesTheServer() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("from a file".utf8).write(to: directory.appendingPathComponent("note.txt"))
        try Data("{\"n\": [1, 2]}".utf8).write(to: directory.appendingPathComponent("data.json"))
        let run = try await req([try url("/anything"), "q==1", "X-Test:yes", "X-Empty;", "name=Arthur", "age:=42",
                           "note=@note.txt", "data:=@data.json", "user[email]=a@b"], in: directory)
        #expect(run.status == 0)
        let echo = try echo(run)
        #expect(echo.method == "POST")
        #expect(echo.query == "q=1")
        #expect(echo.header("X-Test") == "yes")
        #expect(echo.header("X-Empty") == "")
        #expect(echo.json == .object(["name": .string("Arthur"), "age": .number(42), "note": .string("from a file"),
                                      "data": .object(["n": .array([.number(1), .number(2)])]),
                                      "user": .object(["email": .string("a@b")])]))
    }

    @Test func aFileMakesTheRequestMultipart() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("file body".utf8).write(to: directory.appendingPathComponent("f.txt"))
        let echo = try echo(try await req(["--form", try url("/anything"), "title=Hi", "upload@f.txt"], in: directory))
        #expect(echo.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(echo.multipart?.parts.map(\.name) == ["title", "upload"])
        #expect(echo.multipart?.parts.last?.filename == "f.txt")
        #expect(echo.multipart?.parts.last?.text == "file body")
    }

    @Test func encodingsAndMethods() async throws {
        let form = try echo(try await req(["--form", "PUT", try url("/anything"), "a=1", "b[]=x"]))
        #expect(form.method == "PUT")
        #expect(form.form == [["a", "1"], ["b[]", "x"]])
        let query = try echo(try await req(["--query", try url("/anything"), "a=1"]))
        #expect(query.method == "GET")
        #expect(query.query == "a=1")
        let plist = try await req(["--plist", try url("/anything"), "a=1"])
        #expect(try echo(plist).header("Content-Type") == "application/x-plist")
        let delete = try echo(try await req(["DELETE", try url("/anything")]))
        #expect(delete.method == "DELETE")
    }

    @Test func printPartsAndVerbose() async throws {
        let headersOnly = try await req(["-p", "h", try url("/json")])
        #expect(headersOnly.output.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(headersOnly.output.contains("Content-Type: application/json\n"))
        #expect(!headersOnly.output.contains("slideshow"))
        let bodyOnly = try await req(["--pretty=format", try url("/json")])
        #expect(bodyOnly.output.hasPrefix("{\n    \"slideshow\": {\n"))
        let verbose = try await req(["-v", try url("/anything"), "a=1"])
        #expect(verbose.output.hasPrefix("POST /anything HTTP/1.1\n"))
        #expect(verbose.output.contains("\n{\"a\":\"1\"}\n\nHTTP/1.1 200 OK\n"))
        // What the transport adds goes out too, so -v shows it (offline shows what req built).
        #expect(verbose.output.contains("\nAccept-Encoding: "), "\(verbose.output)")
        #expect(!verbose.output.contains("\u{1B}["), "colour in piped output")
    }

    @Test func checkStatusMapsStatusesToExitCodes() async throws {
        #expect(try await req([try url("/status/404")]).status == 0)
        #expect(try await req(["--check-status", try url("/status/200")]).status == 0)
        #expect(try await req(["--check-status", try url("/redirect/1")]).status == 3)
        #expect(try await req(["--check-status", try url("/status/404")]).status == 4)
        #expect(try await req(["--check-status", try url("/status/503")]).status == 5)
        let refused = try await req(["127.0.0.1:1/"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("req: error: "))
    }

    @Test func timeout() async throws {
        let run = try await req(["--timeout", "0.5", try url("/delay/5")])
        #expect(run.status == 2)
        #expect(run.stderr.contains("Timed out"))
    }

    @Test func basicAndBearerAuthentication() async throws {
        let basic = try await req(["--check-status", "--auth", "user:pass", try url("/basic-auth/user/pass")])
        #expect(basic.status == 0)
        #expect(basic.output.contains("\"authenticated\": true"))
        #expect(try await req(["--check-status", "--auth", "user:wrong", try url("/basic-auth/user/pass")]).status == 4)
        let realm = "req-\(UUID().uuidString.prefix(6))"
        #expect(try await req(["--check-status", "--bearer", "\(realm)-0", try url("/bearer/\(realm)")]).status == 0)
        #expect(try await req(["--check-status", "--bearer", "wrong", try url("/bearer/\(realm)")]).status == 4)
    }

    @Test func digestAuthentication() async throws {
        for algorithm in ["MD5", "SHA-256"] {
            let run = try await req(["--check-status", "-A", "digest", "-a", "user:pass", try url("/digest-auth/auth/user/pass/\(algorithm)")])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.output.contains("\"authenticated\": true"), "\(run.output)")
        }
        #expect(try await req(["--check-status", "-A", "digest", "-a", "user:wrong", try url("/digest-auth/auth/user/pass/MD5")]).status == 4)
        let missing = try await req(["-A", "digest", "-a", "user", try url("/digest-auth/auth/user/pass/MD5")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("--auth takes USER:PASS for digest authentication"), "\(missing.stderr)")
    }

    @Test func retry() async throws {
        let key = "req-\(UUID().uuidString.prefix(6))"
        #expect(try await req(["--check-status", try url("/flaky/\(key)/2")]).status == 5)
        let other = "req-\(UUID().uuidString.prefix(6))"
        #expect(try await req(["--check-status", "--retry", "2", try url("/flaky/\(other)/2")]).status == 0)
    }

    @Test func followAndMaxRedirects() async throws {
        let plain = try await req(["-p", "h", try url("/redirect/2")])
        #expect(plain.output.hasPrefix("HTTP/1.1 302 Found\n"))
        let followed = try await req(["--follow", try url("/redirect/2")])
        #expect(try echo(followed).path == "/redirect/0")
        let limited = try await req(["--follow", "--max-redirects", "1", try url("/redirect/2")])
        #expect(limited.status == 6)
        #expect(limited.stderr.contains("Too many redirects"))
    }

    @Test func downloadNamesTheFileFromTheURLOrContentDisposition() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Standard output is /dev/null: a pipe or a file would get the body instead, as httpie's.
        let first = try await reqWithoutOutput(["--download", try url("/range/5000")], in: directory)
        #expect(first.status == 0)
        #expect(!first.stderr.contains("\r"), "a progress bar in piped output")
        // No extension in the URL: the one for its Content-Type, application/octet-stream.
        let saved = try Data(contentsOf: directory.appendingPathComponent("5000.bin"))
        #expect(saved.count == 5000)
        _ = try await reqWithoutOutput(["-d", try url("/range/10")], in: directory)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("10.bin").path))
        _ = try await reqWithoutOutput(["-d", try url("/range/10")], in: directory)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("10.bin-1").path))
        _ = try await reqWithoutOutput(["-d", try url("/range/20?filename=report.bin")], in: directory)
        #expect(try Data(contentsOf: directory.appendingPathComponent("report.bin")).count == 20)
        _ = try await req(["-d", "-o", directory.appendingPathComponent("chosen.bin").path, try url("/range/30")])
        #expect(try Data(contentsOf: directory.appendingPathComponent("chosen.bin")).count == 30)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasSuffix(".download") })
    }

    @Test func streamPrintsTheBodyAsItArrives() async throws {
        let run = try await req(["--stream", try url("/sse")])
        #expect(run.status == 0)
        #expect(run.output.contains("event: greeting\ndata: hello\ndata: world\n"))
        let lines = try await req(["-S", try url("/stream/3")])
        #expect(lines.output.split(separator: "\n").count == 3)
    }

    @Test func sessionsKeepCookiesAndHeadersBetweenRuns() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["REQ_CONFIG_DIR": directory.path]
        let first = try await req(["--session", "me", try url("/cookies/set"), "sid==abc", "X-Team:blue"], environment: environment)
        #expect(first.status == 0)
        let second = try await req(["--session", "me", try url("/anything")], environment: environment)
        let echo = try echo(second)
        #expect(echo.header("Cookie") == "sid=abc")
        #expect(echo.header("X-Team") == "blue")
        let other = try await req([try url("/anything")], environment: environment)
        #expect(try self.echo(other).header("Cookie") == nil)
        let file = directory.appendingPathComponent("sessions/127.0.0.1_\(try server().port)/me.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func noColorWhenPipedOrAsked() async throws {
        #expect(!(try await req([try url("/json")]).output.contains("\u{1B}[")))
        #expect(!(try await req(["--no-color", try url("/json")]).output.contains("\u{1B}[")))
    }
}
