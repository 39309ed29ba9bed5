import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing

/// httpie's output selection and formatting: `-h`, `-b`, `-p`, `-v`, `--all`, `--pretty`,
/// `--style`, `--sorted`/`--unsorted`, and the body byte for byte when not on a terminal.
@Suite(.backgroundPriority) struct ReqOutputSelectionTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    /// The body exactly as the server sends it, fetched without req.
    private func serverBytes(_ path: String) async throws -> Data {
        let url = try #require(URL(string: "http://127.0.0.1:\(try server().port)\(path)"))
        return try await URLSession.shared.data(from: url).0
    }

    @Test func headersAndBodyFlagsPickOnePart() async throws {
        for flag in ["-h", "--headers"] {
            let run = try await req([flag, try url("/json")])
            #expect(run.status == 0)
            #expect(run.output.hasPrefix("HTTP/1.1 200 OK\n"))
            #expect(run.output.contains("\nContent-Type: application/json\n"))
            #expect(run.output.hasSuffix("\n\n"))
            #expect(!run.output.contains("slideshow"))
        }
        for flag in ["-b", "--body"] {
            let run = try await req([flag, try url("/json")])
            #expect(run.stdout == (try await serverBytes("/json")))
        }
        let both = try await req(["-p", "hb", try url("/status/201")])
        #expect(both.output.hasPrefix("HTTP/1.1 201 Created\n"))
        #expect(both.output.hasSuffix("\n\nstatus 201"))
    }

    @Test func aPipedBodyIsWrittenByteForByte() async throws {
        for path in ["/json", "/status/200", "/bytes/300"] {
            let run = try await req([try url(path)])
            #expect(run.stdout == (try await serverBytes(path)), "\(path)")
        }
        // No newline is added, none re-indented, and no colour.
        let json = try await req([try url("/json")])
        #expect(json.stdout.last == UInt8(ascii: "}"))
        #expect(!json.output.contains("\n"))
    }

    @Test func prettyFormatsOrColoursWhenAsked() async throws {
        let format = try await req(["--pretty=format", try url("/json")])
        #expect(format.output.hasPrefix("{\n    \"slideshow\": {\n        \"slides\": [\n"))
        #expect(!format.output.contains("\u{1B}["))
        let colors = try await req(["--pretty", "colors", try url("/json")])
        #expect(colors.output.hasPrefix("{\u{1B}[34m\"slideshow\"\u{1B}[0m: {"), "\(colors.output.debugDescription)")
        let all = try await req(["--pretty=all", try url("/json")])
        #expect(all.output.hasPrefix("{\n    \u{1B}[34m\"slideshow\"\u{1B}[0m: {\n"))
        let none = try await req(["--pretty=none", try url("/json")])
        #expect(none.stdout == (try await serverBytes("/json")))
        let monokai = try await req(["--pretty=all", "--style", "monokai", try url("/json")])
        #expect(monokai.output.contains("\u{1B}[38;5;197m\"slideshow\"\u{1B}[0m"))
        let bad = try await req(["--style", "nope", try url("/json")])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("--style takes auto, monokai"))
        let badPretty = try await req(["--pretty=some", try url("/json")])
        #expect(badPretty.status == 1)
        #expect(badPretty.stderr.contains("--pretty takes all, colors, format or none"))
    }

    @Test func sortedSortsJSONKeysOnlyWhenAsked() async throws {
        // A raw body is sent as it is; shown formatted, its keys keep their order unless --sorted.
        let raw = #"{"b": 1, "a": {"d": 1.50, "c": [true]}}"#
        let own = try await req(["--offline", "-p", "B", "--pretty=format", "--raw", raw, "example.org"])
        #expect(own.output == "{\n    \"b\": 1,\n    \"a\": {\n        \"d\": 1.50,\n        \"c\": [\n            true\n        ]\n    }\n}\n")
        let sorted = try await req(["--offline", "-p", "B", "--pretty=format", "--sorted", "--raw", raw, "example.org"])
        #expect(sorted.output == "{\n    \"a\": {\n        \"c\": [\n            true\n        ],\n        \"d\": 1.50\n    },\n    \"b\": 1\n}\n")
        let unformatted = try await req(["--offline", "-p", "B", "--sorted", "--raw", raw, "example.org"])
        #expect(unformatted.output == raw + "\n")
        #expect(try await req(["--offline", "-p", "B", "--pretty=format", "--unsorted", "--raw", raw, "example.org"]).output == own.output)
        // Headers are sorted by name (URLSession gives them without their order on the wire).
        let head = try await req(["-h", try url("/json")]).output
        let type = try #require(head.range(of: "\nContent-Type:"))
        let server = try #require(head.range(of: "\nServer:"))
        #expect(type.lowerBound < server.lowerBound, "\(head)")
    }

    @Test func verboseShowsEveryRedirectAndAllDoesWithoutTheRequests() async throws {
        let verbose = try await req(["-v", "--follow", try url("/redirect/2")])
        #expect(verbose.status == 0)
        let starts = verbose.output.split(separator: "\n").filter { $0.hasPrefix("GET ") || $0.hasPrefix("HTTP/1.1 ") }
        #expect(starts == ["GET /redirect/2 HTTP/1.1", "HTTP/1.1 302 Found", "GET /redirect/1 HTTP/1.1", "HTTP/1.1 302 Found",
                           "GET /redirect/0 HTTP/1.1", "HTTP/1.1 200 OK"], "\(verbose.output)")
        let all = try await req(["--all", "-p", "h", "--follow", try url("/redirect/1")])
        let heads = all.output.split(separator: "\n").filter { $0.hasPrefix("HTTP/1.1 ") }
        #expect(heads == ["HTTP/1.1 302 Found", "HTTP/1.1 200 OK"])
        #expect(!all.output.contains("GET "))
        // Without --all only the last response is shown.
        let last = try await req(["-p", "h", "--follow", try url("/redirect/1")])
        #expect(last.output.split(separator: "\n").filter { $0.hasPrefix("HTTP/1.1 ") } == ["HTTP/1.1 200 OK"])
    }

    @Test func verboseShowsTheRequestAsSentWithTheTransportsHeaders() async throws {
        let run = try await req(["-v", "--auth", "user:pass", try url("/basic-auth/user/pass")])
        #expect(run.output.contains("\nAuthorization: Basic dXNlcjpwYXNz\n"), "\(run.output)")
        #expect(run.output.contains("\nAccept-Encoding: "))
        #if !AsyncHTTPClient
        #expect(run.output.contains("\nConnection: keep-alive\n"))
        #endif
    }
}
