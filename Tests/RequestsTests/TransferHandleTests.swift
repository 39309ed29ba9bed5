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
        let first = TransportRequest(URLRequest(url: url))
        let second = TransportRequest(URLRequest(url: url))
        #expect(first.handle !== second.handle)
        let shared = TransferHandle()
        #expect(TransportRequest(URLRequest(url: url), handle: shared).handle === shared)
    }
}
