import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Cancellation, failures and the session's time

extension TransportContract {
    /// What ends a transfer early must end it at once, at the server too.
    static let lifecycle: [Case] = [
        Case(name: "cancelling the body stops the transfer") { contract in
            try await contract.expectDripAborted("body-cancel") { body in body.cancel() }
        },
        Case(name: "dropping the body unread stops the transfer") { contract in
            try await contract.expectDripAborted("body-dropped") { _ in }
        },
        Case(name: "cancelling the transfer handle stops the wait for the head") { contract in
            // A runtime stalled past the server's 10 s lets the head in before the cancel runs.
            try await retryingWhenLate { beside in
                let handle = TransferHandle()
                let request = TransportRequest(try contract.request("/delay/10"), handle: handle)
                let start = ContinuousClock.now
                Task {
                    try await Task.sleep(until: start + .milliseconds(200), clock: .continuous)
                    handle.cancel()
                }
                do {
                    _ = try await contract.transport.send(request)
                } catch {
                    let waited = ContinuousClock.now - start
                    try await expectWithin(.seconds(1), waited: waited, beside: beside, "the transport stopped (handle cancelled at 0.2 s)")
                    return
                }
                throw ContractViolation("the transport answered a request whose handle was cancelled")
            }
        },
        Case(name: "cancelling the calling task stops the wait for the head") { contract in
            let request = TransportRequest(try contract.request("/delay/10"))
            let transport = contract.transport
            let start = ContinuousClock.now
            let beside = LatenessProbe()
            let task = Task { try await transport.send(request) }
            try await Task.sleep(until: start + .milliseconds(200), clock: .continuous)
            task.cancel()
            let result = await task.result
            let waited = ContinuousClock.now - start
            if case .success = result {
                throw ContractViolation("the transport answered after its task was cancelled")
            }
            try await expectWithin(.seconds(1), waited: waited, beside: beside, "the transport stopped (task cancelled at 0.2 s)")
        },
    ]

    /// Failures before and after the head, classified.
    static let failures: [Case] = [
        Case(name: "a refused connection is classified cannotConnect") { contract in
            do {
                _ = try await contract.transport.send(TransportRequest(OutgoingRequest(url: contract.unreachable)))
                throw ContractViolation("a request to \(contract.unreachable) succeeded")
            } catch let error as ContractViolation {
                throw error
            } catch {
                let kind = TransportError.kind(of: error)
                try expect(kind == .cannotConnect, "the refused connection was classified \(kind): \(error)")
            }
        },
        Case(name: "a connection closed without an answer is classified connectionLost") { contract in
            do {
                _ = try await contract.exchange(TransportRequest(try contract.request("/close")))
                throw ContractViolation("GET /close succeeded")
            } catch let error as ContractViolation {
                throw error
            } catch {
                let kind = TransportError.kind(of: error)
                try expect(kind == .connectionLost, "the dropped connection was classified \(kind): \(error)")
            }
        },
        Case(name: "a connection lost mid-body fails the body, classified connectionLost") { contract in
            let (head, body) = try await contract.transport.send(TransportRequest(try contract.request("/range/200000?cut=1000")))
            try expect(head.statusCode == 200, "GET /range answered \(head.statusCode)")
            do {
                _ = try await body.collect()
                throw ContractViolation("a body cut after 1000 of 200000 bytes ended without an error")
            } catch let error as ContractViolation {
                throw error
            } catch let error as RequestError {
                try expect(error.code == .streamFailed, "the cut body failed with \(error.code), not streamFailed")
                try expect(error.transportErrorKind == .connectionLost,
                           "the cut body was classified \(error.transportErrorKind.map { "\($0)" } ?? "nothing"): \(error)")
            }
        },
    ]

    /// The session bounds every wait through the transport: the transport only has to stop when told.
    static let sessionTime: [Case] = [
        Case(name: "the session's idle limit ends a wait for the head") { contract in
            try await retryingWhenLate { beside in
                let session = Session(transport: contract.transport, idleTimeout: .milliseconds(500), cookies: .none)
                let start = ContinuousClock.now
                do {
                    _ = try await session.request(try contract.url("/delay/10"))
                } catch let error as RequestError {
                    let waited = ContinuousClock.now - start
                    try expect(error.code == .timedOut, "the call failed with \(error.code), not timedOut: \(error)")
                    try await expectWithin(.milliseconds(1500), waited: waited, beside: beside, "the idle limit of 0.5 s ended the call")
                    return
                }
                throw ContractViolation("a head 10 s away arrived before the idle limit of 0.5 s ended the call")
            }
        },
        Case(name: "a stream's silence longer than the session's idle limit fails it as timed out") { contract in
            let session = Session(transport: contract.transport, idleTimeout: .seconds(3), cookies: .none)
            let key = key("silence")
            // The idle limit bounds the head too: a machine so loaded that the head takes longer
            // gets two more tries before the check counts it.
            var opened: ResponseStream?
            for attempt in 1...3 where opened == nil {
                do {
                    opened = try await session.stream(try contract.url("/drip/\(key)-\(attempt)?bytes=2048&chunk=1024&interval_ms=20000"))
                } catch let error as RequestError where error.code == .timedOut && attempt < 3 {
                    continue
                }
            }
            guard let stream = opened else { throw ContractViolation("no head in three tries") }
            var chunks = stream.body.makeAsyncIterator()
            _ = try await chunks.next()
            let start = ContinuousClock.now
            let beside = LatenessProbe()
            do {
                while try await chunks.next() != nil {}
                throw ContractViolation("a body silent for 20 s ended within the 3 s idle limit")
            } catch let error as RequestError {
                let waited = ContinuousClock.now - start
                try expect(error.code == .timedOut, "the silent body failed with \(error.code), not timedOut: \(error)")
                try await expectWithin(.seconds(4), waited: waited, beside: beside, "the 3 s idle limit ended the body")
            }
        },
    ]

    /// Starts a long drip, reads one chunk, lets `end` end the body, and waits for the server to
    /// see the client go away.
    func expectDripAborted(_ name: String, end: (ResponseBody) -> Void) async throws {
        let key = Self.key(name)
        do {
            let (_, body) = try await transport.send(TransportRequest(try request("/drip/\(key)?bytes=50000000&chunk=16384&interval_ms=20")))
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
            end(body)
        }
        let aborted = try await Self.eventually(within: .seconds(10)) {
            let (_, data) = try await exchange(TransportRequest(try request("/drip-stats/\(key)")))
            struct Stats: Decodable { let aborted: Bool; let finished: Bool }
            let stats = try JSONDecoder().decode(Stats.self, from: data)
            return stats.aborted
        }
        try expect(aborted, "the server kept sending 10 s after the body ended")
    }
}
