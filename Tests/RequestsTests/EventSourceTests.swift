import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Requests
import RequestsTesting
import Testing

// MARK: - Support

/// A clock for the waits between connections: it records each wait asked and returns at once,
/// so the tests check the intervals exactly, not by timing them.
final class RecordingSleeper: Sendable {
    private let asked = Guarded<[Duration]>([])

    var waits: [Duration] { asked.withLock { $0 } }

    var sleep: @Sendable (Duration) async throws -> Void {
        { [asked] duration in
            asked.withLock { $0.append(duration) }
            try Task.checkCancellation()
        }
    }
}

extension Session {
    /// An event source whose waits go to `sleeper`.
    func events(
        _ url: String, method: HTTPMethod = .get, headers: HTTPHeaders? = nil, reconnection: EventSource.Reconnection = .default,
        sleeper: RecordingSleeper, random: @escaping @Sendable () -> Double = { 0.5 }
    ) -> EventSource {
        let source = events(url, method: method, headers: headers, reconnection: reconnection)
        return EventSource(session: self, request: source.request, timeout: nil, interceptors: [], reconnection: reconnection,
                           sleep: sleeper.sleep, random: random)
    }
}

/// The updates of a stream, as short words: `open 200`, `event message "a" id 1`,
/// `wait 1 3.0s after connectionLost` …, then `end` or `error <code>`.
func transcript(_ source: EventSource, limit: Int = 50) async -> [String] {
    var lines: [String] = []
    do {
        for try await update in source.updates {
            switch update {
            case .connected(let response): lines.append("open \(response.statusCode)")
            case .event(let event): lines.append("event \(event.type) \"\(event.data)\" id \(event.id ?? "-")")
            case .reconnecting(let wait):
                let seconds = Double(wait.delay.components.seconds) + Double(wait.delay.components.attoseconds) / 1e18
                let cause = wait.cause.map { $0.transportErrorKind?.description ?? $0.code.description } ?? "end"
                lines.append("wait \(wait.attempt) \(seconds)s after \(cause) last-id \(wait.lastEventID)")
            }
            if lines.count >= limit { return lines + ["stopped"] }
        }
        lines.append("end")
    } catch let error as RequestError {
        lines.append("error \(error.code)")
    } catch {
        lines.append("error \(type(of: error))")
    }
    return lines
}

private func chunks(_ texts: String...) -> [Data] { texts.map { Data($0.utf8) } }

private let eventStream: HTTPHeaders = ["Content-Type": "text/event-stream"]

// MARK: - EventSourceTests

