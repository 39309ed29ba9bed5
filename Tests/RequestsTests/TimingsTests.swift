import Foundation
import LoopbackFixture
import Requests
import RequestsTesting
import Testing

/// `Response.timings`: each trip's phases as the engine tells them, in order, in every build; the
/// same figures in HAR entries and `LoggingMonitor`'s lines.
@Suite struct TimingsTests {
    @Test func everyTripIsTimedAndAFailedOneHasNoResponse() async throws {
        let stub = StubTransport()
        stub.on(.get, "/flaky", respond: StubResponse.failure(.connectionLost), .text("ok"))
        let session = Session(transport: stub, interceptors: [RetryPolicy(baseDelay: .milliseconds(1))])

        let response = try await session.request("http://127.0.0.1:9/flaky")
        let trips = response.timings.trips
        try #require(trips.count == 2)
        #expect(trips[0].responseStart == nil && trips[0].responseEnd == nil && trips[0].total == nil)
        // An in-memory engine tells nothing of its own: the head's arrival and the body's end
        // are the session's.
        #expect(trips[1].connection == nil && trips[1].requestSent == nil && trips[1].waiting == nil)
        let first = try #require(trips[1].responseStart), end = try #require(trips[1].responseEnd)
        #expect(trips[0].start <= trips[1].start && trips[1].start <= first && first <= end)
        #expect(response.timings.queued == nil)
    }

    /// FoundationNetworking reports the request body's last byte and the head's arrival: the
    /// server's time (a 0.2 s delay) shows as `waiting`, and HAR's `send`, `wait` and `receive`
    /// add up to `time`.
    @Test func urlSessionTellsWhenTheRequestWentOutAndTheHeadCameBack() async throws {
        let server = try LoopbackServer.shared.get()
        let recorder = RecordingTransport(wrapping: URLSessionTransport())
        let log = LineLog()
        let session = Session(transport: recorder, monitors: [LoggingMonitor(write: log.append)])

        let response = try await session.request(server.url("/delay/0.2"), method: .post, body: DataBody(Data(repeating: 7, count: 64 * 1024)))
        #expect(response.statusCode == 200)
        let trip = try #require(response.timings.trips.first)
        let sent = try #require(trip.requestSent), first = try #require(trip.responseStart), end = try #require(trip.responseEnd)
        #expect(trip.start <= sent && sent <= first && first <= end)
        #expect(try #require(trip.waiting) >= .milliseconds(190))

        let entry = try #require(recorder.har.log.entries.first)
        #expect(entry.timings.wait >= 190)
        #expect(entry.timings.send >= 0 && entry.timings.receive >= 0)
        let sum = entry.timings.send + entry.timings.wait + entry.timings.receive
        #expect(abs(sum - entry.time) < 0.01)

        #expect(log.lines.contains { $0.hasPrefix("< 200 POST") && $0.contains(" [server ") })
    }
}

/// The lines a `LoggingMonitor` wrote.
final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var written: [String] = []

    @Sendable func append(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        written.append(line)
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return written
    }
}
