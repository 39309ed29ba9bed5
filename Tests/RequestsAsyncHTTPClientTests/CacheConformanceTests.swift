#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

/// Every rule of the cache's conformance checks over `AsyncHTTPClientTransport` to the loopback
/// server's scripted answers.
@Suite struct CacheConformanceTests {
    /// One transport for all checks, as an application would keep one.
    static let transport = AsyncHTTPClientTransport()

    @Test(arguments: CacheConformance.cases)
    func overAsyncHTTPClientToTheLoopbackServer(_ check: CacheConformance.Case) async throws {
        let server = try LoopbackServer.shared.get()
        try await CacheConformance(origin: LoopbackOrigin(transport: Self.transport, server: server.baseURL)).check(check)
    }
}
#endif
