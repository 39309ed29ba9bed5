import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// What a scripted trip does: answer `status` after `wait`, or sooner, once `gate` opens.
private struct Step: Sendable {
    /// Another trip's progress a trip can wait for, so that which trip answers first does not
    /// depend on a loaded machine's timing.
    enum Gate: Sendable {
        /// Trip `n` has reached the transport.
        case started(Int)
        /// Trip `n` has answered or failed.
        case ended(Int)
    }

    var wait: Duration
    var status = 200
    var gate: Gate?

    static func answer(_ status: Int = 200, after wait: Duration) -> Step { Step(wait: wait, status: status) }
    static func answer(_ status: Int = 200, once gate: Gate) -> Step { Step(wait: .seconds(30), status: status, gate: gate) }
}

/// A transport that runs each trip's step from its script (given the trip's number from 1 and
/// the URL), and records which trips were cancelled while they waited and which ended.
private final class ScriptedTrips: Sendable {
    let cancelled = Guarded<[Int]>([])
    let ended = Guarded<Set<Int>>([])
    let transport: ClosureTransport

    init(_ script: @escaping @Sendable (_ trip: Int, _ url: URL) -> Step) {
        let cancelled = self.cancelled
        let ended = self.ended
        let started = Guarded(0)
        transport = ClosureTransport { request, trip in
            started.withLock { $0 = max($0, trip) }
            defer { ended.withLock { _ = $0.insert(trip) } }
            let step = script(trip, request.url)
            func open() -> Bool {
                switch step.gate {
                case nil: false
                case .started(let other): started.withLock { $0 >= other }
                case .ended(let other): ended.withLock { $0.contains(other) }
                }
            }
            do {
                let end = ContinuousClock.now + step.wait
                if step.gate == nil {
                    try await request.handle.sleep(for: step.wait)
                } else {
                    while !open(), ContinuousClock.now < end { try await request.handle.sleep(for: .milliseconds(2)) }
                }
            } catch {
                cancelled.withLock { $0.append(trip) }
                throw error
            }
            return (ResponseHead(statusCode: step.status, url: request.url), ResponseBody(Data("trip \(trip)".utf8)))
        }
    }

    convenience init(_ script: @escaping @Sendable (_ trip: Int) -> Step) {
        self.init { trip, _ in script(trip) }
    }

    var trips: Int { transport.trips }
    var cancelledTrips: [Int] { cancelled.withLock { $0.sorted() } }
}

/// `Hedging` over a scripted transport: when a second trip goes, which answer wins, which calls
/// are never hedged, the caps, cancellation and the call's deadline.
@Suite struct HedgingTests {
    private let url = "https://api.example.com/items"

