import Foundation
import LoopbackFixture
import TestScheduling
import Testing

/// Standard input as the request body, as httpie takes it: read from a pipe or a regular file,
/// never from `/dev/null` or a terminal, and never beside request data items.
@Suite(.backgroundPriority) struct ReqStandardInputTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    private func echo(_ run: Run) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: run.stdout)
    }

    @Test func aPipedBodyIsSentByteForByteAsJSONWithPOST() async throws {
        let run = try await req([try url("/anything"), "q==1", "X-Test:yes"], input: .pipe(Data("{\"a\":1}\n".utf8)))
        #expect(run.status == 0, "\(run.stderr)")
        let echo = try echo(run)
        #expect(echo.method == "POST")
        #expect(echo.bodyData == Data("{\"a\":1}\n".utf8))
        #expect(echo.header("Content-Type") == "application/json")
        #expect(echo.header("Accept") == "application/json, */*;q=0.5")
        #expect(echo.query == "q=1")
        #expect(echo.header("X-Test") == "yes")
        let put = try self.echo(try await req(["PUT", try url("/anything")], input: .pipe(Data("x".utf8))))
        #expect(put.method == "PUT")
        #expect(put.bodyText == "x")
    }

    @Test func binaryBytesArriveUnchanged() async throws {
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let echo = try echo(try await req([try url("/anything")], input: .pipe(bytes)))
        #expect(echo.bodyData == bytes)
    }

    @Test func aRedirectedFileIsTheBodyOffline() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.json")
        try Data("[1, 2.50]\n".utf8).write(to: file)
        let run = try await req(["--offline", "example.org/items"], input: .file(file))
        #expect(run.output == withTransportHeaders("""
            POST /items HTTP/1.1
            Host: example.org
            Accept: application/json, */*;q=0.5
            Content-Length: 10
            Content-Type: application/json
            User-Agent: req/0.2.0

            [1, 2.50]

            """))
    }

    @Test func theEncodingFlagOrAContentTypeItemLabelsThePipedBody() async throws {
        let form = try echo(try await req(["--form", try url("/anything")], input: .pipe(Data("a=1&a=2".utf8))))
        #expect(form.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(form.form == [["a", "1"], ["a", "2"]])
        let text = try echo(try await req([try url("/anything"), "Content-Type:text/plain"], input: .pipe(Data("hi".utf8))))
        #expect(text.header("Content-Type") == "text/plain")
        #expect(text.bodyText == "hi")
    }

    @Test(arguments: ["a=1", "n:=1", "f@x.txt", "t=@x.txt", "j:=@x.txt"])
    func dataItemsBesideAPipedBodyAreAUsageError(item: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("1".utf8).write(to: directory.appendingPathComponent("x.txt"))
        let run = try await req(["--offline", "example.org", item], in: directory, input: .pipe(Data("{}".utf8)))
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\"\(item)\""), "\(run.stderr)")
        #expect(run.stderr.contains("--ignore-stdin"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func ignoreStdinSendsTheItemsInstead() async throws {
        for flag in ["--ignore-stdin", "-I"] {
            let echo = try echo(try await req([flag, try url("/anything"), "a=1"], input: .pipe(Data("{}".utf8))))
            #expect(echo.json == .object(["a": .string("1")]))
        }
    }

    @Test func noInputOrAnEmptyPipeChangesNothing() async throws {
        // /dev/null, the default here as in most CI jobs, is not read.
        let none = try echo(try await req([try url("/anything")]))
        #expect(none.method == "GET")
        #expect(none.body.isEmpty)
        let fields = try echo(try await req([try url("/anything"), "a=1"]))
        #expect(fields.json == .object(["a": .string("1")]))
        let empty = try echo(try await req([try url("/anything"), "a=1"], input: .pipe(Data())))
        #expect(empty.json == .object(["a": .string("1")]))
    }

    @Test func aSilentPipeIsWaitedForWithANote() async throws {
        // `sleep 4 | req`: the pipe stays open and empty for 4 seconds, then ends.
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "sleep 4 | \"$0\" --offline -p H example.org/x", try reqExecutable().path]
        )
        let stderr = String(decoding: output.stderr, as: UTF8.self)
        #expect(output.status == 0, "\(stderr)")
        #expect(stderr.contains("waiting for the request body on standard input"))
        #expect(stderr.contains("--ignore-stdin"))
        #expect(String(decoding: output.stdout, as: UTF8.self).hasPrefix("GET /x HTTP/1.1\n"))
    }
}
