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

/// `shutdown()` of the transport and of a session over it: later requests fail at once saying
/// why, requests under way end, a second shutdown does nothing, and a transport dropped without
/// one closes its clients itself.
@Suite struct ShutdownTests {
    @Test func aRequestAfterShutdownFailsAtOnceSayingSo() async throws {
        let transport = AsyncHTTPClientTransport()
        let (head, _) = try await exchange(transport, OutgoingRequest(url: try server().url("/anything")))
        #expect(head.statusCode == 200)
        try await transport.shutdown()

        let probe = LatenessProbe()
        let start = ContinuousClock.now
        let outcome = await capture { try await transport.send(TransportRequest(OutgoingRequest(url: try server().url("/anything")))) }
        let (inTime, took) = await isWithin(.seconds(1), ContinuousClock.now - start, beside: probe)
        let error = try #require(outcome.failure, "a request after shutdown was answered")
        print("after shutdown, the transport: \(error) (\(took))")
        #expect(TransportError.kind(of: error) == .other)
        #expect("\(error)".contains("shut down"), "\(error)")
        #expect(inTime, "the request after shutdown \(took)")

        // Through a session that was not itself shut down: the transport's words reach the caller.
        let session = Session(transport: transport, cookies: .none)
        let requestError = await #expect(throws: RequestError.self) { try await session.request(try server().url("/anything")) }
        print("after shutdown, a session over it: \(requestError.map { "\($0)" } ?? "no error")")
        #expect(requestError?.code == .transportFailed)
        #expect(requestError?.description.contains("the transport was shut down") == true)
    }

    @Test func sessionShutdownShutsTheTransportDown() async throws {
        let transport = AsyncHTTPClientTransport()
        let session = Session(transport: transport, cookies: .none)
        #expect(try await session.request(try server().url("/anything")).statusCode == 200)
        try await session.shutdown()
        let refused = await #expect(throws: RequestError.self) { try await session.request(try server().url("/anything")) }
        #expect(refused?.code == .sessionShutDown)
        // The transport itself is shut down too, not only the session in front of it.
        let outcome = await capture { try await transport.send(TransportRequest(OutgoingRequest(url: try server().url("/anything")))) }
        #expect(outcome.failure.map { "\($0)".contains("shut down") } == true, "\(outcome)")
    }

    @Test func shutdownTwiceOrConcurrentlyIsFine() async throws {
        let transport = AsyncHTTPClientTransport()
        _ = try await exchange(transport, OutgoingRequest(url: try server().url("/anything")))
        try await transport.shutdown()
        try await transport.shutdown()

        let other = AsyncHTTPClientTransport()
        _ = try await exchange(other, OutgoingRequest(url: try server().url("/anything")))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { try await other.shutdown() }
            }
            try await group.waitForAll()
        }
        let session = Session(transport: AsyncHTTPClientTransport(), cookies: .none)
        try await session.shutdown()
        try await session.shutdown()
    }

    /// A request waiting for its head, and one whose body is still arriving, when shutdown
    /// starts: each ends (with a response or an error, whichever the engine gives), and so does
    /// the shutdown.
    @Test(arguments: [InFlight.waitingForTheHead, .readingTheBody])
    func aRequestInFlightWhenShutdownStartsEnds(_ phase: InFlight) async throws {
        let transport = AsyncHTTPClientTransport()
        let session = Session(transport: transport, cookies: .none)
        let key = uniqueKey("shutdown")
        let call = Task { () -> String in
            switch phase {
            case .waitingForTheHead:
                return try await session.request(try server().url("/slow-count/\(key)/5000")).text
            case .readingTheBody:
                let stream = try await session.stream(try server().url("/drip/\(key)?bytes=400000&chunk=1000&interval_ms=50"))
                var count = 0
                for try await chunk in stream.body { count += chunk.count }
                return "\(count) bytes"
            }
        }
        // Shut down once the server has the request (and, for the body, has begun sending it).
        let underWay = try await withTransport { observer in
            try await eventually(within: .seconds(10)) {
                switch phase {
                case .waitingForTheHead:
                    struct Stats: Decodable { let inFlight: Int }
                    let (_, data) = try await exchange(observer, OutgoingRequest(url: try server().url("/slow-count-stats/\(key)")))
                    return try JSONDecoder().decode(Stats.self, from: data).inFlight == 1
                case .readingTheBody:
                    let (_, data) = try await exchange(observer, OutgoingRequest(url: try server().url("/drip-stats/\(key)")))
                    return try JSONDecoder().decode(DripStats.self, from: data).sent > 0
                }
            }
        }
        #expect(underWay, "the request never reached the server")
        let probe = LatenessProbe()
        let start = ContinuousClock.now
        let shutdown = Task { try await transport.shutdown() }
        let outcome = await call.result
        let ended = ContinuousClock.now - start
        let shutdownOutcome = await shutdown.result
        let (inTime, took) = await isWithin(.seconds(2), ended, beside: probe)
        print("in flight (\(phase)) at shutdown: \(outcome.map { "response, \($0.prefix(40))" }) after \(seconds(ended)); shutdown: \(shutdownOutcome)")
        #expect(inTime, "the call in flight \(took) after shutdown began")
        if case .failure(let error) = shutdownOutcome {
            Issue.record("shutdown threw \(error)")
        }
        if case .failure(let error) = outcome {
            // The caller's task was not cancelled: it gets a RequestError saying what happened.
            let requestError = try #require(error as? RequestError, "the call in flight threw \(type(of: error)): \(error)")
            #expect(requestError.code == .cancelled && requestError.transportErrorKind == .cancelled, "\(requestError)")
            #expect(requestError.description.contains("shuts down"), "\(requestError)")
        }
    }

    enum InFlight: String, Sendable, CustomStringConvertible {
        case waitingForTheHead, readingTheBody
        var description: String { rawValue }
    }

    /// AsyncHTTPClient traps in a debug build when a client is deinitialized before it was shut
    /// down; the transport's deinit shuts its clients down, so dropping one is safe.
    @Test func aTransportDroppedWithoutShutdownDoesNotTrap() async throws {
        do {
            let transport = AsyncHTTPClientTransport()
            let (head, _) = try await exchange(transport, OutgoingRequest(url: try server().url("/anything")))
            #expect(head.statusCode == 200)
        }
        do {
            // With a body still unread, the exchange keeping the client alive a little longer.
            let transport = AsyncHTTPClientTransport()
            let (_, body) = try await transport.send(TransportRequest(OutgoingRequest(url: try server().url("/bytes/100000"))))
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
        }
        // The clients' shutdowns finish on their own; a trap would have ended the process by now.
        try await Task.sleep(for: .milliseconds(300))
        try await withTransport { transport in
            let (head, _) = try await exchange(transport, OutgoingRequest(url: try server().url("/anything")))
            #expect(head.statusCode == 200)
        }
    }
}
#endif
