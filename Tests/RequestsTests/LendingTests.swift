import Foundation
import Testing
@testable import Requests

/// `Lending`: a resource taken out of its lock for I/O by one caller at a time, and closed by
/// whoever holds it last.
@Suite struct LendingTests {
    @Test func aResourceIsLentToOneCallerAtATime() {
        var lending = Lending("file")
        guard case .lent(let lent) = lending.borrow() else {
            Issue.record("the resource was not lent")
            return
        }
        #expect(lent == "file")
        guard case .busy = lending.borrow() else {
            Issue.record("a second borrower got the resource")
            return
        }
        #expect(lending.giveBack(lent) == nil)
        guard case .lent = lending.borrow() else {
            Issue.record("the resource given back was not lent again")
            return
        }
    }

    @Test func closingAnIdleResourceHandsItOutToClose() {
        var lending = Lending("file")
        #expect(lending.close() == "file")
        #expect(lending.isClosed)
        guard case .closed = lending.borrow() else {
            Issue.record("a closed resource was lent")
            return
        }
        #expect(lending.close() == nil)
    }

    /// Closed while lent: the borrower is the one who closes it, when it gives it back.
    @Test func closingALentResourceLeavesItToItsBorrower() {
        var lending = Lending("file")
        guard case .lent(let lent) = lending.borrow() else {
            Issue.record("the resource was not lent")
            return
        }
        #expect(lending.close() == nil)
        #expect(lending.giveBack(lent) == "file")
        guard case .closed = lending.borrow() else {
            Issue.record("a closed resource was lent")
            return
        }
    }

    @Test func nothingToLendStartsClosed() {
        var lending = Lending<String>(nil)
        #expect(lending.isClosed)
        guard case .closed = lending.borrow() else {
            Issue.record("nothing was lent")
            return
        }
    }
}
