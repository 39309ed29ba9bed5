import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A transport whose head comes at once and whose body sends `chunk` every `interval`, never
/// ending: each chunk is a sign of life, so only a deadline (or a cancel) ends it. It counts the
/// requests it was sent.
private final class TricklingBody: Transport {
    let chunk: Data
    let interval: Duration
    let contentType: String
    let sent = Guarded(0)

    init(chunk: String = "tick\n", every interval: Duration = .milliseconds(30), contentType: String = "text/plain") {
        self.chunk = Data(chunk.utf8)
        self.interval = interval
        self.contentType = contentType
    }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        sent.withLock { $0 += 1 }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let (chunk, interval) = (self.chunk, self.interval)
        let producer = Task {
            while !Task.isCancelled {
                continuation.yield(chunk)
                try? await Task.sleep(for: interval)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
        let head = ResponseHead(statusCode: 200, headers: ["Content-Type": contentType], url: request.url)
        return (head, ResponseBody(stream))
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

    /// The reader's own pace counts towards the deadline: a body read after it passed fails.
    @Test func aStreamReadAfterItsDeadlineFails() async throws {
        let session = Session(transport: TricklingBody(), idleTimeout: nil)
        let stream = try await session.stream("https://example.com/feed", timeout: .milliseconds(100))
        try await Task.sleep(for: .milliseconds(300))
        let error = await #expect(throws: RequestError.self) {
            for try await _ in stream.body {}
        }
        #expect(error?.code == .timedOut)
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
        for try await _ in session.events("https://example.com/events", timeout: .seconds(5)) {
            events += 1
            if events == 5 { break }
        }
        #expect(events == 5)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        #expect(transport.sent.withLock { $0 } == 1)
    }
}
