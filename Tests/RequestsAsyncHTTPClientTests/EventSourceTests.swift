#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

/// What a stream's log answers, from the loopback server or sse-starlette: each connection's
/// `Last-Event-ID`, and for sse-starlette its HTTP version.
private struct ConnectionLog: Decodable, Sendable {
    struct Connection: Decodable, Sendable {
        let lastEventID: String?
        let httpVersion: String?
    }

    let connections: [Connection]
}

/// Reads a log with a session of its own, so the stream's connections are not touched.
private func fetchLog(_ url: String, configuration: AsyncHTTPClientTransport.Configuration) async throws -> ConnectionLog {
    try await withSession(configuration) { session in
        try await session.request(url).decode(ConnectionLog.self)
    }
}

/// `Session.events` over AsyncHTTPClient: the loopback server's broken streams, and sse-starlette
/// resuming from `Last-Event-ID` over HTTP/2 and HTTP/1.1.
@Suite(.timeLimit(.minutes(3)))
struct EventSourceTests {
    let quick = EventSource.Reconnection(initialDelay: .milliseconds(50), backoff: 1)

    @Test func noEventIsLostOrRepeatedAcrossDroppedConnections() async throws {
        let name = "ahc-drops-\(UUID().uuidString.prefix(8))"
        let plan = "events=2,end=drop-mid;before=drop;events=1,end=drop;events=2;status=204"
        let base = try server()
        var data: [String] = []
        var ids: [String?] = []
        try await withSession(AsyncHTTPClientTransport.Configuration()) { session in
            let url = base.url("/eventsource/\(name)?plan=\(plan.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? plan)")
            for try await event in session.events(url, reconnection: quick) {
                data.append(event.data)
                ids.append(event.id)
            }
        }
        #expect(data == (1...5).map { "event \($0)" })
        #expect(ids == ["1", "2", "3", "4", "5"])
        let log = try await fetchLog(base.url("/eventsource-log/\(name)").absoluteString, configuration: .init())
        #expect(log.connections.map(\.lastEventID) == [nil, "2", "2", "3", "5"])
    }

    @Test(arguments: [false, true])
    func sseStarletteResumesFromTheLastEventID(http1Only: Bool) async throws {
        let configuration = try await TLSCertificates.shared.value.trustingTestCA()
        let server = try await TLSServer.shared(.serverSentEvents(http1Only: http1Only))
        let name = "resume-\(http1Only ? "h1" : "h2")-\(UUID().uuidString.prefix(8))"
        var data: [String] = []
        var connections = 0
        try await withSession(configuration) { session in
            // Three events a connection, ten in all, then 204.
            for try await update in session.events(server.url("/resumable?id=\(name)&per=3&total=10"), reconnection: quick).updates {
                switch update {
                case .connected: connections += 1
                case .event(let event): data.append(event.data)
                case .reconnecting: break
                }
            }
        }
        #expect(data == (1...10).map(String.init))
        #expect(connections == 4)
        let log = try await fetchLog(server.url("/resumable-log?id=\(name)"), configuration: configuration)
        #expect(log.connections.map(\.lastEventID) == [nil, "3", "6", "9", "10"])
        #expect(Set(log.connections.compactMap(\.httpVersion)) == [http1Only ? "1.1" : "2"])
    }
}
#endif
