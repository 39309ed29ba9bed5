import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A transport that throws `failure` on its first `failing` trips and answers 200 after.
private func failing(_ failing: Int = 1, with failure: TransportError) -> ClosureTransport {
    ClosureTransport { request, trip in
        if trip <= failing { throw failure }
        return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("ok".utf8)))
    }
}

/// A policy with no waits to speak of and no randomness.
private func quick(transportErrors: Set<TransportError.Kind> = RetryPolicy.retryableTransportErrors) -> RetryPolicy {
    var policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5), transportErrors: transportErrors)
    policy.random = { $0.upperBound }
    return policy
}

/// `RetryPolicy` reads the transport-neutral ``TransportError/Kind``, whatever the engine.
@Suite struct RetryPolicyTransportErrorTests {
    @Test(arguments: [TransportError.Kind.connectionLost, .cannotConnect, .dnsFailed, .timedOut])
    func aRetryableKindIsRetriedUntilItSucceeds(kind: TransportError.Kind) async throws {
        let transport = failing(with: TransportError(kind, detail: "first try"))
        let session = Session(transport: transport, interceptors: [quick()])
        let response = try await session.request("https://example.com/a")
        #expect(response.statusCode == 200)
        #expect(response.text == "ok")
        #expect(transport.trips == 2)
        #expect(response.failedAttempts.count == 1)
    }

    @Test(arguments: [TransportError.Kind.tls, .other, .cancelled])
    func otherKindsAreNotRetried(kind: TransportError.Kind) async throws {
        let transport = failing(with: TransportError(kind, detail: "first try"))
        let session = Session(transport: transport, interceptors: [quick()])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.transportErrorKind == kind)
        #expect(transport.trips == 1)
    }

    @Test func aCustomSetOfKindsIsHonoured() async throws {
        let tls = failing(with: TransportError(.tls, detail: "pin mismatch"))
        let retryingTLS = Session(transport: tls, interceptors: [quick(transportErrors: [.tls])])
        #expect(try await retryingTLS.request("https://example.com/a").statusCode == 200)
        #expect(tls.trips == 2)

        let lost = failing(with: TransportError(.connectionLost))
        let notRetryingLost = Session(transport: lost, interceptors: [quick(transportErrors: [.tls])])
        let error = await #expect(throws: RequestError.self) { try await notRetryingLost.request("https://example.com/a") }
        #expect(error?.transportErrorKind == .connectionLost)
        #expect(lost.trips == 1)
    }

    @Test func whenTheTriesRunOutTheLastErrorKeepsItsKindAndListsEachTry() async throws {
        let transport = failing(5, with: TransportError(.connectionLost, detail: "reset by peer"))
        let session = Session(transport: transport, interceptors: [quick()])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .transportFailed)
        #expect(error?.transportErrorKind == .connectionLost)
        #expect(error?.failedAttempts.count == 3)
        #expect(transport.trips == 3)
    }
}
