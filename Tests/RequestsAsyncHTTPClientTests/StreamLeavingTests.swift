#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

/// Leaving an endless stream ends it at the server, over AsyncHTTPClient: sse-starlette on
/// hypercorn learns that a client left only the ASGI way (an RST_STREAM or a closed connection),
/// and is asked over a transport with connections of its own. Every way of leaving, every way of
/// reading, over HTTP/2 and HTTP/1.1, within a second (the stream's own timeout is 10 s).
@Suite(.timeLimit(.minutes(3)))
struct StreamLeavingTests {
    @Test(arguments: StreamLeaving.allCases, StreamView.allCases)
    func leavingAStreamEndsItAtTheServer(_ how: StreamLeaving, _ view: StreamView) async throws {
        let configuration = try await TLSCertificates.shared.value.trustingTestCA()
        for http1Only in [false, true] {
            let server = try await TLSServer.shared(.serverSentEvents(http1Only: http1Only))
            try await withSession(configuration) { session in
                try await withSession(configuration) { observer in
                    try await retryingWhenLate { _ in
                        let outcome = try await StreamLeavingCheck.run(how, reading: view, base: server.url(""), session: session, observer: observer)
                        print("AsyncHTTPClient \(how) \(view): \(outcome)")
                        #expect(outcome.httpVersion == (http1Only ? "1.1" : "2"), "\(outcome)")
                        #expect(outcome.disconnected, "the server went on streaming after the reader left: \(outcome)")
                        let after = outcome.secondsToDisconnect ?? .infinity
                        guard after < 1 else { throw FixtureError("the server saw the reader go \(after) s after it left: \(outcome)") }
                    }
                }
            }
        }
    }
}
#endif