/// `Session.events` over `StubTransport`: the HTML standard's processing model, one rule at a time.
@Suite struct EventSourceTests {
    @Test func aDroppedConnectionResumesAfterTheLastEventID() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/feed", respond:
            .stream(chunks("id: 1\ndata: a\n\n", "id: 2\ndata: b\n\nid: 3\ndata: hal"), failingWith: .connectionLost, headers: eventStream),
            .stream(chunks("id: 3\ndata: c\n\n"), headers: eventStream),
            .status(204))
        let sleeper = RecordingSleeper()
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", sleeper: sleeper))
        #expect(lines == [
            "open 200", "event message \"a\" id 1", "event message \"b\" id 2",
            "wait 1 3.0s after connectionLost last-id 2",
            "open 200", "event message \"c\" id 3",
            "wait 1 3.0s after end last-id 3",
            "end",
        ])
        // The half event was discarded; each connection asked from the last complete one.
        #expect(route.requests.map { $0.headers["Last-Event-ID"] } == [nil, "2", "3"])
        #expect(route.requests.allSatisfy { $0.headers["Accept"] == "text/event-stream" })
        #expect(sleeper.waits == [.seconds(3), .seconds(3)])
    }

    @Test func retryFieldsSetTheReconnectionTimeWhenValid() async throws {
        let stub = StubTransport()
        stub.on(.get, "/feed", respond:
            .stream(chunks("retry: 500\n\ndata: a\n\n"), headers: eventStream),
            .stream(chunks("retry: 1.5\nretry: abc\nretry: -1\nretry:\ndata: b\n\n"), headers: eventStream),
            .stream(chunks("retry: 0\ndata: c\n\n"), headers: eventStream),
            .stream(chunks("retry: 250\n"), headers: eventStream),
            .status(204))
        let sleeper = RecordingSleeper()
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", sleeper: sleeper))
        #expect(lines.filter { $0.hasPrefix("wait") } == [
            "wait 1 0.5s after end last-id ",
            // Invalid values leave the time as it was.
            "wait 1 0.5s after end last-id ",
            "wait 1 0.0s after end last-id ",
            // A stream that gives no event still sets the time; the attempt counts on.
            "wait 2 0.5s after end last-id ",
        ])
        // A zero wait is no wait.
        #expect(sleeper.waits == [.milliseconds(500), .milliseconds(500), .milliseconds(500)])
        #expect(lines.last == "end")
    }

    @Test func lastEventIDFollowsTheStandard() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/feed", respond:
            // An id with NUL is ignored; an id-only block still sets the last event ID.
            .stream(chunks("id: 7\ndata: a\n\nid: x\u{0}y\ndata: b\n\nid: 9\n\n"), headers: eventStream),
            // An empty id resets it: the next connection sends no Last-Event-ID.
            .stream(chunks("data: c\nid\n\n"), headers: eventStream),
            .status(204))
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", sleeper: RecordingSleeper()))
        #expect(lines.contains("event message \"b\" id 7"))
        #expect(route.requests.map { $0.headers["Last-Event-ID"] } == [nil, "9", nil])
        #expect(lines.contains("event message \"c\" id "))
    }

    @Test func theLastEventIDCarriesIntoTheNextConnectionAndStartsFromTheCallers() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/feed", respond:
            .stream(chunks("id: 5\ndata: a\n\n"), failingWith: .connectionLost, headers: eventStream),
            // No id field: the event still carries 5, and the source still resumes from it.
            .stream(chunks("data: b\n\n"), headers: eventStream),
            .status(204))
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", headers: ["Last-Event-ID": "4"],
                                                                      sleeper: RecordingSleeper()))
        #expect(lines.filter { $0.hasPrefix("event") } == ["event message \"a\" id 5", "event message \"b\" id 5"])
        #expect(route.requests.map { $0.headers["Last-Event-ID"] } == ["4", "5", "5"])
    }

    @Test func neverReconnectingEndsNormallyWhenTheServerEndsTheResponse() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/feed", respond: .stream(chunks("data: a\n\n"), headers: eventStream))
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", reconnection: .never, sleeper: RecordingSleeper()))
        #expect(lines == ["open 200", "event message \"a\" id -", "end"])
        #expect(route.requests.count == 1)
    }

    @Test func aStreamBodyIsNotSentASecondTime() async throws {
        let stub = StubTransport()
        stub.on(.post, "/feed", respond: .stream(chunks("data: a\n\n"), headers: eventStream))
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("hello".utf8))
            continuation.finish()
        }
        let request = OutgoingRequest(url: try #require(URL(string: "https://example.com/feed")), method: .post,
                                      body: .stream(chunks, length: nil))
        let session = Session(transport: stub)
        let source = session.events(request)
        let quick = EventSource(session: session, request: source.request, timeout: nil, interceptors: [], reconnection: .default,
                                sleep: RecordingSleeper().sleep, random: { 0 })
        let lines = await transcript(quick)
        #expect(lines.first == "open 200")
        #expect(lines.last == "error encodingFailed")
        #expect(stub.requests.count == 1)
    }

    @Test func eventsAreParsedAsTheStandardSays() async throws {
        let stub = StubTransport()
        stub.on(.get, "/feed", respond:
            .stream(chunks("\u{FEFF}: comment\r\nevent: add\r\ndata: one\rdata\ndata: two\n", "\nfield\ndata:three\n\n"),
                    headers: eventStream),
            .status(204))
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", sleeper: RecordingSleeper()))
        #expect(lines.filter { $0.hasPrefix("event") } == ["event add \"one\n\ntwo\" id -", "event message \"three\" id -"])
    }

    @Test(arguments: [
        (StubResponse.status(500, body: Data("down".utf8)), "error unacceptableStatusCode"),
        (.text("not a stream"), "error unacceptableContentType"),
        (.status(204), "end"),
        (.status(301, headers: ["Location": "/elsewhere"]), "error unacceptableStatusCode"),
    ])
    func aReconnectionThatIsNotAStreamEndsItForGood(answer: StubResponse, ending: String) async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/feed", respond: .stream(chunks("id: 1\ndata: a\n\n"), headers: eventStream), answer)
        stub.on(.get, "/elsewhere", respond: .status(404))
        let lines = await transcript(Session(transport: stub, redirectPolicy: .doNotFollow).events("https://example.com/feed", sleeper: RecordingSleeper()))
        #expect(lines.last == ending)
        #expect(route.requests.count == 2)
    }

    @Test func failuresBackOffUpToTheCapAndGiveUpAfterTheAttempts() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/feed", respond: .refused)
        let sleeper = RecordingSleeper()
        let policy = EventSource.Reconnection(initialDelay: .seconds(1), maximumDelay: .seconds(3), backoff: 2, maximumAttempts: 4)
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", reconnection: policy, sleeper: sleeper))
        #expect(sleeper.waits == [.seconds(1), .seconds(2), .seconds(3), .seconds(3)])
        #expect(lines.last == "error transportFailed")
        #expect(route.requests.count == 5)
    }

    @Test func jitterShortensWaitsByItsFraction() {
        let policy = EventSource.Reconnection(initialDelay: .seconds(2), backoff: 1, jitter: 0.5)
        #expect(policy.delay(attempt: 1, reconnectionTime: .seconds(2), random: 0) == .seconds(2))
        #expect(policy.delay(attempt: 1, reconnectionTime: .seconds(2), random: 0.5) == .milliseconds(1_500))
        #expect(policy.delay(attempt: 3, reconnectionTime: .seconds(4), random: 0.999_999) > .milliseconds(2_000))
        #expect(EventSource.Reconnection(jitter: 7).jitter == 1 && EventSource.Reconnection(backoff: 0.5).backoff == 1)
        #expect(EventSource.Reconnection.never.maximumAttempts == 0)
    }

    @Test func neverReconnectingEndsWithTheFirstConnectionsError() async throws {
        let stub = StubTransport()
        stub.on(.get, "/feed", respond: .stream(chunks("data: a\n\n"), failingWith: .connectionLost, headers: eventStream))
        let lines = await transcript(Session(transport: stub).events("https://example.com/feed", reconnection: .never, sleeper: RecordingSleeper()))
        #expect(lines == ["open 200", "event message \"a\" id -", "error streamFailed"])
    }

    @Test func cancellingTheTaskEndsTheWait() async throws {
        let stub = StubTransport()
        stub.on(.get, "/feed", respond: .stream(chunks("data: a\n\n"), headers: eventStream))
        let session = Session(transport: stub)
        let waiting = Guarded(false)
        let task = Task { () -> String in
            do {
                // The real clock: a ten-minute wait that only cancellation can end.
                for try await update in session.events("https://example.com/feed", reconnection: .init(initialDelay: .seconds(600))).updates {
                    if case .reconnecting = update { waiting.withLock { $0 = true } }
                }
                return "ended"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        // Once the wait is announced, the loop is in it (or about to be): cancel then.
        while !waiting.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(20))
        let cancelled = ContinuousClock.now
        task.cancel()
        #expect(await task.value == "cancelled")
        // Ended by the cancellation, not by the ten minutes.
        #expect(ContinuousClock.now - cancelled < .seconds(60))
        #expect(stub.requests.count == 1)
    }

    @Test func aPostStreamSendsItsBodyOnEveryConnection() async throws {
        let stub = StubTransport()
        let route = stub.on(.post, "/mcp", respond:
            .stream(chunks("id: 1\ndata: a\n\n"), failingWith: .connectionLost, headers: eventStream),
            .stream(chunks("id: 2\ndata: b\n\n"), headers: eventStream),
            .status(204))
        let session = Session(transport: stub)
        let source = session.events("https://example.com/mcp", method: .post, parameters: ["method": "initialize"],
                                    encoding: JSONEncoding.default, headers: ["Mcp-Session-Id": "s1"])
        let quick = EventSource(session: session, request: source.request, timeout: nil, interceptors: [], reconnection: .default,
                                sleep: RecordingSleeper().sleep, random: { 0 })
        var data: [String] = []
        for try await event in quick { data.append(event.data) }
        #expect(data == ["a", "b"])
        #expect(route.requests.map(\.bodyText) == Array(repeating: #"{"method":"initialize"}"#, count: 3))
        #expect(route.requests.map { $0.headers["Mcp-Session-Id"] } == ["s1", "s1", "s1"])
        #expect(route.requests.map { $0.headers["Last-Event-ID"] } == [nil, "1", "2"])
    }
}
