import Foundation
import Testing
import TransportContract

/// `retryingWhenLate` tries a timed check again only when the runtime itself was stalled.
@Suite struct RetryingWhenLateTests {
    private final class Tries: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int { lock.withLock { count += 1; return count } }
        var value: Int { lock.withLock { count } }
    }

    @Test func aCheckThatPassesRunsOnceAndReturnsItsValue() async throws {
        let tries = Tries()
        let value = try await retryingWhenLate { _ in tries.next() * 7 }
        #expect(value == 7)
        #expect(tries.value == 1)
    }

    @Test func aFailureOnAPunctualRuntimeIsTheAnswer() async throws {
        let tries = Tries()
        // A stall of an hour is never seen, so no failure is voided.
        await #expect(throws: ContractViolation.self) {
            try await retryingWhenLate(stall: .seconds(3600)) { _ in
                _ = tries.next()
                throw ContractViolation("fails on time")
            }
        }
        #expect(tries.value == 1)
    }

    @Test func aFailureWhileTheRuntimeWasLateIsTriedAgainUpToTheLimit() async throws {
        let tries = Tries()
        // Any lateness voids a failure when the stall allowed is zero.
        await #expect(throws: ContractViolation.self) {
            try await retryingWhenLate(attempts: 3, stall: .zero) { _ in
                _ = tries.next()
                throw ContractViolation("fails every time")
            }
        }
        #expect(tries.value == 3)
        let recovered = Tries()
        let value = try await retryingWhenLate(attempts: 3, stall: .zero) { _ in
            let attempt = recovered.next()
            if attempt < 2 { throw ContractViolation("fails once") }
            return attempt
        }
        #expect(value == 2)
    }
}