    @Test func aStalledTripIsHedgedAfterTheDelayTheHedgeWinsAndTheStalledTripIsCancelled() async throws {
        let server = ScriptedTrips { $0 == 1 ? .answer(after: .seconds(30)) : .answer(after: .zero) }
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
        let server = ScriptedTrips { _ in .answer(after: .zero) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.seconds(5)))])
        for _ in 0..<5 {
            #expect(try await session.request(url).winningAttempt == nil)
        }
        #expect(server.trips == 5)
    }

    @Test func theFirstTripWinsWhenItAnswersFirstAndTheHedgeIsCancelled() async throws {
        let server = ScriptedTrips { $0 == 1 ? .answer(once: .started(2)) : .answer(after: .seconds(30)) }
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
        let server = ScriptedTrips { $0 == 1 ? .answer(once: .ended(2)) : .answer(503, after: .zero) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(20)))])
        let response = try await session.request(url)
        #expect(response.statusCode == 200)
        #expect(response.winningAttempt == 1)

        // Both answer 503: the last is the call's.
        let failing = ScriptedTrips { $0 == 1 ? .answer(503, once: .ended(2)) : .answer(503, after: .zero) }
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
        // A call meant to go once answers after 200 ms, twenty delays (time for a wrong hedge);
        // the first trip of a call meant to be hedged answers once the hedge has started.
        let server = ScriptedTrips { trip, url in
            url.query == "once" ? .answer(after: .milliseconds(200)) : .answer(once: .started(trip + 1))
        }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(10)), maxShare: 1)])
        let once = url + "?once"
        try await session.request(once, method: .post, body: JSONBody(["a": 1]))
        #expect(server.trips == 1, "POST")
        try await session.request(url, method: .post, body: JSONBody(["a": 1]), headers: ["Idempotency-Key": "k1"])
        #expect(server.trips == 3, "POST with an Idempotency-Key")
        var off = RequestOptions()
        off.hedges = false
        try await session.request(once, options: off)
        #expect(server.trips == 4, "options.hedges off")
        let stream = try await session.stream(once)
        for try await _ in stream.body {}
        #expect(server.trips == 5, "a stream goes once")
        try await session.request(url)
        #expect(server.trips == 7, "GET")
    }

    @Test func atMostMaxShareOfTheCallsAreHedged() async throws {
        // The calls meant to be hedged (the 1st and the 11th) answer once their hedge started.
        let server = ScriptedTrips { trip, url in
            ["call=0", "call=10"].contains(url.query) ? .answer(once: .started(trip + 1)) : .answer(after: .milliseconds(60))
        }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(5)), maxShare: 0.1)])
        for call in 0..<20 { try await session.request(url + "?call=\(call)") }
        // Hedges stay under a tenth of the calls: the 1st call and the 11th.
        #expect(server.trips == 22)
    }

    @Test func hedgesDrawOnTheRetryBudget() async throws {
        let server = ScriptedTrips { _ in .answer(after: .milliseconds(60)) }
        let budget = RetryBudget(ratio: 0, minimumPerSecond: 0, window: .seconds(3600))
        let session = Session(transport: server.transport, interceptors: [budget, Hedging(after: .fixed(.milliseconds(5)), maxShare: 1)])
        for _ in 0..<5 { try await session.request(url) }
        #expect(server.trips == 5)
        #expect(budget.counts(for: OutgoingRequest(url: URL(string: url)!)) == (calls: 5, retries: 0))
    }

    @Test func upToMaxAttemptsTripsGoOneDelayApart() async throws {
        let server = ScriptedTrips { $0 < 3 ? .answer(after: .seconds(30)) : .answer(after: .zero) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(20)), maxAttempts: 3, maxShare: 1)])
        let response = try await session.request(url)
        #expect(response.winningAttempt == 3)
        #expect(server.trips == 3)
        #expect(server.cancelledTrips == [1, 2])
    }

    @Test func aCancelledHedgedCallCancelsEveryTrip() async throws {
        let server = ScriptedTrips { _ in .answer(after: .seconds(30)) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(10)))])
        let call = Task { try await session.request(url) }
        while server.trips < 2 { try await Task.sleep(for: .milliseconds(5)) }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(server.cancelledTrips == [1, 2])
    }

    @Test func everyTripEndsAtTheCallsDeadline() async throws {
        let server = ScriptedTrips { _ in .answer(after: .seconds(30)) }
        let session = Session(transport: server.transport, interceptors: [Hedging(after: .fixed(.milliseconds(10)))])
        let error = await #expect(throws: RequestError.self) { try await session.request(url, timeout: .milliseconds(500)) }
        #expect(error?.code == .timedOut)
        // Every trip that started (both, unless a loaded machine kept them from starting within
        // the deadline) was ended by it before the call returned.
        #expect(server.cancelledTrips == Array(stride(from: 1, through: server.trips, by: 1)))
    }

    @Test func aPercentileDelayWaitsForEnoughAnswersThenFollowsThem() async throws {
        let server = ScriptedTrips { _ in .answer(after: .milliseconds(1)) }
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
