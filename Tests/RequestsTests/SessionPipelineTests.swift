import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// The pipeline with an in-memory transport: building, header precedence, modifiers, errors.
@Suite struct SessionPipelineTests {
    @Test func modifiersRunInOrderOnTheEncodedRequest() async throws {
        let transport = MockTransport()
        let order = Guarded<[String]>([])
        let session = Session(transport: transport, modifiers: [
            ModifyRequest { request in
                order.withLock { $0.append("first") }
                #expect(request.url.query == "page=2")
                request.setValue("1", forHTTPHeaderField: "X-Step")
            },
            ModifyRequest { request in
                try await Task.sleep(for: .milliseconds(1))
                order.withLock { $0.append("second") }
                request.setValue((request.value(forHTTPHeaderField: "X-Step") ?? "") + "2", forHTTPHeaderField: "X-Step")
            },
        ])
        let response = try await session.request("https://example.com/items", parameters: ["page": 2])
        #expect(order.withLock { $0 } == ["first", "second"])
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Step") == "12")
        #expect(response.request.value(forHTTPHeaderField: "X-Step") == "12")
    }

    @Test func requestHeadersBeatSessionHeadersAndEncodingKeepsAGivenContentType() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport, headers: ["Accept": "text/plain", "X-Session": "s"])
        _ = try await session.request(
            "https://example.com", method: .post, parameters: ["a": 1], encoding: JSONEncoding.default,
            headers: ["accept": "application/json", "Content-Type": "application/vnd.api+json"]
        )
        let sent = try #require(transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(sent.value(forHTTPHeaderField: "X-Session") == "s")
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(sent.httpBody == Data(#"{"a":1}"#.utf8))
    }

    @Test func aReadyMadeRequestGetsOnlyTheSessionHeadersItLacks() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport, headers: ["Accept": "text/plain", "X-Session": "s"])
        var request = try URLRequest(url: "https://example.com/x", method: .delete)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        _ = try await session.request(request)
        let sent = try #require(transport.requests.first)
        #expect(sent.httpMethod == "DELETE")
        #expect(sent.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(sent.value(forHTTPHeaderField: "X-Session") == "s")
    }

    @Test func aModifierThatSetsHeadersSeesTheSessionHeaders() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport, headers: ["X-Session": "s"], modifiers: [
            ModifyRequest { request in
                #expect(request.value(forHTTPHeaderField: "X-Session") == "s")
                try request.setHeaders([.authorization(bearerToken: "token")])
            },
        ])
        _ = try await session.request("https://example.com")
        #expect(transport.requests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer token")
    }

    @Test func anInvalidURLIsReportedWithTheText() async throws {
        let session = Session(transport: MockTransport())
        let error = await #expect(throws: RequestError.self) {
            try await session.request("http://exa mple.com/a b")
        }
        #expect(error?.code == .invalidURL)
        #expect(error?.description.contains("exa mple.com") == true)
    }

    @Test func anEncodingFailureNamesTheKeyPath() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) {
            try await session.request(
                "https://example.com", method: .post,
                parameters: ["user": ["scores": [1, Double.nan]] as Parameters], encoding: JSONEncoding.default
            )
        }
        #expect(error?.code == .encodingFailed)
        let cause = try #require(error?.underlyingError as? ParameterEncodingError)
        #expect(cause.keyPath == "user.scores[1]")
        #expect(error?.description.hasPrefix("Could not encode the request for POST https://example.com (Invalid JSON value at user.scores[1]") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test func aRefusedHeaderIsAnEncodingFailureNamingIt() async throws {
        let session = Session(transport: MockTransport())
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com", headers: ["X-Bad": "a\r\nInjected: yes"])
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("X-Bad") == true)
    }

    @Test func aThrowingModifierStopsTheRequestAndIsNamed() async throws {
        struct Refused: Error {}
        let transport = MockTransport()
        let session = Session(transport: transport, modifiers: [ModifyRequest { _ in throw Refused() }])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .modifierFailed)
        #expect(error?.detail == "ModifyRequest")
        #expect(error?.underlyingError is Refused)
        #expect(error?.url?.absoluteString == "https://example.com/a")
        #expect(transport.requests.isEmpty)
    }

    @Test func transportErrorsAreWrappedWithTheRequest() async throws {
        let session = Session(transport: MockTransport { _ in throw URLError(.cannotConnectToHost) })
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com/a", method: .patch)
        }
        #expect(error?.code == .transportFailed)
        #expect((error?.underlyingError as? URLError)?.code == .cannotConnectToHost)
        #expect(error?.description.hasPrefix("Transport failed for PATCH https://example.com/a") == true)
    }

    @Test func urlErrorsForTimeoutAndCancellationKeepTheirMeaning() async throws {
        let timedOut = Session(transport: MockTransport { _ in throw URLError(.timedOut) })
        let first = await #expect(throws: RequestError.self) { try await timedOut.request("https://example.com") }
        #expect(first?.code == .timedOut)
        let cancelled = Session(transport: MockTransport { _ in throw URLError(.cancelled) })
        let second = await #expect(throws: RequestError.self) { try await cancelled.request("https://example.com") }
        #expect(second?.code == .cancelled)
    }

    @Test func aSlowTransportTimesOutAndIsCancelled() async throws {
        let wasCancelled = Guarded(false)
        let session = Session(transport: MockTransport.hanging(noting: wasCancelled), timeout: .seconds(30))
        let clock = ContinuousClock()
        let start = clock.now
        let lateness = schedulerLateness()
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com", timeout: .seconds(1))
        }
        let elapsed = clock.now - start
        let slack = await lateness.value
        #expect(error?.code == .timedOut)
        #expect(error?.description.contains("no complete response within 1 second") == true)
        #expect(elapsed >= .milliseconds(900), "gave up early, after \(elapsed)")
        #expect(elapsed < allowingLateness(.milliseconds(1500), slack), "timed out after \(elapsed); a plain sleep was \(slack) late")
        // The call's clock cancelled the transfer through its handle.
        let cancelledBy = ContinuousClock.now + .seconds(5)
        while !wasCancelled.withLock({ $0 }), ContinuousClock.now < cancelledBy {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(wasCancelled.withLock { $0 })
    }

    @Test func aFastTransportIsNotAffectedByTheTimeout() async throws {
        let session = Session(transport: MockTransport(body: Data("ok".utf8)), timeout: .seconds(5))
        let response = try await session.request("https://example.com")
        #expect(response.text == "ok")
        #expect(response.request.timeoutInterval >= 5)
    }

    @Test func aCancelledTaskThrowsCancellationErrorBeforeSending() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await session.request("https://example.com")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.requests.isEmpty)
    }

    @Test func cancellationDuringAModifierIsACancellationError() async throws {
        let session = Session(transport: MockTransport(), modifiers: [
            ModifyRequest { _ in try await Task.sleep(for: .seconds(30)) },
        ])
        let task = Task { try await session.request("https://example.com") }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func cancellingTheCallerCancelsTheTransport() async throws {
        let transportCancelled = Guarded(false)
        let transport = MockTransport.hanging(noting: transportCancelled)
        let session = Session(transport: transport)
        let task = Task { try await session.request("https://example.com") }
        // Cancel once the transport has the request, however late a loaded machine starts it.
        for _ in 0..<500 where transport.requests.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        for _ in 0..<100 where !transportCancelled.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(transportCancelled.withLock { $0 })
    }

    @Test func theResponseCarriesTimings() async throws {
        let session = Session(transport: MockTransport { request in
            try await Task.sleep(for: .milliseconds(20))
            return try await MockTransport(status: 204).answer(request)
        })
        let before = ContinuousClock.now
        let response = try await session.request("https://example.com")
        #expect(response.statusCode == 204)
        #expect(response.start >= before)
        #expect(response.duration >= .milliseconds(20))
    }
}
