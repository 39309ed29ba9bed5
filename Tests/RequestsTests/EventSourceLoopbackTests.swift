import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Requests
import Testing

/// What `/eventsource-log/<name>` answers: each connection's `Last-Event-ID`, method, body, and
/// when it arrived and ended (the server's monotonic clock, seconds).
struct EventSourceLog: Decodable, Sendable {
    struct Connection: Decodable, Sendable {
        let lastEventID: String?
        let at: Double
        let ended: Double?
        let method: String
        let body: String
    }

    let connections: [Connection]

    /// The time from each connection's end to the next one's arrival.
    var gaps: [Double] {
        zip(connections, connections.dropFirst()).map { previous, next in next.at - (previous.ended ?? previous.at) }
    }
}

/// A unique name for a stream on the shared server.
func streamName(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

/// `Session.events` over URLSession against the loopback server, whose streams end, break and
/// change between connections as each test's plan says (`eventsource_routes.py`).
@Suite(.timeLimit(.minutes(2))) struct EventSourceLoopbackTests {
    let session = Session(cookies: .none)
    /// Quick reconnections, constant, so each wait is the reconnection time.
    let quick = EventSource.Reconnection(initialDelay: .milliseconds(100), backoff: 1)

    func url(_ name: String, plan: String) throws -> URL {
        try server().url("/eventsource/\(name)?plan=\(plan.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? plan)")
    }

    @Test func noEventIsLostOrRepeatedAcrossDropsMidEventAfterAnEventAndDuringTheWait() async throws {
        let name = streamName("drops")
        // 1-2 and half of 3, then dropped; the next try refused before any answer; 3, dropped
        // after it; 4-5 and the end; 204.
        let plan = "events=2,end=drop-mid;before=drop;events=1,end=drop;events=2,end=close;status=204"
        let lines = await transcript(session.events(try url(name, plan: plan), reconnection: quick))
        #expect(lines.filter { $0.hasPrefix("event") } == (1...5).map { "event message \"event \($0)\" id \($0)" })
        #expect(lines.last == "end")
        let waits = lines.filter { $0.hasPrefix("wait") }
        #expect(waits.count == 4)
        // The try refused during the wait is the second in a row without an event.
        #expect(waits.map { $0.split(separator: " ")[1] } == ["1", "2", "1", "1"])
        let log = try await fetchJSON(EventSourceLog.self, "/eventsource-log/\(name)")
        #expect(log.connections.map(\.lastEventID) == [nil, "2", "2", "3", "5"])
        // The waits asked were 0.1 s each (`quick`, backoff 1); each real gap was at least that,
        // less a tenth for the two processes' clocks.
        #expect(log.gaps.count == 4 && log.gaps.allSatisfy { $0 >= 0.09 }, "\(log.gaps)")
    }

    @Test func retryValuesFromTheServerSetTheWaits() async throws {
        let name = streamName("retry")
        let plan = "retry=300,events=1;retry=abc,events=1;retry=0,events=1;status=204"
        let source = session.events(try url(name, plan: plan), reconnection: .init(initialDelay: .seconds(5), backoff: 1))
        let lines = await transcript(source)
        #expect(lines.filter { $0.hasPrefix("wait") }.map { $0.split(separator: " ")[2] } == ["0.3s", "0.3s", "0.0s"])
        #expect(lines.last == "end")
        let log = try await fetchJSON(EventSourceLog.self, "/eventsource-log/\(name)")
        #expect(log.gaps.count == 3 && log.gaps[0] >= 0.27 && log.gaps[1] >= 0.27, "\(log.gaps)")
    }

    @Test(arguments: [("status=500", "error unacceptableStatusCode"), ("type=text/plain", "error unacceptableContentType"),
                      ("status=204", "end")])
    func aReconnectionAnsweredWithoutAStreamEndsIt(step: String, ending: String) async throws {
        let name = streamName("final")
        let lines = await transcript(session.events(try url(name, plan: "events=1;\(step)"), reconnection: quick))
        #expect(lines.last == ending)
        let log = try await fetchJSON(EventSourceLog.self, "/eventsource-log/\(name)")
        #expect(log.connections.count == 2)
    }

    @Test func aSilentStreamIsConnectedAgainAfterTheTimeout() async throws {
        let name = streamName("silent")
        // Every connection sends one event, then nothing. On a loaded machine a reconnection's
        // head may itself outlast the timeout; the stream then simply tries again.
        let source = session.events(try url(name, plan: "events=1,end=hold"), timeout: .seconds(2), reconnection: quick)
        var events: [String] = []
        var causes: [String] = []
        for try await update in source.updates {
            switch update {
            case .event(let event): events.append(event.data)
            case .reconnecting(let wait): causes.append(wait.cause?.code.description ?? "end")
            case .connected: break
            }
            if events.count == 2 { break }
        }
        #expect(events == ["event 1", "event 2"])
        #expect(!causes.isEmpty && causes.allSatisfy { $0 == "timedOut" }, "\(causes)")
    }

    @Test func leavingTheLoopEndsTheConnection() async throws {
        let name = streamName("leave")
        for try await event in session.events(try url(name, plan: "events=1,end=hold"), reconnection: quick) {
            #expect(event.data == "event 1")
            break
        }
        // The server notices the closed connection within its 50 ms polls; allow for a slow machine.
        var log = try await fetchJSON(EventSourceLog.self, "/eventsource-log/\(name)")
        let deadline = ContinuousClock.now + .seconds(20)
        while log.connections.first?.ended == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            log = try await fetchJSON(EventSourceLog.self, "/eventsource-log/\(name)")
        }
        #expect(log.connections.count == 1 && log.connections[0].ended != nil)
    }

    @Test func aPostStreamSendsItsBodyOnEachConnection() async throws {
        let name = streamName("post")
        let source = session.events(try url(name, plan: "events=1,end=drop;status=204"), method: .post,
                                    parameters: ["jsonrpc": "2.0", "method": "initialize"], encoding: JSONEncoding.default,
                                    reconnection: quick)
        var events: [String] = []
        for try await event in source { events.append(event.data) }
        #expect(events == ["event 1"])
        let log = try await fetchJSON(EventSourceLog.self, "/eventsource-log/\(name)")
        #expect(log.connections.map(\.method) == ["POST", "POST"])
        #expect(log.connections.map(\.body) == Array(repeating: #"{"jsonrpc":"2.0","method":"initialize"}"#, count: 2))
        #expect(log.connections.map(\.lastEventID) == [nil, "1"])
    }
}
