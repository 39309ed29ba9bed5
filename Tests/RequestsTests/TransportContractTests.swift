import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackFixture
import TransportContract
@testable import Requests

/// Every check of the transport contract, against `URLSessionTransport` over the loopback server
/// and against a transport that answers the same endpoints from memory.
@Suite struct TransportContractTests {
    /// One transport for all URLSession checks, as an application would keep one.
    static let urlSession = URLSessionTransport(configuration: .ephemeral)

    @Test(arguments: TransportContract.cases)
    func urlSessionTransportMeetsTheContract(_ check: TransportContract.Case) async throws {
        let server = try LoopbackServer.shared.get()
        try await TransportContract(transport: Self.urlSession, server: server.baseURL).check(check)
    }

    @Test(arguments: TransportContract.cases)
    func anInMemoryTransportMeetsTheContract(_ check: TransportContract.Case) async throws {
        try await TransportContract(transport: InMemoryServer(), server: InMemoryServer.baseURL).check(check)
    }
}
