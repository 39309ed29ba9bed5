import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A transport that answers each trip after the wait its script gives for the trip's number (a
/// status, 200 by default), and records which trips were cancelled while they waited.
private final class ScriptedTrips: Sendable {
    let cancelled = Guarded<[Int]>([])
    let transport: ClosureTransport

    init(_ script: @escaping @Sendable (_ trip: Int) -> (wait: Duration, status: Int)) {
        let cancelled = self.cancelled
        transport = ClosureTransport { request, trip in
            let (wait, status) = script(trip)
            do {
                try await request.handle.sleep(for: wait)
            } catch {
                cancelled.withLock { $0.append(trip) }
                throw error
            }
            return (ResponseHead(statusCode: status, url: request.url), ResponseBody(Data("trip \(trip)".utf8)))
        }
    }

    var trips: Int { transport.trips }
    var cancelledTrips: [Int] { cancelled.withLock { $0.sorted() } }
}

/// `Hedging` over a scripted transport: when a second trip goes, which answer wins, which calls
/// are never hedged, the caps, cancellation and the call's deadline.
@Suite struct HedgingTests {
    private let url = "https://api.example.com/items"

    @Test func aStalledTripIsHedgedAfterTheDelayTheHedgeWinsAndTheStalledTripIsCancelled() async throws {
        let server = ScriptedTrips { $0 == 1 ? (.seconds(30), 200) : (.zero, 200) }
        let monitor = RecordingMonitor()
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(50)))], monitors: [monitor])
        let start = ContinuousClock.now
        let response = try await session.request(url)
        #expect(response.winningAttempt == 2)
        #expect(String(decoding: response.data, as: UTF8.self) == "trip 2")
        #expect(ContinuousClock.now - start < .seconds(30), "the stalled trip was not waited for")
        #expect(server.trips == 2)
        #expect(server.cancelledTrips == [1])
        #expect(monitor.events.filter { $0.hasPrefix("hedge") } == ["hedge sent 1 https://api.example.com", "hedge won 2 https://api.example.com"])
    }

    @Test func anAnswerBeforeTheDelaySendsNothingMore() async throws {
        let server = ScriptedTrips { _ in (.zero, 200) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.seconds(5)))])
        for _ in 0..<5 {
            #expect(try await session.request(url).winningAttempt == nil)
        }
        #expect(server.trips == 5)
    }

    @Test func theFirstTripWinsWhenItAnswersFirstAndTheHedgeIsCancelled() async throws {
        let server = ScriptedTrips { $0 == 1 ? (.milliseconds(300), 200) : (.seconds(30), 200) }
        let monitor = RecordingMonitor()
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(20)))], monitors: [monitor])
        let response = try await session.request(url)
        #expect(response.winningAttempt == 1)
        #expect(String(decoding: response.data, as: UTF8.self) == "trip 1")
        #expect(server.cancelledTrips == [2])
        #expect(monitor.events.filter { $0.hasPrefix("hedge") } == ["hedge sent 1 https://api.example.com"])
    }

    @Test func anUnacceptableAnswerWaitsForTheOtherTripAndTheLastOutcomeEndsACallThatNoTripAnswered() async throws {
        // The hedge's 503 comes first; the first trip's 200 is the answer.
        let server = ScriptedTrips { $0 == 1 ? (.milliseconds(300), 200) : (.zero, 503) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(20)))])
        let response = try await session.request(url)
        #expect(response.statusCode == 200)
        #expect(response.winningAttempt == 1)

        // Both answer 503: the last is the call's.
        let failing = ScriptedTrips { $0 == 1 ? (.milliseconds(300), 503) : (.zero, 503) }
        let other = Session(transport: failing.transport, interceptors: [Hedging(after: .fixed(.milliseconds(20)))])
        let last = try await other.request(url)
        #expect(last.statusCode == 503)
        #expect(String(decoding: last.data, as: UTF8.self) == "trip 1")
        #expect(failing.cancelledTrips.isEmpty)
    }

    @Test func aTripThatFailsBeforeTheDelayEndsTheCallWithoutAHedge() async throws {
        let transport = ClosureTransport { _, _ in throw TransportError(.cannotConnect, detail: "refused") }
        let session = Session(transport: transport, interceptors: [Hedging(after: .fixed(.seconds(5)))])
        let error = await #expect(throws: RequestError.self) { try await session.request(url) }
        #expect(error?.transportErrorKind == .cannotConnect)
        #expect(transport.trips == 1)
    }

    @Test func onlyCallsThatMayBeSentTwiceWithABodyThatCanBeReadAgainAreHedged() async throws {
        let server = ScriptedTrips { _ in (.milliseconds(200), 200) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(10)), maxShare: 1)])
        try await session.request(url, method: .post, body: JSONBody(["a": 1]))
        #expect(server.trips == 1, "POST")
        try await session.request(url, method: .post, body: JSONBody(["a": 1]), headers: ["Idempotency-Key": "k1"])
        #expect(server.trips == 3, "POST with an Idempotency-Key")
        var once = RequestOptions()
        once.hedges = false
        try await session.request(url, options: once)
        #expect(server.trips == 4, "options.hedges off")
        let stream = try await session.stream(url)
        for try await _ in stream.body {}
        #expect(server.trips == 5, "a stream goes once")
        try await session.request(url)
        #expect(server.trips == 7, "GET")
    }

    @Test func atMostMaxShareOfTheCallsAreHedged() async throws {
        let server = ScriptedTrips { _ in (.milliseconds(60), 200) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(5)), maxShare: 0.1)])
        for _ in 0..<20 { try await session.request(url) }
        // Hedges stay under a tenth of the calls: the 1st call and the 11th.
        #expect(server.trips == 22)
    }

    @Test func hedgesDrawOnTheRetryBudget() async throws {
        let server = ScriptedTrips { _ in (.milliseconds(60), 200) }
        let budget = RetryBudget(ratio: 0, minimumPerSecond: 0)
        let session = Session(transport: server.transport, interceptors: [budget, Hedging(after: .fixed(.milliseconds(5)), maxShare: 1)])
        for _ in 0..<5 { try await session.request(url) }
        #expect(server.trips == 5)
        #expect(budget.counts(for: OutgoingRequest(url: URL(string: url)!)) == (calls: 5, retries: 0))
    }

    @Test func upToMaxAttemptsTripsGoOneDelayApart() async throws {
        let server = ScriptedTrips { $0 < 3 ? (.seconds(30), 200) : (.zero, 200) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(20)), maxAttempts: 3, maxShare: 1)])
        let response = try await session.request(url)
        #expect(response.winningAttempt == 3)
        #expect(server.trips == 3)
        #expect(server.cancelledTrips == [1, 2])
    }

    @Test func aCancelledHedgedCallCancelsEveryTrip() async throws {
        let server = ScriptedTrips { _ in (.seconds(30), 200) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(10)))])
        let call = Task { try await session.request(url) }
        while server.trips < 2 { try await Task.sleep(for: .milliseconds(5)) }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(server.cancelledTrips == [1, 2])
    }

    @Test func everyTripEndsAtTheCallsDeadline() async throws {
        let server = ScriptedTrips { _ in (.seconds(30), 200) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(10)))])
        let error = await #expect(throws: RequestError.self) { try await session.request(url, timeout: .milliseconds(300)) }
        #expect(error?.code == .timedOut)
        #expect(server.cancelledTrips == [1, 2])
    }

    @Test func aPercentileDelayWaitsForEnoughAnswersThenFollowsThem() async throws {
        let server = ScriptedTrips { _ in (.milliseconds(1), 200) }
        let hedging = Hedging(after: .percentile(0.95, scale: 2, minimum: .milliseconds(40)))
        let session = Session(transport: server.transport, interceptors: [hedging])
        let key = OutgoingRequest(url: URL(string: url)!).originKey
        for _ in 0..<(Hedging.minimumSamples - 1) { try await session.request(url) }
        #expect(hedging.wait(for: key) == nil)
        try await session.request(url)
        // Enough answers: a delay, never under the floor (the trips' own times vary on a loaded machine).
        #expect(try #require(hedging.wait(for: key)) >= .milliseconds(40))
        // Answers of a millisecond: the floor.
        for _ in 0..<LatencyWindow.capacity { hedging.latencies.record(.milliseconds(1), for: key) }
        #expect(hedging.wait(for: key) == .milliseconds(40))
        for _ in 0..<LatencyWindow.capacity { hedging.latencies.record(.milliseconds(100), for: key) }
        let wait = try #require(hedging.wait(for: key))
        #expect(wait >= .milliseconds(200) && wait < .milliseconds(220), "2 × the 95th percentile, \(wait)")
    }
}

