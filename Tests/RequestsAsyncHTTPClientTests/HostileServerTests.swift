#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

/// The hostile-server matrix of `TransportContract` against `AsyncHTTPClientTransport`: every
/// fault, met by a whole-body request and by a stream, ends within its timeout with the right
/// error (or the right response), and the next request on the same session succeeds.
///
/// Unlike the root's `URLSession` matrix, this one runs in the test process itself: NIO has no
/// work queue shared by every client, so neither the parallel run nor the header flood can hold
/// the matrix's calls back. Each check prints its row of the table.
@Suite struct HostileServerTests {
    @Test(arguments: HostileServerMatrix.faults, HostileServerMatrix.Call.allCases)
    func everyFaultEndsInTimeAndTheNextRequestSucceeds(_ fault: HostileServerMatrix.Fault, _ call: HostileServerMatrix.Call) async throws {
        let hostile = try hostileServer()
        let outcome = try await withTransport { transport in
            try await HostileServerMatrix(transport: transport, server: hostile.baseURL).check(fault, as: call)
        }
        print(outcome.row)
    }

    @Test(arguments: [Duration.zero, .milliseconds(150)])
    func keepAliveConnectionsClosedBetweenRequestsAreNotAnError(pause: Duration) async throws {
        let hostile = try hostileServer()
        try await withTransport { transport in
            try await HostileServerMatrix(transport: transport, server: hostile.baseURL).checkKeepAliveClosedBetweenRequests(pause: pause)
        }
    }

    /// 100,000 headers: NIO's parser refuses the head once it passes its limits (80 KiB of
    /// headers), so the call fails at once instead of keeping a core busy, and the next request
    /// goes through at once. (A try that timed out while the test process itself was a second or
    /// more late is made again: the refusal reached the call after its deadline.)
    @Test func aHundredThousandHeadersFailFastAndTheNextRequestSucceeds() async throws {
        let hostile = try hostileServer()
        let (outcome, error) = try await retryingWhenLate { beside in
            let outcome = try await withTransport { transport in
                try await HostileServerMatrix(transport: transport, server: hostile.baseURL).checkHeaderFlood()
            }
            guard let error = outcome.error as? RequestError, error.code == .transportFailed else {
                throw FixtureError("the flood ended \(outcome.text), not refused (the runtime was \(await beside.value) late)")
            }
            return (outcome, error)
        }
        print(outcome.row)
        #expect(error.transportErrorKind == .other)
    }
}
#endif
