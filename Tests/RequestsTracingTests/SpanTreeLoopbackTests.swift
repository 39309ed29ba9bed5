#if Tracing
import Foundation
import InMemoryTracing
import LoopbackFixture
import Requests
import Testing
import TransportContract
import W3CTraceContext
#if AsyncHTTPClient
import RequestsAsyncHTTPClient
#endif

/// The span tree of a call to the loopback server that is redirected, gets a 503, is retried and
/// succeeds, over each engine; the `traceparent` each trip's request carried, as the server
/// received it, matching that trip's span; the trips' metrics.
@Suite struct SpanTreeLoopbackTests {
    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case urlSession, asyncHTTPClient

        var testDescription: String { rawValue }

        /// The transport, or `nil` when this build lacks it.
        var transport: (any Transport)? {
            switch self {
            case .urlSession: return URLSessionTransport()
            case .asyncHTTPClient:
                #if AsyncHTTPClient
                return AsyncHTTPClientTransport()
                #else
                return nil
                #endif
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func traceparentOfEachTripReachesTheServer(engine: Engine) async throws {
        guard let transport = engine.transport else { return }
        let server = try LoopbackServer.shared.get()
        let origin = LoopbackOrigin(transport: transport, server: server.baseURL)
        // A relative `Location`: from `/script/<id>/start` to `/script/<id>/next`.
        let answers = [
            ScriptedAnswer(status: 302, headers: ["Location": "next", "Content-Length": "0"]),
            ScriptedAnswer(status: 503, headers: ["Content-Length": "4"], body: "busy"),
            ScriptedAnswer(status: 302, headers: ["Location": "next", "Content-Length": "0"]),
            ScriptedAnswer(status: 200, headers: ["Content-Length": "2", "Content-Type": "text/plain"], body: "ok"),
        ]
        let scripted = try await origin.script(answers)
        let start = scripted.appendingPathComponent("start")
        let first = start.absoluteString, second = scripted.appendingPathComponent("next").absoluteString
        let listeners = Listeners()
        let session = Session(
            transport: transport, interceptors: [RetryPolicy(baseDelay: .milliseconds(1))], options: listeners.options
        )

        let response = try await session.request(start)
        #expect(response.text == "ok")

        let call = try listeners.root()
        #expect(call.text("http.response.status_code") == "200")
        #expect(call.text("url.full") == first)
        let trips = listeners.children(of: call)
        #expect(trips.map { $0.text("http.response.status_code") } == ["302", "503", "302", "200"])
        #expect(trips.map { $0.text("url.full") } == [first, second, first, second])
        #expect(trips.map { $0.text("http.request.resend_count") } == [nil, "1", "2", "3"])
        #expect(trips.allSatisfy { $0.text("server.address") == "127.0.0.1" && $0.text("server.port") == String(server.port) })
        if engine == .asyncHTTPClient {
            #expect(trips.allSatisfy { $0.text("network.protocol.version") == "1.1" })
            // The engine tells when the request went out.
            #expect(trips.allSatisfy { $0.eventNames.contains("request.sent") })
        }
        // No span but ours: one for the call and one per trip (the engine's own is off).
        #expect(listeners.tracer.finished.count == 5)

        // What the server received: each trip's own span, in W3C form.
        let received = try await origin.requests(to: scripted)
        try #require(received.count == 4)
        for (request, trip) in zip(received, trips) {
            let field = try #require(request.headers["traceparent"])
            let context = try TraceContext(traceParentHeaderValue: field)
            #expect(context.traceID.description == call.spanContext.traceID)
            #expect(context.spanID.description == trip.spanContext.spanID)
        }

        let durations = listeners.recorded("http.client.request.duration")
        #expect(durations.map(\.values.count).reduce(0, +) == 4)
        #expect(listeners.recorded("http.client.response.body.size").first { $0.outcome == "200" }?.values == [2])
        try await session.shutdown()
    }

    /// A refused connection: the call's and the trip's `error.type`, and the duration recorded
    /// with it.
    @Test(arguments: Engine.allCases)
    func refusedConnectionNamesItsErrorType(engine: Engine) async throws {
        guard let transport = engine.transport else { return }
        let listeners = Listeners()
        let session = Session(transport: transport, options: listeners.options)
        // Nothing listens on the discard port of the loopback address.
        await #expect(throws: RequestError.self) { try await session.request("http://127.0.0.1:9/refused") }

        let call = try listeners.root()
        #expect(call.text("error.type") == "cannotConnect")
        #expect(call.status?.code == .error)
        let trips = listeners.children(of: call)
        #expect(trips.map { $0.text("error.type") } == ["cannotConnect"])
        #expect(trips.first?.status?.code == .error)
        #expect(listeners.recorded("http.client.request.duration").map(\.outcome) == ["cannotConnect"])
        try await session.shutdown()
    }

    /// A stored answer: the second call's span has the cache's event and no trip.
    @Test(arguments: Engine.allCases)
    func cachedAnswerIsAnEventWithoutATrip(engine: Engine) async throws {
        guard let transport = engine.transport else { return }
        let server = try LoopbackServer.shared.get()
        let origin = LoopbackOrigin(transport: transport, server: server.baseURL)
        let url = try await origin.script([
            ScriptedAnswer(status: 200, headers: ["Cache-Control": "max-age=600", "Content-Length": "6"], body: "stored"),
        ])
        let listeners = Listeners()
        let session = Session(transport: transport, cache: HTTPCache(), options: listeners.options)
        _ = try await session.request(url)
        listeners.tracer.spans.clearFinishedSpans()

        let cached = try await session.request(url)
        #expect(cached.cacheStatus == .hit)
        #expect(cached.text == "stored")
        let call = try listeners.root()
        #expect(listeners.children(of: call).isEmpty)
        #expect(call.eventNames == ["cache.answer"])
        #expect(call.text("http.response.status_code") == "200")
        #expect(try await origin.requests(to: url).count == 1)
        try await session.shutdown()
    }
}
#endif
