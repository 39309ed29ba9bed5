import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Requests
import RequestsTesting
import Testing

/// Tokens that expire after the first connection: `t0`, then `t1` once refreshed.
private final class ExpiringTokens: TokenProvider {
    let refreshes = Guarded(0)

    func token() async throws -> String {
        refreshes.withLock { $0 == 0 ? "t0" : "t1" }
    }

    func refreshToken(rejected: String) async throws -> String {
        refreshes.withLock {
            $0 += 1
            return "t1"
        }
    }
}

/// Every connection of an event stream is a call through the whole session.
@Suite struct EventSourcePipelineTests {
    @Test func everyConnectionGoesThroughAuthenticationMonitorsLoggingAndRecording() async throws {
        let stub = StubTransport()
        let served = Guarded(0)
        let eventStream: HTTPHeaders = ["Content-Type": "text/event-stream"]
        stub.on(.get, "/feed", respond: .computed { request in
            let number = served.withLock {
                $0 += 1
                return $0
            }
            switch (number, request.headers["Authorization"]) {
            case (1, "Bearer t0"):
                return .stream([Data("id: 1\ndata: a\n\n".utf8)], failingWith: .connectionLost, headers: eventStream)
            case (_, "Bearer t0"):
                // The token expired while the stream was open.
                return .status(401)
            case (3, "Bearer t1"):
                return .stream([Data("id: 2\ndata: b\n\n".utf8)], headers: eventStream)
            default:
                return .status(204)
            }
        })
        let recorder = RecordingTransport(wrapping: stub)
        let monitor = RecordingMonitor()
        let logged = Guarded<[String]>([])
        let tokens = ExpiringTokens()
        let session = Session(
            transport: recorder, interceptors: [BearerAuthentication(provider: tokens, scope: .anyOrigin)],
            monitors: [monitor, LoggingMonitor(write: { line in logged.withLock { $0.append(line) } })]
        )
        let source = session.events("https://example.com/feed", sleeper: RecordingSleeper())
        var data: [String] = []
        for try await event in source { data.append(event.data) }

        #expect(data == ["a", "b"])
        #expect(tokens.refreshes.withLock { $0 } == 1)
        let sent = stub.requests.map { [$0.headers["Authorization"] ?? "-", $0.headers["Last-Event-ID"] ?? "-"] }
        #expect(sent == [["Bearer t0", "-"], ["Bearer t0", "1"], ["Bearer t1", "1"], ["Bearer t1", "2"]])
        // Three calls (the 401 and its resend are one call's two trips), each seen by the monitors.
        #expect(monitor.events.filter { $0.hasPrefix("receive") } == ["receive 1 200", "receive 1 401", "receive 2 200", "receive 1 204"])
        let answers = logged.withLock { $0 }.filter { $0.hasPrefix("< ") }.map { $0.components(separatedBy: ": ")[0] }
        #expect(answers == ["< 200 GET https://example.com/feed", "< 401 GET https://example.com/feed",
                            "< 200 GET https://example.com/feed", "< 204 GET https://example.com/feed"])
        #expect(recorder.har.log.entries.map(\.response.status) == [200, 401, 200, 204])
    }
}
