import Foundation
import Requests
import RequestsTesting
import Testing

/// HAR's `cache` object: what the session's cache did, recorded beside what went to the network.
@Suite struct HARCacheTests {
    @Test func recordsValidationsWithTheStoredStateAndAnswersFromTheCache() async throws {
        let stub = StubTransport()
        stub.on(.get, "/item", respond:
            .text("one", headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""]),
            .status(304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=600"]))
        let recorder = RecordingTransport(wrapping: stub)
        let session = Session(transport: recorder, monitors: [recorder], cache: HTTPCache())
        let url = URL(string: "http://127.0.0.1:9/item")!
        #expect(try await session.request(url).cacheStatus == .miss)
        #expect(try await session.request(url).cacheStatus == .revalidated)
        #expect(try await session.request(url).cacheStatus == .hit)

        let entries = recorder.har.log.entries
        #expect(entries.map(\.response.status) == [200, 304, 200, 200])
        #expect(entries.map(\.fromCache) == [nil, nil, "revalidated", "hit"])
        // The first request found nothing stored; the validation names the stored response.
        #expect(entries[0].cache.beforeRequest == nil)
        #expect(entries[1].cache.beforeRequest?.eTag == "\"v1\"")
        #expect(entries[1].request.headers.contains { $0.name == "If-None-Match" && $0.value == "\"v1\"" })
        #expect(entries[3].response.content.text == "one")

        let json = String(decoding: try recorder.har.jsonData(), as: UTF8.self)
        #expect(json.contains("\"_fromCache\" : \"hit\"") || json.contains("\"_fromCache\":\"hit\""))
        #expect(json.contains("\"beforeRequest\""))

        // Replayed, only what went to the network answers.
        let decoded = try JSONDecoder().decode(HAR.self, from: recorder.har.jsonData())
        #expect(decoded == recorder.har)
        let replay = ReplayTransport(decoded)
        #expect(replay.unusedEntries.count == 2)
    }
}
