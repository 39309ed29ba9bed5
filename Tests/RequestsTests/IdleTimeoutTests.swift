import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A transport whose head comes at once and whose body sends one chunk, then nothing, never
/// ending; the stream's continuation is kept, so only a cancellation ends it.
private final class StallingBody: Transport {
    private let continuations = Guarded<[AsyncThrowingStream<Data, any Error>.Continuation]>([])

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        continuation.yield(Data("first chunk".utf8))
        continuations.withLock { $0.append(continuation) }
        return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(stream))
    }

    deinit {
        for continuation in continuations.withLock({ $0 }) {
            continuation.finish()
        }
    }
}

/// The session's `idleTimeout`: the longest wait for a head or the next bytes of a body that
/// the call's timeout does not bound, fresh for every trip.
@Suite struct IdleTimeoutTests {
    static let limit: Duration = .milliseconds(300)

    @Test func aHeadThatNeverComesTimesOutAfterTheIdleLimit() async throws {
        let session = Session(transport: InMemoryServer(), idleTimeout: Self.limit)
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let error = await #expect(throws: RequestError.self) {
            try await session.request(InMemoryServer.baseURL.appendingPathComponent("delay/10"))
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .timedOut)
        #expect(error?.transportErrorKind == .timedOut)
        #expect(error?.description.contains("no response head within 0.3 seconds") == true)
        #expect(elapsed >= Self.limit)
        // The call's clock rings at the limit; a second more is room for the cancellation to unwind.
        #expect(elapsed < allowingLateness(Self.limit + .seconds(1), await lateness.stop()))
    }

    @Test func aHeadThatNeverComesTimesOutUnderALongerCallTimeoutToo() async throws {
        let session = Session(transport: InMemoryServer(), idleTimeout: Self.limit)
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let error = await #expect(throws: RequestError.self) {
            try await session.request(InMemoryServer.baseURL.appendingPathComponent("delay/10"), timeout: .seconds(30))
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .timedOut)
        #expect(error?.description.contains("no response head within 0.3 seconds") == true)
        #expect(elapsed < allowingLateness(Self.limit + .seconds(1), await lateness.stop()))
    }

    @Test
    func aBodyThatStallsAfterTheHeadTimesOutWithoutACallTimeout() async throws {
        try await expectStalledBodyTimesOut(timeout: nil)
    }

    @Test func aBodyThatStallsAfterTheHeadTimesOutUnderALongerCallTimeout() async throws {
        try await expectStalledBodyTimesOut(timeout: .seconds(30))
    }

    private func expectStalledBodyTimesOut(timeout: Duration?) async throws {
        let session = Session(transport: StallingBody(), idleTimeout: Self.limit)
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let failure: any Error
        do {
            _ = try await failingIfHung(after: .seconds(10)) {
                try await session.request("https://example.com/stall", timeout: timeout)
            }
            Issue.record("a body that never ended was returned as complete")
            return
        } catch {
            failure = error
        }
        let elapsed = ContinuousClock.now - start
        let error = try #require(failure as? RequestError, "\(failure)")
        #expect(error.code == .timedOut)
        #expect(error.transportErrorKind == .timedOut)
        #expect(error.description.contains("the body sent nothing for 0.3 seconds"))
        #expect(elapsed < allowingLateness(Self.limit + .seconds(1), await lateness.stop()))
    }

    @Test func aTripThatIdlesOutIsRetriedWithAFreshLimit() async throws {
        try await expectIdleTripRetried(timeout: nil)
    }

    @Test
    func aTripThatIdlesOutIsRetriedWithAFreshLimitUnderALongerCallTimeout() async throws {
        try await expectIdleTripRetried(timeout: .seconds(30))
    }

    private func expectIdleTripRetried(timeout: Duration?) async throws {
        // The first trip never answers; the second answers after a tenth of the limit, which a
        // limit carried over from the first trip would not allow (the clock's alarm would cut it
        // off). The margin is wide so that a loaded machine's stall of more than a second between
        // the answer's sleep and the alarm still leaves the answer first.
        let transport = ClosureTransport { request, trip in
            if trip == 1 {
                try await waitUntilCancelled(request.handle)
            } else {
                try await Task.sleep(for: .milliseconds(150))
            }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("answered".utf8)))
        }
        var retry = RetryPolicy(baseDelay: .milliseconds(1))
        retry.random = { $0.upperBound }
        let session = Session(transport: transport, idleTimeout: .milliseconds(1500), interceptors: [retry])
        let response = try await session.request("https://example.com/retry", timeout: timeout)
        #expect(response.text == "answered")
        #expect(transport.trips == 2)
        #expect(response.failedAttempts.count == 1)
        let first = try #require(response.failedAttempts.first?.error as? RequestError)
        #expect(first.code == .timedOut)
        #expect(first.description.contains("no response head within 1.5 seconds"))
    }

    @Test func aCallTimeoutShorterThanTheIdleLimitIsTheOneReported() async throws {
        let session = Session(transport: InMemoryServer(), idleTimeout: .seconds(5))
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let error = await #expect(throws: RequestError.self) {
            try await session.request(InMemoryServer.baseURL.appendingPathComponent("delay/10"), timeout: Self.limit)
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .timedOut)
        #expect(error?.description.contains("no complete response within 0.3 seconds") == true)
        #expect(elapsed < allowingLateness(Self.limit + .seconds(1), await lateness.stop()))
    }

    @Test func noIdleLimitLetsASlowHeadArrive() async throws {
        let session = Session(transport: InMemoryServer(), idleTimeout: nil)
        let response = try await session.request(InMemoryServer.baseURL.appendingPathComponent("delay/0.4"))
        #expect(response.statusCode == 200)
    }

    @Test func theDefaultIdleLimitIsSixtySeconds() {
        #expect(Session(transport: ClosureTransport()).idleTimeout == .seconds(60))
    }
}
