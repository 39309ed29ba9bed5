import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// An interceptor that records when it is entered and left, and tags the request on its way in.
private struct Tagging: Interceptor {
    let name: String
    let log: Guarded<[String]>

    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        log.withLock { $0.append("> \(name)") }
        let tags = request.value(forHTTPHeaderField: "X-Tags").map { $0 + "," } ?? ""
        request.setValue(tags + name, forHTTPHeaderField: "X-Tags")
        let response = try await next(request)
        log.withLock { $0.append("< \(name)") }
        return response
    }
}

/// Answers from a fixed response without calling the rest of the chain.
private struct Cache: Interceptor {
    let cached: Response

    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        cached
    }
}

/// Calls the rest of the chain a given number of times and returns the last response.
private struct Repeat: Interceptor {
    let times: Int

    func intercept(_ request: OutgoingRequest, next: Next) async throws -> Response {
        var last: Response?
        for _ in 0..<times {
            last = try await next(request)
        }
        guard let last else { throw URLError(.unknown) }
        return last
    }
}

/// The chain with an in-memory transport: order, short-circuits, repeats, errors, events.
@Suite struct InterceptorChainTests {
    @Test func sessionInterceptorsRunOutermostFirstAndPerCallOnesInside() async throws {
        let log = Guarded<[String]>([])
        let transport = MockTransport()
        let session = Session(transport: transport, interceptors: [Tagging(name: "a", log: log), Tagging(name: "b", log: log)])
        _ = try await session.request("https://example.com/x", interceptors: [Tagging(name: "call", log: log)])
        #expect(log.withLock { $0 } == ["> a", "> b", "> call", "< call", "< b", "< a"])
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Tags") == "a,b,call")
    }

    @Test func modifiersRunBeforeTheInterceptors() async throws {
        let seen = Guarded<[String]>([])
        let transport = MockTransport()
        let session = Session(
            transport: transport,
            modifiers: [ServerEnvironment(host: "api.example.com", pathPrefix: "/v1")],
            interceptors: [ModifyRequest { request in seen.withLock { $0.append(request.url.absoluteString) } }]
        )
        _ = try await session.request("users/42")
        #expect(seen.withLock { $0 } == ["https://api.example.com/v1/users/42"])
    }

    @Test func anInterceptorThatAnswersItselfSkipsTheTransport() async throws {
        let transport = MockTransport()
        let cached = try makeResponse(status: 203, body: "cached")
        let monitor = RecordingMonitor()
        let session = Session(transport: transport, interceptors: [Cache(cached: cached)], monitors: [monitor])
        let response = try await session.request("https://example.com/x")
        #expect(response.statusCode == 203)
        #expect(response.text == "cached")
        #expect(transport.requests.isEmpty)
        #expect(monitor.events.isEmpty)
    }

    @Test func anInterceptorMayCallTheRestOfTheChainSeveralTimes() async throws {
        let transport = MockTransport(status: 204)
        let counts = Guarded<[Int]>([])
        let session = Session(transport: transport, interceptors: [
            Repeat(times: 3),
            InterceptorProbe { request, next in
                let response = try await next(request)
                counts.withLock { $0.append(next.context.attemptCount) }
                return response
            },
        ])
        let response = try await session.request("https://example.com/x")
        #expect(response.statusCode == 204)
        #expect(transport.requests.count == 3)
        #expect(counts.withLock { $0 } == [1, 2, 3])
    }

