import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TransportContract
@testable import Requests

/// What `/drip-stats/<key>` answers.
struct DripStats: Decodable, Sendable {
    let sent: Int
    let finished: Bool
    let aborted: Bool
    let started: Bool
}

/// Fetches a JSON answer from the loopback server with plain `URLSession`.
func fetchJSON<T: Decodable>(_ type: T.Type, _ path: String) async throws -> T {
    let (data, _) = try await URLSession.shared.data(from: try server().url(path))
    return try JSONDecoder().decode(T.self, from: data)
}

/// Polls `/drip-stats/<key>` until `condition` holds or `seconds` pass; returns the last stats.
func waitForDrip(_ key: String, seconds: Double = 20, until condition: (DripStats) -> Bool) async throws -> DripStats {
    let end = ContinuousClock.now + .seconds(seconds)
    var stats = try await fetchJSON(DripStats.self, "/drip-stats/\(key)")
    while !condition(stats), ContinuousClock.now < end {
        try await Task.sleep(for: .milliseconds(50))
        stats = try await fetchJSON(DripStats.self, "/drip-stats/\(key)")
    }
    return stats
}

private func key(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

/// `Session.stream` against the loopback server.
@Suite struct StreamingTests {
    let session = Session(cookies: .none)

    @Test func theFirstChunkIsReadWhileTheServerIsStillSending() async throws {
        // 50 chunks 200 ms apart: 10 s of sending, far more than a busy machine's delays; a try
        // during which this process got no CPU for a second or more is run again.
        try await retryingWhenLate { _ in
            let key = key("early")
            let stream = try await session.stream(try server().url("/drip/\(key)?bytes=51200&chunk=1024&interval_ms=200")).validate()
            var chunks = stream.body.makeAsyncIterator()
            let first = try #require(try await chunks.next())
            #expect(!first.isEmpty && LoopbackServer.isPattern(first))
            let stats = try await fetchJSON(DripStats.self, "/drip-stats/\(key)")
            guard stats.started, !stats.finished, stats.sent < 51200 else {
                throw ContractViolation("the server had finished before the first chunk was read: \(stats)")
            }
            let second = try #require(try await chunks.next())
            #expect(LoopbackServer.isPattern(second, from: first.count))
        }
    }

    @Test func jsonLinesArriveAsLines() async throws {
        let stream = try await session.stream(try server().url("/stream/20"))
        #expect(stream.statusCode == 200)
        #expect(stream.mimeType == "application/x-ndjson")
        struct Line: Decodable { let id: Int }
        var ids: [Int] = []
        for try await line in stream.body.lines {
            ids.append(try JSONDecoder().decode(Line.self, from: Data(line.utf8)).id)
        }
        #expect(ids == Array(0..<20))
    }

    @Test func serverSentEventsAreParsedExactly() async throws {
        let stream = try await session.stream(try server().url("/sse")).validate(contentTypes: ["text/event-stream"])
        var events: [ServerSentEvent] = []
        for try await event in stream.body.events { events.append(event) }
        let retry = Duration.milliseconds(2500)
        #expect(events == [
            ServerSentEvent(type: "greeting", data: "hello\nworld", id: "1", retry: retry),
            ServerSentEvent(type: "message", data: "no event name", id: "2", retry: retry),
            ServerSentEvent(type: "message", data: " leading space kept after the first\n", id: "2", retry: retry),
            ServerSentEvent(type: "message", data: "cr only", id: "3", retry: retry),
            ServerSentEvent(type: "message", data: "last", id: "3", retry: retry),
        ])
    }

    @Test func breakingOutOfTheLoopStopsTheServersSend() async throws {
        let key = key("break")
        let total = 50_000_000
        let stream = try await session.stream(try server().url("/drip/\(key)?bytes=\(total)&chunk=4096&interval_ms=10"))
        for try await chunk in stream.body {
            #expect(!chunk.isEmpty)
            break
        }
        let stats = try await waitForDrip(key) { $0.aborted }
        #expect(stats.aborted, "the server kept sending: \(stats)")
        #expect(stats.sent < total)
    }

    @Test func cancellingTheReadingTaskCancelsTheTransferAtOnce() async throws {
        let key = key("cancel")
        let stream = try await session.stream(try server().url("/drip/\(key)?bytes=50000000&chunk=1024&interval_ms=500"))
        let reader = Task {
            var count = 0
            for try await chunk in stream.body { count += chunk.count }
            return count
        }
        _ = try await waitForDrip(key) { $0.sent > 0 }
        let start = ContinuousClock.now
        let lateness = schedulerLateness()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(ContinuousClock.now - start < allowingLateness(.milliseconds(300), await lateness.value))
        let stats = try await waitForDrip(key) { $0.aborted }
        #expect(stats.aborted, "the server kept sending: \(stats)")
    }

    @Test func aSlowReaderGetsEveryByteInOrderPastTheMemoryLimit() async throws {
        let key = key("slow")
        let total = 16 << 20
        // 64 KiB in memory: the reader's pause makes the rest wait beyond the limit (on disk on
        // Linux; on Apple platforms the transfer is paused instead).
        let small = Session(transport: URLSessionTransport(streamBufferLimit: 64 << 10))
        let stream = try await small.stream(try server().url("/drip/\(key)?bytes=\(total)&chunk=65536&interval_ms=0"))
        var chunks = stream.body.makeAsyncIterator()
        let first = try #require(try await chunks.next())
        try await Task.sleep(for: .milliseconds(500))
        #if !canImport(FoundationNetworking)
        let held = try await fetchJSON(DripStats.self, "/drip-stats/\(key)")
        #expect(held.sent < 12 << 20, "the server sent \(held.sent) bytes to a reader that took one chunk")
        #endif
        var count = first.count
        var intact = LoopbackServer.isPattern(first)
        while let chunk = try await chunks.next() {
            intact = intact && LoopbackServer.isPattern(chunk, from: count)
            count += chunk.count
        }
        #expect(count == total)
        #expect(intact)
    }

    @Test func aSlowReaderAfterTheEndStillGetsTheWholeBody() async throws {
        let small = Session(transport: URLSessionTransport(streamBufferLimit: 4096))
        let stream = try await small.stream(try server().url("/range/3000000"))
        try await Task.sleep(for: .milliseconds(300))  // the whole body arrives meanwhile
        let data = try await stream.body.collect()
        #expect(data.count == 3_000_000 && LoopbackServer.isPattern(data))
    }

    @Test func droppingAnUnreadStreamCancelsTheTransfer() async throws {
        let key = key("dropped")
        do {
            let stream = try await session.stream(try server().url("/drip/\(key)?bytes=50000000&chunk=4096&interval_ms=10"))
            #expect(stream.statusCode == 200)
        }
        let stats = try await waitForDrip(key) { $0.aborted }
        #expect(stats.aborted, "the server kept sending to a dropped stream: \(stats)")
    }

    @Test func aSecondReaderOfOneBodyIsAnError() async throws {
        let key = key("two")
        let stream = try await session.stream(try server().url("/drip/\(key)?bytes=4096&chunk=1024&interval_ms=300"))
        var first = stream.body.makeAsyncIterator()
        _ = try await first.next()
        let second = Task { () -> Data? in
            var iterator = stream.body.makeAsyncIterator()
            return try await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(50))
        async let next = first.next()
        let secondResult = await second.result
        _ = try? await next
        if case .failure(let error) = secondResult {
            #expect((error as? RequestError)?.code == .streamFailed || error is CancellationError)
        }
    }

    @Test func validateLooksAtTheHeadAndKeepsTheErrorDocument() async throws {
        let stream = try await session.stream(try server().url("/status/404"))
        let error = await #expect(throws: RequestError.self) { try await stream.validate() }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.statusCode == 404)
        #expect(error?.bodyPreview == "status 404")
    }

    @Test func collectGivesAWholeResponseAndRefusesTooMuch() async throws {
        let response = try await session.stream(try server().url("/stream/3")).collect()
        #expect(response.text.split(separator: "\n").count == 3)
        let error = await #expect(throws: RequestError.self) {
            try await session.stream(try server().url("/blob/100000")).collect(upTo: 1000)
        }
        #expect(error?.code == .bodyTooLarge)
    }

    @Test func aBasicChallengeIsReturnedAsA401InsteadOfAHang() async throws {
        // A hang meets the timeout on every try; a runtime stalled past it voids a try.
        let stream = try await retryingWhenLate { _ in
            try await session.stream(try server().url("/basic-auth/user/pass"), timeout: .seconds(10))
        }
        #expect(stream.statusCode == 401)
        #expect(stream.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        _ = try await stream.body.collect()
    }

    @Test func aTransportWithoutStreamingDeliversTheWholeBody() async throws {
        let mock = MockTransport(status: 200, body: Data("a\nb\n".utf8))
        let stream = try await Session(transport: mock).stream("http://127.0.0.1/x")
        var lines: [String] = []
        for try await line in stream.body.lines { lines.append(line) }
        #expect(lines == ["a", "b"])
    }

    @Test func aRetriedStreamHandsOverTheLastBody() async throws {
        let key = key("retry")
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10))
        let stream = try await session.stream(try server().url("/flaky/\(key)/1"), interceptors: [policy])
        #expect(stream.statusCode == 200)
        #expect(stream.response.failedAttempts.count == 1)
        let body = try await stream.body.collect()
        #expect(String(decoding: body, as: UTF8.self).contains("\"method\": \"GET\""))
    }
}
