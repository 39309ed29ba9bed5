import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A body that sends `chunk` every `interval`, never ending; its first cancel is counted in `cancels`.
private final class TickingSource: ResponseBodySource {
    let chunk: Data
    let interval: Duration
    let cancels: Guarded<Int>
    private let cancelled = Guarded(false)

    init(chunk: Data, interval: Duration, cancels: Guarded<Int>) {
        self.chunk = chunk
        self.interval = interval
        self.cancels = cancels
    }

    private var isCancelled: Bool { cancelled.withLock { $0 } }

    func next() async throws -> Data? {
        // Short naps, so that a cancel ends the wait within 10 ms, as an engine's would.
        let until = ContinuousClock.now + interval
        repeat {
            if isCancelled { throw CancellationError() }
            try await Task.sleep(for: min(.milliseconds(10), until - .now))
        } while ContinuousClock.now < until
        if isCancelled { throw CancellationError() }
        return chunk
    }

    func cancel() {
        let first = cancelled.withLock { cancelled -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        if first { cancels.withLock { $0 += 1 } }
    }
}

/// A transport whose head comes at once and whose body sends `chunk` every `interval`, never
/// ending: each chunk is a sign of life, so only a deadline (or a cancel) ends it. It counts the
/// requests it was sent and the bodies cancelled.
private final class TricklingBody: Transport {
    let chunk: Data
    let interval: Duration
    let contentType: String
    let sent = Guarded(0)
    /// How many times a body was cancelled.
    let ended = Guarded(0)

    init(chunk: String = "tick\n", every interval: Duration = .milliseconds(30), contentType: String = "text/plain") {
        self.chunk = Data(chunk.utf8)
        self.interval = interval
        self.contentType = contentType
    }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        sent.withLock { $0 += 1 }
        let head = ResponseHead(statusCode: 200, headers: ["Content-Type": contentType], url: request.url)
        return (head, ResponseBody(source: TickingSource(chunk: chunk, interval: interval, cancels: ended)))
    }
}

/// `timeout:` reads the same on every call: the whole call, until its response is complete (for
/// a stream, the body's end); each silence of the server meets the session's idle limit. An
/// event stream, which has no end, takes its `timeout:` as each connection's idle limit.
@Suite struct CallTimeoutTests {
    @Test func aStreamsTimeoutRunsToTheBodysEndThoughTheBodyKeepsSending() async throws {
        let transport = TricklingBody()
        let session = Session(transport: transport, idleTimeout: .seconds(30))
        // On a loaded machine the deadline can pass before the first chunk is read; then the
        // deadline is lengthened, so the wait is bounded by the lateness measured.
        var timeout = Duration.milliseconds(400)
        for _ in 0..<5 {
            let lateness = schedulerLateness()
            let start = ContinuousClock.now
            var chunks = 0
            let error = await #expect(throws: RequestError.self) {
                let stream = try await session.stream("https://example.com/feed", timeout: timeout)
                for try await _ in stream.body { chunks += 1 }
            }
            let elapsed = ContinuousClock.now - start
            #expect(error?.code == .timedOut)
            #expect(error?.description.contains("no complete response within \(timeout.phrase)") == true)
            #expect(elapsed >= timeout)
            #expect(elapsed < allowingLateness(timeout + .seconds(1), await lateness.stop()))
            if chunks > 1 { return }
            timeout *= 3
        }
        Issue.record("no chunk was read before the deadline, even at \(timeout / 3)")
    }

    @Test func aStreamsSilenceMeetsTheIdleLimit() async throws {
        let transport = TricklingBody(every: .seconds(30))
        let session = Session(transport: transport, idleTimeout: .milliseconds(300))
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let stream = try await session.stream("https://example.com/feed")
        let error = await #expect(throws: RequestError.self) {
            for try await _ in stream.body {}
        }
        #expect(error?.code == .timedOut)
        #expect(error?.description.contains("the body sent nothing for 0.3 seconds") == true)
        #expect(ContinuousClock.now - start < allowingLateness(.milliseconds(300) + .seconds(1), await lateness.stop()))
    }

    /// The reader's own pace counts towards the deadline: the transfer of a body held past it is
    /// stopped though nobody reads, and a read after it fails.
    @Test func aStreamHeldPastItsDeadlineIsStoppedAndFails() async throws {
        let transport = TricklingBody()
        let session = Session(transport: transport, idleTimeout: nil)
        let stream = try await session.stream("https://example.com/feed", timeout: .milliseconds(100))
        let until = ContinuousClock.now + .seconds(20)
        while transport.ended.withLock({ $0 }) == 0, ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(transport.ended.withLock { $0 } >= 1)
        let error = await #expect(throws: RequestError.self) {
            for try await _ in stream.body {}
        }
        #expect(error?.code == .timedOut)
    }

    /// Only the body the call returned ends the call's clock: read to its end, or dropped unread.
    @Test func theReturnedBodyEndsTheCallsClock() async throws {
        let session = Session(transport: TricklingBody(), idleTimeout: .seconds(30))
        weak var clock: CallClock?
        do {
            let stream = try await session.stream("https://example.com/feed", timeout: .seconds(30))
            clock = stream.body.clock
            #expect(clock != nil)
            #expect(clock?.verdict == nil)
        }
        // Dropped unread: the clock's alarm is cancelled, and nothing keeps the clock.
        let until = ContinuousClock.now + .seconds(20)
        while clock != nil, ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(clock == nil)
    }

    /// A call waiting for a throttle's slot is a call like any other: its deadline ends it.
    @Test func theDeadlineEndsAWaitForAThrottlesSlot() async throws {
        let holding = Guarded(false)
        let transport = MockTransport { _ in
            holding.withLock { $0 = true }
            try await Task.sleep(for: .seconds(30))
            throw URLError(.unknown)
        }
        let session = Session(transport: transport, interceptors: [Throttle(maxConcurrent: 1)])
        let first = Task { try await session.request("https://example.com/first") }
        defer { first.cancel() }
        while !holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com/second", timeout: .milliseconds(200))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.description.contains("no complete response within 0.2 seconds") == true)
        #expect(ContinuousClock.now - start < allowingLateness(.milliseconds(200) + .seconds(1), await lateness.stop()))
    }

    /// An event stream has no end: the session's timeout is no deadline for it, and its own
    /// `timeout:` bounds each silence.
    @Test func anEventStreamOutlivesTheSessionsTimeout() async throws {
        let transport = TricklingBody(chunk: "data: tick\n\n", every: .milliseconds(40), contentType: "text/event-stream")
        let session = Session(transport: transport, timeout: .milliseconds(150))
        let start = ContinuousClock.now
        var events = 0
        // Five events 40 ms apart take at least 160 ms, past the session's timeout.
        // Each connection's idle limit is far off: the clock rings on a queue of its own, so a
        // pool starved by the suite's CPU-bound tests could otherwise see the trickle fall silent.
        for try await _ in session.events("https://example.com/events", timeout: .seconds(120)) {
            events += 1
            if events == 5 { break }
        }
        #expect(events == 5)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        #expect(transport.sent.withLock { $0 } == 1)
    }
}