    @Test func anInterceptorsOwnErrorNamesIt() async throws {
        struct Refused: Error {}
        let transport = MockTransport()
        let session = Session(transport: transport, interceptors: [InterceptorProbe { _, _ in throw Refused() }])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .interceptorFailed)
        #expect(error?.detail == "InterceptorProbe")
        #expect(error?.underlyingError is Refused)
        #expect(error?.url?.absoluteString == "https://example.com/a")
        #expect(transport.requests.isEmpty)
    }

    @Test func transportErrorsPassThroughOuterInterceptorsUnchanged() async throws {
        let session = Session(
            transport: MockTransport { _ in throw URLError(.networkConnectionLost) },
            interceptors: [InterceptorProbe { request, next in try await next(request) }]
        )
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .transportFailed)
        #expect((error?.underlyingError as? URLError)?.code == .networkConnectionLost)
    }

    @Test func theContextCarriesTheDeadlineAndTheServerOrigins() async throws {
        let seen = Guarded<RequestContext?>(nil)
        let session = Session(
            transport: MockTransport(), timeout: .seconds(5),
            modifiers: [ServerEnvironment(host: "api.example.com", port: 8443)],
            interceptors: [InterceptorProbe { request, next in
                seen.withLock { $0 = next.context }
                return try await next(request)
            }]
        )
        let before = ContinuousClock.now
        _ = try await session.request("x")
        let context = try #require(seen.withLock { $0 })
        #expect(context.serverOrigins == [Origin(scheme: "https", host: "api.example.com", port: 8443)])
        let deadline = try #require(context.deadline)
        #expect(deadline > before + .seconds(4) && deadline <= ContinuousClock.now + .seconds(5))
    }

    // MARK: Monitors

    @Test func monitorsSeeEachTripWithTheRequestAsSent() async throws {
        let monitor = RecordingMonitor()
        let session = Session(
            transport: MockTransport(status: 201), interceptors: [Repeat(times: 2)], monitors: [monitor]
        )
        _ = try await session.request("https://example.com/items", method: .post, interceptors: [
            ModifyRequest { $0.setValue("yes", forHTTPHeaderField: "X-Late") },
        ])
        #expect(monitor.events == ["send 1 POST /items", "receive 1 201", "send 2 POST /items", "receive 2 201"])
        let attempts = monitor.attempts.withLock { $0 }
        #expect(Set(attempts.map(\.callID)).count == 1)
        #expect(attempts[1].duration >= .zero && attempts[0].duration == .zero)
    }

    @Test func aFailedTripIsReportedOnce() async throws {
        let monitor = RecordingMonitor()
        let session = Session(transport: MockTransport { _ in throw URLError(.cannotConnectToHost) }, monitors: [monitor])
        _ = try? await session.request("https://example.com/a")
        #expect(monitor.events == ["send 1 GET /a", "fail 1 transportFailed"])
    }

    @Test func aCallThatFailsBeforeTheTransportIsReportedAsAttemptZero() async throws {
        struct Refused: Error {}
        let monitor = RecordingMonitor()
        let session = Session(
            transport: MockTransport(), interceptors: [InterceptorProbe { _, _ in throw Refused() }], monitors: [monitor]
        )
        _ = try? await session.request("https://example.com/a")
        #expect(monitor.events == ["fail 0 interceptorFailed"])
    }

    @Test func aTimeoutIsReportedOnceAsTheCallsFailure() async throws {
        // On a loaded machine the call's deadline can pass before the chain reaches the transport;
        // then the timeout is the call's alone (attempt 0). Lengthen the deadline until the trip
        // starts in time, so the test bounds its wait by the lateness it measured.
        var timeout = Duration.milliseconds(100)
        for _ in 0..<6 {
            let monitor = RecordingMonitor()
            let cancelled = Guarded(false)
            let session = Session(transport: MockTransport.hanging(noting: cancelled), monitors: [monitor])
            _ = try? await session.request("https://example.com/slow", timeout: timeout)
            if monitor.events == ["fail 0 timedOut"] {
                timeout *= 4
                continue
            }
            for _ in 0..<1000 where !cancelled.withLock({ $0 }) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(20))
            #expect(cancelled.withLock { $0 })
            #expect(monitor.events == ["send 1 GET /slow", "fail 1 timedOut"])
            return
        }
        Issue.record("the transport was never reached before the deadline, even at \(timeout / 4)")
    }
}

// MARK: - InterceptorProbe

/// An interceptor made from a closure, for tests.
struct InterceptorProbe: Interceptor {
    let body: @Sendable (OutgoingRequest, Next) async throws -> Response

    init(_ body: @escaping @Sendable (OutgoingRequest, Next) async throws -> Response) {
        self.body = body
    }

    func intercept(_ request: OutgoingRequest, next: Next) async throws -> Response {
        try await body(request, next)
    }
}
