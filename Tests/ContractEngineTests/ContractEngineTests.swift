import Foundation
import LoopbackFixture
import Requests
import Testing
import TransportContract

/// A transport written outside the `Requests` module, on its public transfer core alone, meets
/// the whole transport contract against the loopback server.
@Suite struct ContractEngineTests {
    @Test(arguments: TransportContract.cases)
    func anEngineOnThePublicCoreMeetsTheContract(_ check: TransportContract.Case) async throws {
        let server = try LoopbackServer.shared.get()
        let engine = URLSessionEngine()
        defer { engine.shutdown() }
        try await TransportContract(transport: EngineTransport(engine: engine), server: server.baseURL).check(check)
    }
}

