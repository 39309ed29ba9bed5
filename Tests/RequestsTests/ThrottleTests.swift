import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackFixture
@testable import Requests

/// A transport that holds every request until the test lets it go, and records the order they came.
private final class GatedTransport: Transport {
    let arrived = Guarded<[String]>([])
    private let held = Guarded<[CheckedContinuation<Void, Never>]>([])

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        await withCheckedContinuation { continuation in
            held.withLock { $0.append(continuation) }
            arrived.withLock { $0.append(request.url.path) }
        }
        return try await MockTransport(status: 200).send(request)
    }

    /// Lets the oldest held request go.
    func releaseOne() {
        let first = held.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        first?.resume()
    }

    var paths: [String] { arrived.withLock { $0 } }
}

/// Polls until a condition holds, for at most two seconds.
private func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<400 where !condition() {
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// `Throttle`: limits on the server's own count, FIFO order, cancellation while waiting, slots returned.
@Suite struct ThrottleTests {
    @Test func theServerNeverSeesMoreThanTheLimitInFlight() async throws {
        let key = "limit-\(UUID().uuidString.prefix(8))"
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        let throttle = Throttle(maxConcurrent: 3)
        let session = Session(configuration: configuration, interceptors: [throttle])
        let url = try server().url("/slow-count/\(key)/300")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask { _ = try await session.request(url).validate() }
            }
            try await group.waitForAll()
        }
        let stats = try await slowCountStats(key)
        #expect(stats.total == 24)
        #expect(stats.max == 3, "at most 3 in flight, and the queue keeps 3 busy")
        #expect(throttle.inFlight == 0 && throttle.waiting == 0)
    }

    @Test func thePerHostLimitHoldsForEachHostWhileOthersProceed() async throws {
        let key = "host-\(UUID().uuidString.prefix(8))"
        let other = try LoopbackServer()
        defer { other.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        let throttle = Throttle(maxConcurrent: 10, perOrigin: 2)
        let session = Session(configuration: configuration, interceptors: [throttle])
        let urls = [try server().url("/slow-count/\(key)/300"), other.url("/slow-count/\(key)/300")]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask { _ = try await session.request(urls[index % 2]).validate() }
            }
            try await group.waitForAll()
        }
        #expect(try await slowCountStats(key).max == 2)
        #expect(try await slowCountStats(key, on: other).max == 2)
    }

    @Test func waitersGoInTheOrderTheyCame() async throws {
        let transport = GatedTransport()
        let throttle = Throttle(maxConcurrent: 1)
        let session = Session(transport: transport, interceptors: [throttle])
        var tasks: [Task<Response, any Error>] = []
        for name in ["a", "b", "c", "d"] {
            tasks.append(Task { try await session.request("https://example.com/\(name)") })
            let expectedWaiting = tasks.count - 1
            try await eventually { throttle.waiting == expectedWaiting && transport.paths.count == 1 }
        }
        for expected in 1...4 {
            try await eventually { transport.paths.count == expected }
            transport.releaseOne()
        }
        for task in tasks { _ = try await task.value }
        #expect(transport.paths == ["/a", "/b", "/c", "/d"])
    }

    @Test func aRequestCancelledWhileWaitingLeavesAtOnceAndNeverTakesASlot() async throws {
        let transport = GatedTransport()
        let throttle = Throttle(maxConcurrent: 1)
        let session = Session(transport: transport, interceptors: [throttle])
        let first = Task { try await session.request("https://example.com/first") }
        try await eventually { transport.paths.count == 1 }
        let waiting = Task { try await session.request("https://example.com/cancelled") }
        let third = Task { () throws -> Response in
            try await eventually { throttle.waiting == 1 }
            return try await session.request("https://example.com/third")
        }
        try await eventually { throttle.waiting == 2 }
        let clock = ContinuousClock()
        let start = clock.now
        let lateness = schedulerLateness()
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // A busy machine delays the wake-up itself; the bound allows for that lateness.
        #expect(clock.now - start < allowingLateness(.milliseconds(500), await lateness.value))
        #expect(throttle.waiting == 1 && throttle.inFlight == 1)
        transport.releaseOne()
        try await eventually { transport.paths.count == 2 }
        transport.releaseOne()
        _ = try await first.value
        _ = try await third.value
        #expect(transport.paths == ["/first", "/third"])
        #expect(throttle.inFlight == 0)
    }

    @Test func slotsAreReturnedWhateverIsThrown() async throws {
        struct Refused: Error {}
        let throttle = Throttle(maxConcurrent: 2)
        let failing = Session(transport: MockTransport { _ in throw URLError(.networkConnectionLost) }, interceptors: [throttle])
        let refusing = Session(transport: MockTransport(), interceptors: [throttle, InterceptorProbe { _, _ in throw Refused() }])
        for _ in 0..<10 {
            _ = try? await failing.request("https://example.com/a")
            _ = try? await refusing.request("https://example.com/b")
            _ = try? await failing.request("https://example.com/c", timeout: .milliseconds(1))
        }
        // A call abandoned at its deadline gives its slot back when its cancelled task unwinds,
        // which a loaded machine may run a little after the caller has moved on.
        for _ in 0..<1000 where throttle.inFlight != 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(throttle.inFlight == 0)
        let ok = Session(transport: MockTransport(status: 204), interceptors: [throttle])
        #expect(try await ok.request("https://example.com/d").statusCode == 204)
    }

    @Test func aCallCancelledWhileHoldingASlotGivesItBack() async throws {
        let throttle = Throttle(maxConcurrent: 1)
        let hanging = Guarded(false)
        let session = Session(transport: MockTransport.hanging(noting: hanging), interceptors: [throttle])
        let task = Task { try await session.request("https://example.com/a") }
        try await eventually { throttle.inFlight == 1 }
        task.cancel()
        _ = try? await task.value
        try await eventually { throttle.inFlight == 0 }
        #expect(throttle.inFlight == 0)
    }
}

/// What `/slow-count-stats/<key>` answers.
private struct SlowCountStats: Decodable {
    let max: Int
    let total: Int
    let inFlight: Int
}

private func slowCountStats(_ key: String, on server: LoopbackServer? = nil) async throws -> SlowCountStats {
    let base = try server ?? LoopbackFixture.LoopbackServer.shared.get()
    let (data, _) = try await URLSession.shared.data(from: base.url("/slow-count-stats/\(key)"))
    return try JSONDecoder().decode(SlowCountStats.self, from: data)
}
