import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// `TransferHandle`: the session's way to stop one transfer.
@Suite struct TransferHandleTests {
    @Test func aNewHandleIsNotCancelledAndCancelSetsIt() {
        let handle = TransferHandle()
        #expect(!handle.isCancelled)
        handle.cancel()
        #expect(handle.isCancelled)
    }

    @Test func registeredActionsWaitForCancel() {
        let handle = TransferHandle()
        let runs = Guarded(0)
        handle.onCancel { runs.withLock { $0 += 1 } }
        #expect(runs.withLock { $0 } == 0)
        handle.cancel()
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func cancelRunsEveryActionOnceInOrderHoweverOftenItIsCalled() {
        let handle = TransferHandle()
        let runs = Guarded<[String]>([])
        handle.onCancel { runs.withLock { $0.append("first") } }
        handle.onCancel { runs.withLock { $0.append("second") } }
        handle.cancel()
        handle.cancel()
        handle.cancel()
        #expect(runs.withLock { $0 } == ["first", "second"])
    }

    @Test func anActionRegisteredAfterCancelRunsAtOnce() {
        let handle = TransferHandle()
        handle.cancel()
        let runs = Guarded(0)
        handle.onCancel { runs.withLock { $0 += 1 } }
        #expect(runs.withLock { $0 } == 1)
        handle.cancel()
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func concurrentCancelsRunEachActionOnce() async {
        let handle = TransferHandle()
        let runs = Guarded(0)
        for _ in 0..<10 {
            handle.onCancel { runs.withLock { $0 += 1 } }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask { handle.cancel() }
            }
        }
        #expect(runs.withLock { $0 } == 10)
    }

    @Test func anActionMayRegisterAnotherWithoutDeadlock() {
        let handle = TransferHandle()
        let runs = Guarded<[String]>([])
        handle.onCancel {
            runs.withLock { $0.append("outer") }
            handle.onCancel { runs.withLock { $0.append("inner") } }
        }
        handle.cancel()
        #expect(runs.withLock { $0 } == ["outer", "inner"])
    }

    @Test func aTransportRequestHasAFreshHandleUnlessGivenOne() throws {
        let url = try #require(URL(string: "https://example.com/"))
        let first = TransportRequest(OutgoingRequest(url: url))
        let second = TransportRequest(OutgoingRequest(url: url))
        #expect(first.handle !== second.handle)
        let shared = TransferHandle()
        #expect(TransportRequest(OutgoingRequest(url: url), handle: shared).handle === shared)
    }

    @Test func finishReleasesTheActionsUnrunAndDropsLaterOnes() {
        let handle = TransferHandle()
        let runs = Guarded(0)
        weak var released: Marker?
        do {
            let marker = Marker()
            released = marker
            handle.onCancel { _ = marker; runs.withLock { $0 += 1 } }
        }
        #expect(released != nil)
        handle.finish()
        #expect(released == nil, "finish() keeps what the action captured")
        handle.onCancel { runs.withLock { $0 += 1 } }
        handle.cancel()
        #expect(runs.withLock { $0 } == 0)
        #expect(handle.isCancelled)
    }

    /// A transport that keeps its request (and so the handle) in what it registers on the handle,
    /// as an exchange object does, must not outlive the call: the session finishes each trip's
    /// handle, which breaks the cycle.
    @Test func theSessionFinishesEachTripsHandleSoNothingItHoldsOutlivesTheCall() async throws {
        let alive = Guarded(0)
        let transport = ClosureTransport { request, _ in
            let exchange = Exchange(request: request, alive: alive)
            request.handle.onCancel { exchange.cancel() }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("ok".utf8)))
        }
        let session = Session(transport: transport)
        let url = try #require(URL(string: "https://example.com/a"))
        for _ in 0..<20 {
            _ = try await session.request(url)
            _ = try await session.stream(url)
        }
        #expect(alive.withLock { $0 } == 0, "exchanges kept alive through their requests' handles")
    }
}

/// Something whose release a test can observe.
private final class Marker: Sendable {}

/// An exchange that holds its request, as a transport's may, and counts the live ones.
private final class Exchange: Sendable {
    let request: TransportRequest
    let alive: Guarded<Int>

    init(request: TransportRequest, alive: Guarded<Int>) {
        self.request = request
        self.alive = alive
        alive.withLock { $0 += 1 }
    }

    func cancel() {}

    deinit {
        alive.withLock { $0 -= 1 }
    }
}
