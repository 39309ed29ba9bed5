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

/// `CircuitBreaker` over AsyncHTTPClient: the loopback server counts what reaches it.
@Suite struct CircuitBreakerTests {
    @Test func itOpensFailsFastProbesOnceAndCloses() async throws {
        let key = uniqueKey("breaker")
        try await withTransport { transport in
            let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(3), probeAfter: .milliseconds(200))
            let session = Session(transport: transport, interceptors: [breaker], cookies: .none)
            let url = try server().url("/flaky/\(key)/3")
            for _ in 0..<3 { #expect(try await session.request(url).statusCode == 503) }
            let error = await #expect(throws: RequestError.self) { try await session.request(url) }
            #expect(error?.code == .circuitOpen)
            #expect(try await SessionPipelineTests.count(transport, "/flaky-count/\(key)") == 3, "an open circuit sends nothing")
            try await Task.sleep(for: .milliseconds(250))
            #expect(try await session.request(url).statusCode == 200, "the probe")
            #expect(try await session.request(url).statusCode == 200, "closed again")
            #expect(try await SessionPipelineTests.count(transport, "/flaky-count/\(key)") == 5)
        }
    }
}
#endif