/// `LatencyWindow`: percentiles within a bucket's width, over exactly the last samples.
@Suite struct LatencyWindowTests {
    @Test func aPercentileIsTheUpperEdgeOfTheBucketHoldingIt() throws {
        var window = LatencyWindow()
        #expect(window.percentile(0.95) == nil)
        for millisecond in 1...100 { window.record(.milliseconds(millisecond)) }
        let p95 = try #require(window.percentile(0.95))
        #expect(p95 >= .milliseconds(95) && p95 < .milliseconds(95) * 1.1, "\(p95)")
        let p50 = try #require(window.percentile(0.5))
        #expect(p50 >= .milliseconds(50) && p50 < .milliseconds(55), "\(p50)")
        #expect(window.percentile(1)! >= .milliseconds(100))
    }

    @Test func theWindowHoldsTheLastSamplesOnly() {
        var window = LatencyWindow()
        for _ in 0..<LatencyWindow.capacity { window.record(.seconds(2)) }
        for _ in 0..<LatencyWindow.capacity { window.record(.milliseconds(10)) }
        #expect(window.count == LatencyWindow.capacity)
        #expect(window.percentile(1)! < .milliseconds(11))
        window.record(.zero)
        window.record(.seconds(100_000))
        #expect(window.percentile(0)! <= .microseconds(1))
        #expect(window.percentile(1)! > .seconds(3600))
    }
}
