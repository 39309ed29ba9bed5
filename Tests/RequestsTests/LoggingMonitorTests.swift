import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests
import RequestsTesting

/// `LoggingMonitor` and its `curl` lines: quoting, redaction, body limits, event lines.
@Suite struct LoggingMonitorTests {
    private func curl(_ request: OutgoingRequest, redact: Bool = true, limit: Int = 1024) -> String {
        CurlCommand(request: request, redactsCredentials: redact, bodyLimit: limit).text
    }

    private func request(_ url: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil) throws -> OutgoingRequest {
        OutgoingRequest(
            url: try #require(URL(string: url)), method: HTTPMethod(rawValue: method), headers: HTTPHeaders(headers),
            body: body.map { .data(Data($0.utf8)) } ?? .empty
        )
    }

    @Test func aPostIsWrittenAsACurlCommandWithSortedHeadersAndTheBody() throws {
        let line = curl(try request("https://api.example.com/items?q=a%20b", method: "POST",
                                    headers: ["X-Trace": "1", "Content-Type": "application/json"], body: #"{"name":"Arthur"}"#))
        #expect(line == #"curl -X POST -H 'Content-Type: application/json' -H 'X-Trace: 1' --data-binary '{"name":"Arthur"}' 'https://api.example.com/items?q=a%20b'"#)
    }

    @Test func aPlainGetHasNoMethodFlagAndHeadUsesHead() throws {
        #expect(curl(try request("https://example.com/")) == "curl 'https://example.com/'")
        #expect(curl(try request("https://example.com/", method: "HEAD")) == "curl --head 'https://example.com/'")
    }

    @Test func credentialsAreRedactedByDefaultKeepingTheScheme() throws {
        let sent = try request("https://example.com/", headers: [
            "Authorization": "Bearer s3cr3t", "proxy-authorization": "Basic dTpw", "Cookie": "session=abc", "X-Other": "shown",
        ])
        let line = curl(sent)
        #expect(line.contains("-H 'Authorization: Bearer <redacted>'"))
        #expect(line.contains("-H 'proxy-authorization: Basic <redacted>'"))
        #expect(line.contains("-H 'Cookie: <redacted>'"))
        #expect(line.contains("-H 'X-Other: shown'"))
        #expect(!line.contains("s3cr3t") && !line.contains("dTpw") && !line.contains("abc"))
        #expect(curl(sent, redact: false).contains("-H 'Authorization: Bearer s3cr3t'"))
    }

    @Test func quotesAndControlCharactersAreEscapedForTheShell() throws {
        let line = curl(try request("https://example.com/", method: "POST", headers: ["X-Empty": ""], body: "it's\na test"))
        #expect(line == #"curl -X POST -H 'X-Empty;' --data-binary $'it\'s\na test' 'https://example.com/'"#)
        #expect(CurlCommand.quote("don't") == #"'don'\''t'"#)
    }

    @Test func longBodiesAreCutAndBinaryBodiesAreNotShown() throws {
        let long = curl(try request("https://example.com/", method: "PUT", body: String(repeating: "é", count: 10)), limit: 5)
        #expect(long == "curl -X PUT --data-binary 'éé' 'https://example.com/' # body cut at 4 of 20 bytes")
        var binary = try request("https://example.com/", method: "POST")
        binary.httpBody = Data([0xFF, 0xFE, 0x00, 0x01])
        #expect(curl(binary) == "curl -X POST --data-binary @- 'https://example.com/' # 4-byte binary body not shown")
    }

    @Test func eachEventBecomesOneLineAndRedactionIsOnByDefault() async throws {
        let lines = Guarded<[String]>([])
        let monitor = LoggingMonitor { line in lines.withLock { $0.append(line) } }
        #expect(monitor.redactsCredentials)
        let transport = StubTransport()
        transport.on(.get, "/a", respond: .text("hello", status: 503), .text("hello"))
        var retry = RetryPolicy(baseDelay: .milliseconds(2))
        retry.random = { $0.upperBound }
        let session = Session(transport: transport, interceptors: [retry], monitors: [monitor])
        _ = try await session.request("https://example.com/a", headers: ["Authorization": "Bearer top-secret"])
        let logged = lines.withLock { $0 }
        #expect(logged.count == 5)
        #expect(logged[0] == "curl -H 'Authorization: Bearer <redacted>' 'https://example.com/a'")
        #expect(logged[1].hasPrefix("< 503 GET https://example.com/a: 5 bytes in "))
        #expect(logged[2] == "~ GET https://example.com/a: retry in 2.0 ms after status 503 (attempt 1)")
        #expect(logged[4].hasPrefix("< 200 GET https://example.com/a: 5 bytes in "))
        #expect(!logged.joined().contains("top-secret"))

        transport.on(.get, "/down", respond: .refused)
        let failing = Session(transport: transport, monitors: [monitor])
        _ = try? await failing.request("https://example.com/down")
        let last = try #require(lines.withLock { $0.last })
        #expect(last.hasPrefix("! GET https://example.com/down failed after "))
        #expect(last.contains("(attempt 1): Transport failed for GET https://example.com/down"))
    }

    @Test(arguments: [(Duration.microseconds(850), "850 µs"), (.milliseconds(42), "42.0 ms"), (.milliseconds(3020), "3.02 s")])
    func durationsAreShortAndReadable(duration: Duration, text: String) {
        #expect(LoggingMonitor.format(duration) == text)
    }
}
