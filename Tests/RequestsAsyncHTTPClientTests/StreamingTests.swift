#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Session.stream` over `AsyncHTTPClientTransport`: lines and events as they arrive, and a slow
/// reader that holds the server back instead of filling memory.
@Suite struct StreamingTests {
    @Test func jsonLinesArriveAsLines() async throws {
        try await withTransport { transport in
            let stream = try await Session(transport: transport, cookies: .none).stream(try server().url("/stream/20?delay_ms=5"))
            #expect(stream.statusCode == 200)
            #expect(stream.mimeType == "application/x-ndjson")
            struct Line: Decodable { let id: Int }
            var ids: [Int] = []
            for try await line in stream.body.lines {
                ids.append(try JSONDecoder().decode(Line.self, from: Data(line.utf8)).id)
            }
            #expect(ids == Array(0..<20))
        }
    }

    @Test func serverSentEventsAreParsedAsTheyArrive() async throws {
        try await withTransport { transport in
            let stream = try await Session(transport: transport, cookies: .none).stream(try server().url("/sse"))
                .validate(contentTypes: ["text/event-stream"])
            var events: [ServerSentEvent] = []
            for try await event in stream.body.events { events.append(event) }
            #expect(events.map(\.data) == ["hello\nworld", "no event name", " leading space kept after the first\n", "cr only", "last"])
            #expect(events.first?.type == "greeting")
        }
    }

    /// 128 MiB sent as fast as the server can: while the reader waits, the server is held back
    /// (the transport pulls a chunk or two ahead, TCP does the rest), and all through the slow read
    /// the server is never more than a fraction of the body ahead of the reader: what the client
    /// holds, whatever else runs in the test process. (The process's resident memory, printed,
    /// is no measure of this transfer when the whole suite runs beside it, as it does with
    /// `swift test --traits AsyncHTTPClient`.)
    @Test func aSlowReaderOfALargeBodyKeepsMemoryFlat() async throws {
        let key = uniqueKey("slow")
        let total = 128 << 20
        try await withTransport { transport in
            let session = Session(transport: transport, cookies: .none)
            let stream = try await session.stream(try server().url("/drip/\(key)?bytes=\(total)&chunk=65536&interval_ms=0"))
            var chunks = stream.body.makeAsyncIterator()
            let first = try #require(try await chunks.next())
            let before = residentMemory()
            try await Task.sleep(for: .seconds(1))
            let held = try await dripStats(transport, key)
            let paused = residentMemory()
            print("slow reader: the server had sent \(megabytes(held.sent)) of \(megabytes(total)) after a 1 s pause; resident memory \(before.map(megabytes) ?? "?") -> \(paused.map(megabytes) ?? "?")")
            #expect(held.sent < total / 4, "the server sent \(held.sent) bytes to a reader that took one chunk")

            var count = first.count
            var inOrder = first.first == 0
            var peak = paused ?? 0
            var ahead = held.sent - first.count
            var reads = 0
            while let chunk = try await chunks.next() {
                // The pattern is byte i = i % 256: each chunk's ends say where it sits.
                inOrder = inOrder && chunk.first == UInt8(truncatingIfNeeded: count)
                    && chunk.last == UInt8(truncatingIfNeeded: count + chunk.count - 1)
                count += chunk.count
                reads += 1
                if reads % 64 == 0 {
                    peak = max(peak, residentMemory() ?? 0)
                    ahead = max(ahead, try await dripStats(transport, key).sent - count)
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            print("slow reader: \(megabytes(count)) in \(reads + 1) chunks; the server at most \(megabytes(ahead)) ahead of the reader; "
                + "resident memory peaked at \(megabytes(peak))")
            #expect(count == total)
            #expect(inOrder)
            #expect(ahead < total / 4, "the server ran \(megabytes(ahead)) ahead of a slow reader of \(megabytes(total))")
        }
    }

    private func dripStats(_ transport: AsyncHTTPClientTransport, _ key: String) async throws -> DripStats {
        let (_, data) = try await exchange(transport, OutgoingRequest(url: try server().url("/drip-stats/\(key)")))
        return try JSONDecoder().decode(DripStats.self, from: data)
    }
}

/// What `/drip-stats/<key>` answers.
struct DripStats: Decodable, Sendable {
    let sent: Int
    let finished: Bool
    let aborted: Bool
}
#endif
