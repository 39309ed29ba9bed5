#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

/// Every check of the transport contract, against `AsyncHTTPClientTransport` over the loopback
/// server.
@Suite struct ContractTests {
    /// One transport for all checks, as an application would keep one.
    static let transport = AsyncHTTPClientTransport()

    @Test(arguments: TransportContract.cases)
    func asyncHTTPClientTransportMeetsTheContract(_ check: TransportContract.Case) async throws {
        let server = try LoopbackServer.shared.get()
        try await TransportContract(transport: Self.transport, server: server.baseURL).check(check)
    }
}
#endif
