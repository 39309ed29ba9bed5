import Foundation
import TestScheduling
import Testing

/// Exit statuses with httpie's numbers, and `--help` saying which is which.
@Suite(.backgroundPriority) struct ReqExitStatusTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    @Test func aTimeoutIs2() async throws {
        let run = try await req(["--timeout", "0.3", try url("/delay/3")])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("req: error: Timed out"), "\(run.stderr)")
    }

    @Test func tooManyRedirectsIs6() async throws {
        let run = try await req(["--follow", "--max-redirects", "1", try url("/redirect/3")])
        #expect(run.status == 6)
        #expect(run.stderr.contains("Too many redirects"))
        #expect(try await req(["--follow", "--max-redirects", "3", try url("/redirect/3")]).status == 0)
    }

    @Test func otherErrorsAndUsageErrorsAre1AsInHttpie() async throws {
        #expect(try await req(["127.0.0.1:1/"]).status == 1)
        #expect(try await req(["--timeout", "soon", try url("/")]).status == 1)
    }

    /// A scheme other than http and https is refused as given, not read as a host name
    /// (`http://ftp://…`), and nothing is sent.
    @Test(arguments: ["ftp://example.org/x", "file:///etc/passwd", "ws://127.0.0.1:1/"])
    func aSchemeOtherThanHTTPIsAUsageErrorNamingIt(url: String) async throws {
        let run = try await req([url])
        #expect(run.status == 1)
        let scheme = String(url.prefix { $0 != ":" })
        #expect(run.stderr.contains("only http and https URLs are sent, not \(scheme)"), "\(run.stderr)")
        #expect(!run.stderr.contains("http://\(scheme)"), "\(run.stderr)")
    }

    /// A `://` after the host (in a query) is no scheme: the URL gets `http://` as any other.
    @Test func aSchemeLaterInTheURLIsNotTheURLsScheme() async throws {
        let run = try await req(["--offline", "example.com/a?next=ftp://x"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.output.contains("GET /a?next=ftp://x HTTP/1.1"), "\(run.output)")
    }

    @Test func checkStatusWarnsOnStandardErrorWhenPiped() async throws {
        let run = try await req(["--check-status", try url("/status/418")])
        #expect(run.status == 4)
        #expect(run.stderr.hasPrefix("req: warning: HTTP 418 "), "\(run.stderr)")
        #expect(run.stdout == Data("status 418".utf8))
        #expect(try await req(["--check-status", "--follow", try url("/redirect/1")]).status == 0)
        #expect(try await req(["--check-status", try url("/redirect/1")]).status == 3)
    }

    @Test func helpNamesEveryStatusAndTheHttpieDifferences() async throws {
        let help = try await req(["--help"])
        #expect(help.status == 0)
        for line in ["2  a timeout (--timeout)", "or a usage error", "6  more redirects than --max-redirects",
                     "3, 4, 5  with --check-status", "coming from httpie", "req --help (-h is --headers"] {
            #expect(help.output.contains(line), "help lacks \(line)")
        }
        // -h is --headers, as in httpie, not help.
        #expect(try await req(["-h"]).status == 1)
    }
}
