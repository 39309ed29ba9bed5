import Foundation
@testable import Requests
import RequestsTesting
import Testing

/// The memory store: its byte limit, least recently used first, variants, and 304 updates.
@Suite struct MemoryCacheStorageTests {
    private func entry(_ key: String, vary: [String: String?] = [:], etag: String = "\"a\"") -> CacheEntry {
        CacheEntry(key: key, statusCode: 200, headers: ["ETag": etag], varyValues: vary,
                   requestTime: Date(timeIntervalSince1970: 1_800_000_000), responseTime: Date(timeIntervalSince1970: 1_800_000_001))
    }

    private func store(_ storage: MemoryCacheStorage, _ entry: CacheEntry, _ body: Data) async -> Bool {
        guard let writer = await storage.makeWriter(for: entry) else { return false }
        guard await writer.write(body) else { return false }
        return await writer.commit()
    }

    @Test func theLeastRecentlyUsedEntryGoesFirst() async throws {
        let storage = MemoryCacheStorage(byteLimit: 16_000)
        let body = Data(repeating: 1, count: 3_000)
        for key in ["a", "b", "c", "d"] {
            #expect(await store(storage, entry(key), body))
        }
        // "a" is used now; "b" is then the oldest.
        let a = try #require(await storage.entries(for: "a").first)
        #expect(await storage.data(of: a) == body)
        #expect(await store(storage, entry("e"), body))
        #expect(await storage.entries(for: "b").isEmpty)
        #expect(await storage.entries(for: "a").count == 1)
        #expect(await storage.entries(for: "e").count == 1)
        #expect(storage.byteCount <= 16_000)
    }

    @Test func aBodyOverAQuarterOfTheLimitIsNotStored() async {
        let storage = MemoryCacheStorage(byteLimit: 8_000)
        #expect(await !store(storage, entry("big"), Data(count: 2_001)))
        #expect(await storage.entries(for: "big").isEmpty)
        #expect(storage.byteCount == 0)
    }

    @Test func aNewResponseReplacesItsVariantOnlyAndOnlyWhenCommitted() async throws {
        let storage = MemoryCacheStorage()
        #expect(await store(storage, entry("k", vary: ["accept-language": "en"]), Data("en".utf8)))
        #expect(await store(storage, entry("k", vary: ["accept-language": "fr"]), Data("fr".utf8)))
        let writer = try #require(await storage.makeWriter(for: entry("k", vary: ["accept-language": "en"], etag: "\"b\"")))
        #expect(await writer.write(Data("en2".utf8)))
        // Not committed yet: the old English variant still answers.
        #expect(await storage.entries(for: "k").count == 2)
        #expect(await storage.entries(for: "k").contains { $0.headers["ETag"] == "\"a\"" && $0.varyValues["accept-language"] == "en" })
        #expect(await writer.commit())
        let entries = await storage.entries(for: "k")
        #expect(entries.count == 2)
        #expect(entries.first?.headers["ETag"] == "\"b\"")
        #expect(await storage.data(of: entries[0]) == Data("en2".utf8))
    }

    @Test func anUpdateKeepsTheBodyAndAnAbortStoresNothing() async throws {
        let storage = MemoryCacheStorage()
        #expect(await store(storage, entry("k"), Data("body".utf8)))
        var stored = try #require(await storage.entries(for: "k").first)
        stored.headers = ["ETag": "\"a\"", "X-Merged": "1"]
        await storage.update(stored)
        let updated = try #require(await storage.entries(for: "k").first)
        #expect(updated.headers["X-Merged"] == "1")
        #expect(await storage.data(of: updated) == Data("body".utf8))
        let writer = try #require(await storage.makeWriter(for: entry("other")))
        _ = await writer.write(Data("x".utf8))
        await writer.abort()
        #expect(await !writer.commit())
        #expect(await storage.entries(for: "other").isEmpty)
        await storage.removeAll()
        #expect(storage.byteCount == 0)
    }
}

/// Forgetting stored responses on the caller's word.
@Suite struct HTTPCacheRemovalTests {
    @Test func removedResponsesGoToTheNetworkAgain() async throws {
        let stub = StubTransport()
        stub.on(.get, "/a", respond: .text("a", headers: ["Cache-Control": "max-age=600"]))
        stub.on(.get, "/b", respond: .text("b", headers: ["Cache-Control": "max-age=600"]))
        let cache = HTTPCache()
        let session = Session(transport: stub, cache: cache)
        let a = try #require(URL(string: "http://127.0.0.1:9/a"))
        let b = try #require(URL(string: "http://127.0.0.1:9/b"))
        _ = try await session.request(a)
        _ = try await session.request(b)
        // The fragment is not part of the key: /a#top names /a's responses.
        await cache.removeResponses(for: try #require(URL(string: "http://127.0.0.1:9/a#top")))
        #expect(try await session.request(a).cacheStatus == .miss)
        #expect(try await session.request(b).cacheStatus == .hit)
        await cache.removeAll()
        #expect(try await session.request(a).cacheStatus == .miss)
        #expect(try await session.request(b).cacheStatus == .miss)
    }
}

/// The wait of concurrent misses on the request that fills the entry.
@Suite struct FlightTests {
    @Test func waitersWakeWhenTheLeaderLands() async {
        let cache = HTTPCache()
        #expect(cache.join("k") == nil)
        let flight = cache.join("k")
        #expect(flight != nil)
        let woke = Guarded(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try? await flight?.wait()
                    woke.withLock { $0 += 1 }
                }
            }
            try? await Task.sleep(for: .milliseconds(20))
            cache.land("k")
        }
        #expect(woke.withLock { $0 } == 20)
        // Landed: the next request leads again.
        #expect(cache.join("k") == nil)
    }

    /// The call's idle limit ends the wait without failing it (the call goes to the network).
    @Test func aWaitEndsAtTheCallsIdleLimit() async throws {
        let cache = HTTPCache()
        _ = cache.join("k")
        let flight = cache.join("k")
        let start = ContinuousClock.now
        let clock = CallClock(timeout: nil, idleLimit: .milliseconds(50))
        try await flight?.wait(on: clock)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(clock.verdict == nil)
        clock.end()
        cache.land("k")
    }

    /// The call's deadline ends the wait and fails it.
    @Test func aWaitPastTheDeadlineFails() async throws {
        let cache = HTTPCache()
        _ = cache.join("k")
        let flight = cache.join("k")
        let clock = CallClock(timeout: .milliseconds(50), idleLimit: nil)
        await #expect(throws: TimeoutExceeded(limit: .deadline, duration: .milliseconds(50))) {
            try await flight?.wait(on: clock)
        }
        clock.end()
        cache.land("k")
    }

    @Test func aCancelledWaiterStopsWaiting() async {
        let cache = HTTPCache()
        _ = cache.join("k")
        let flight = cache.join("k")
        let waiter = Task { try? await flight?.wait() }
        waiter.cancel()
        await waiter.value
        cache.land("k")
    }
}
