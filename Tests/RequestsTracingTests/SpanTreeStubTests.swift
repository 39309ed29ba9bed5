#if Tracing
import Foundation
import InMemoryTracing
import Requests
import RequestsTesting
import Testing
import Tracing

/// The spans, trace context and metrics of calls over `StubTransport`: the span tree of a call
/// that is redirected, gets a 503 and is retried; a failure; a cached answer; the throttle's
/// wait; a call made from inside another; and nothing at all when nothing listens.
@Suite struct SpanTreeStubTests {
    static let quickRetry = RetryPolicy(baseDelay: .milliseconds(1))

    @Test func redirectedRetriedCallIsOneSpanWithOneChildPerTrip() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.get, "/old", respond: .status(302, headers: ["Location": "/new"]))
        stub.on(.get, "/new", respond: .status(503), .text("fine"))
        let session = Session(transport: stub, interceptors: [Self.quickRetry], options: listeners.options)

        let response = try await session.request("https://api.example/old?sig=secret&page=2")
        #expect(response.text == "fine")

        let call = try listeners.root()
        #expect(call.operationName == "GET")
        #expect(call.kind == .client)
        #expect(call.text("http.request.method") == "GET")
        #expect(call.text("url.full") == "https://api.example/old?sig=REDACTED&page=2")
        #expect(call.text("server.address") == "api.example")
        #expect(call.text("server.port") == "443")
        #expect(call.text("http.response.status_code") == "200")
        #expect(call.text("error.type") == nil)
        #expect(call.status == nil)

        // The retry stage is outside the redirect stage: the retry starts from the first URL.
        let trips = listeners.children(of: call)
        #expect(trips.map(\.operationName) == ["GET", "GET", "GET", "GET"])
        #expect(trips.map { $0.text("http.response.status_code") } == ["302", "503", "302", "200"])
        #expect(trips.map { $0.text("http.request.resend_count") } == [nil, "1", "2", "3"])
        let old = "https://api.example/old?sig=REDACTED&page=2", new = "https://api.example/new"
        #expect(trips.map { $0.text("url.full") } == [old, new, old, new])
        #expect(trips.map { $0.text("network.protocol.version") } == ["1.1", "1.1", "1.1", "1.1"])
        #expect(trips.map { $0.text("error.type") } == [nil, "503", nil, nil])
        #expect(trips.map { $0.status?.code } == [nil, .error, nil, nil])
        #expect(trips.allSatisfy { $0.kind == .client && $0.spanContext.traceID == call.spanContext.traceID })
        // What the in-memory engine can tell: the head's arrival and the body read whole.
        #expect(trips.allSatisfy { $0.eventNames == ["response.first_byte", "response.end"] })

        // Each trip's request carried that trip's span as its `traceparent`.
        #expect(stub.requests.map { $0.headers["traceparent"] } == trips.map(\.traceparent))

        // Metrics, per trip, with the conventions' dimensions.
        let durations = listeners.recorded("http.client.request.duration")
        #expect(durations.map(\.outcome).sorted() == ["200", "302", "503"])
        #expect(durations.map(\.values.count).reduce(0, +) == 4)
        #expect(durations.allSatisfy { $0.values.allSatisfy { $0 >= 0 && $0 < 60 } })
        let okDimensions = try #require(listeners.metrics.recorders(label: "http.client.request.duration").first {
            $0.dimensions.contains { $0 == ("http.response.status_code", "200") }
        }).dimensions
        #expect(okDimensions.map(\.0) == [
            "http.request.method", "server.address", "server.port", "url.scheme", "http.response.status_code", "network.protocol.version",
        ])
        #expect(okDimensions.map(\.1) == ["GET", "api.example", "443", "https", "200", "1.1"])
        let sizes = listeners.recorded("http.client.response.body.size")
        #expect(sizes.first { $0.outcome == "200" }?.values == [4])
        let active = try listeners.metrics.expectMeter("http.client.active_requests", Array(okDimensions.prefix(4)))
        #expect(active.values.count == 8)
        #expect(active.lastValue == 0)

        // The response's timings hold the four trips.
        #expect(response.timings.trips.count == 4)
        #expect(response.timings.trips.allSatisfy { $0.responseStart != nil && $0.responseEnd != nil })
        #expect(response.timings.queued == nil)
    }

    @Test func failedCallNamesItsErrorType() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.post, "/items", respond: StubResponse.failure(.cannotConnect))
        let session = Session(transport: stub, options: listeners.options)

        await #expect(throws: RequestError.self) {
            try await session.request("http://127.0.0.1:9/items", method: .post, body: JSONBody(["a": 1]))
        }
        let call = try listeners.root()
        #expect(call.text("error.type") == "cannotConnect")
        #expect(call.status?.code == .error)
        #expect(call.errors.count == 1)
        #expect(call.text("http.response.status_code") == nil)
        let trips = listeners.children(of: call)
        #expect(trips.count == 1)
        #expect(trips.first?.text("error.type") == "cannotConnect")
        #expect(trips.first?.status?.code == .error)
        #expect(listeners.recorded("http.client.request.duration").map(\.outcome) == ["cannotConnect"])
        #expect(listeners.recorded("http.client.request.body.size").first?.values == [7])
    }

    @Test func cachedAnswerIsAnEventAndNoTrip() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.get, "/item", respond: .text("stored", headers: ["Cache-Control": "max-age=600"]))
        let session = Session(transport: stub, cache: HTTPCache(), options: listeners.options)
        let url = "http://127.0.0.1:9/item"

        _ = try await session.request(url)
        listeners.tracer.spans.clearFinishedSpans()
        let cached = try await session.request(url)
        #expect(cached.cacheStatus == .hit)

        let call = try listeners.root()
        #expect(listeners.children(of: call).isEmpty)
        #expect(call.eventNames == ["cache.answer"])
        #expect(call.events.first?.attributes.get("cache.status") == .string("hit"))
        #expect(call.text("http.response.status_code") == "200")
        #expect(cached.timings.trips.isEmpty)
    }

    @Test func aRetryTheBudgetRefusesIsAnEventOfTheCallsSpan() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.get, "/down", respond: .status(503))
        let budget = RetryBudget(ratio: 0, minimumPerSecond: 0)
        let session = Session(transport: stub, interceptors: [budget, RetryPolicy(maxAttempts: 3, baseDelay: .zero)], options: listeners.options)

        let response = try await session.request("http://127.0.0.1:9/down")
        #expect(response.statusCode == 503)
        #expect(stub.requests.count == 1)
        let call = try listeners.root()
        #expect(call.eventNames == ["retry_budget.exhausted"])
        #expect(call.events.first?.attributes.get("server.origin") == .string("http://127.0.0.1:9"))
        guard case .string(let detail) = call.events.first?.attributes.get("resilience.detail") else {
            Issue.record("no detail")
            return
        }
        #expect(detail.hasPrefix("the retry budget of http://127.0.0.1:9 is spent: 0 retries for 1 call"))
    }

    @Test func aHedgeIsAnEventOfTheCallsSpanWhichNamesTheWinningAttemptAndIsCounted() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        // The first trip stalls; the hedge sent after 20 ms answers at once.
        stub.on(.get, "/tail", respond: StubResponse.text("stalled").delayed(by: .seconds(30)), .text("hedge"))
        let hedging = Hedging(after: .fixed(.milliseconds(20)))
        let session = Session(transport: stub, interceptors: [hedging], options: listeners.options)

        let response = try await session.request("https://api.example/tail")
        #expect(response.text == "hedge")
        #expect(response.winningAttempt == 2)
        let call = try listeners.root()
        #expect(call.eventNames == ["hedge.sent", "hedge.won"])
        #expect(call.events.first?.attributes.get("server.origin") == .string("https://api.example"))
        #expect(call.text("requests.hedge.winning_attempt") == "2")
        #expect(call.text("http.response.status_code") == "200")
        // A span per trip: the stalled one cancelled, the hedge answered.
        let trips = listeners.children(of: call)
        #expect(trips.count == 2)
        #expect(Set(trips.map { $0.text("http.response.status_code") ?? "none" }) == ["200", "none"])
        for name in ["http.client.hedge.sent", "http.client.hedge.won"] {
            let counter = try listeners.metrics.expectCounter(name, [("server.origin", "https://api.example")])
            #expect(counter.totalValue == 1, "\(name)")
        }
    }

    @Test func throttleWaitIsTimedAndAnEvent() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.get, "/slow", respond: StubResponse.text("slow").delayed(by: .milliseconds(200)))
        stub.on(.get, "/next", respond: .text("next"))
        let session = Session(transport: stub, interceptors: [Throttle(maxConcurrent: 1)], options: listeners.options)

        async let first = session.request("http://127.0.0.1:9/slow")
        // The second call asks for the slot once the first holds it.
        while stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let second = try await session.request("http://127.0.0.1:9/next")
        _ = try await first

        let waited = try #require(second.timings.queued)
        #expect(waited > .zero)
        let call = try #require(listeners.children(of: nil).first { $0.text("url.full") == "http://127.0.0.1:9/next" })
        #expect(call.eventNames == ["throttle.wait"])
        guard case .double(let seconds) = call.events.first?.attributes.get("throttle.wait.duration") else {
            Issue.record("no wait duration")
            return
        }
        #expect(seconds == waited.secondsValue)
    }

    @Test func callParentsOnTheCurrentContextAndCallsMadeInsideAreChildren() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.post, "/token", respond: .text("fresh"))
        stub.on(.get, "/data", respond: .text("data"))
        let tokens = Session(transport: stub, options: listeners.options)
        let refresh = RefreshingStage(tokens: tokens)
        let session = Session(transport: stub, interceptors: [refresh], options: listeners.options)

        try await listeners.tracer.withSpan("handler") { _ in
            _ = try await session.request("http://127.0.0.1:9/data")
        }

        let handler = try listeners.root()
        #expect(handler.operationName == "handler")
        let calls = listeners.children(of: handler)
        #expect(calls.map { $0.text("url.full") } == ["http://127.0.0.1:9/data"])
        let inside = listeners.children(of: calls[0])
        // The token call (a call of its own, with its trip) and the data call's trip.
        #expect(inside.map { $0.text("url.full") } == ["http://127.0.0.1:9/token", "http://127.0.0.1:9/data"])
        #expect(listeners.children(of: inside[0]).map { $0.text("url.full") } == ["http://127.0.0.1:9/token"])
        #expect(stub.requests.first { $0.url.path == "/data" }?.headers["Authorization"] == "Bearer fresh")
    }

    /// A modifier that calls out (a token fetched before the stages run) makes a child of the
    /// call too; the call's span names the URL the modifiers completed.
    @Test func aModifiersCallIsAChildOfTheCall() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.post, "/token", respond: .text("fresh"))
        stub.on(.get, "/v2/data", respond: .text("data"))
        let tokens = Session(transport: stub, options: listeners.options)
        let modifier = ModifyRequest { request in
            let token = try await tokens.request("http://127.0.0.1:9/token", method: .post).text
            request.headers.update(name: "Authorization", value: "Bearer \(token)")
            try request.target.setPath("/v2/data")
        }
        let session = Session(transport: stub, modifiers: [modifier], options: listeners.options)
        _ = try await session.request("http://127.0.0.1:9/data")

        let call = try listeners.root()
        #expect(call.text("url.full") == "http://127.0.0.1:9/v2/data")
        let inside = listeners.children(of: call)
        #expect(inside.map { $0.text("url.full") } == ["http://127.0.0.1:9/token", "http://127.0.0.1:9/v2/data"])
    }

    /// A failed span records the error's kind and code, not its text, which holds the URL as
    /// sent; a method the conventions do not know is `_OTHER`.
    @Test func failuresRecordNoSecretsAndUnknownMethodsAreOther() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(respond: StubResponse.failure(.connectionLost))
        let session = Session(transport: stub, options: listeners.options)
        await #expect(throws: RequestError.self) {
            try await session.request("http://user:secret@127.0.0.1:9/p?sig=s3cr3t", method: HTTPMethod(rawValue: "PURGE"))
        }
        for span in listeners.tracer.finished {
            let recorded = span.errors.map { "\($0.error)" } + [span.status?.message ?? ""]
            #expect(!recorded.contains { $0.contains("secret") || $0.contains("s3cr3t") }, "\(recorded)")
            #expect(span.operationName == "HTTP")
            #expect(span.text("http.request.method") == "_OTHER")
            #expect(span.text("http.request.method_original") == "PURGE")
            #expect(span.text("url.full") == "http://REDACTED:REDACTED@127.0.0.1:9/p?sig=REDACTED")
        }
        #expect(listeners.tracer.finished.count == 2)
    }

    @Test func credentialsInTheURLAreRedacted() async throws {
        let listeners = Listeners()
        let stub = StubTransport()
        stub.on(.get, "/p", respond: .text("ok"))
        let session = Session(transport: stub, options: listeners.options)
        _ = try await session.request("http://user:pass@[::1]:8080/p?X-Goog-Signature=abc&q=a%20b#top")
        let call = try listeners.root()
        #expect(call.text("url.full") == "http://REDACTED:REDACTED@[::1]:8080/p?X-Goog-Signature=REDACTED&q=a%20b")
    }

    @Test func nothingListeningMeansNoSpanAndNoField() async throws {
        let stub = StubTransport()
        stub.on(.get, "/p", respond: .text("ok"))
        var options = RequestOptions()
        options.telemetry = .off
        let response = try await Session(transport: stub, options: options).request("http://127.0.0.1:9/p")
        #expect(stub.requests.first?.headers["traceparent"] == nil)
        // The timings are the core's, traced or not.
        #expect(response.timings.trips.count == 1)
    }
}

/// Gets a token with a call of its own before passing the request on, as a bearer refresh does.
struct RefreshingStage: Interceptor {
    let tokens: Session

    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        let token = try await tokens.request("http://127.0.0.1:9/token", method: .post).text
        request.headers.update(name: "Authorization", value: "Bearer \(token)")
        return try await next(request)
    }
}

extension Duration {
    /// The duration in seconds.
    var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
#endif
