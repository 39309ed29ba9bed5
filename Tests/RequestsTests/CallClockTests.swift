import Foundation
import Testing
@testable import Requests

/// `CallClock`: one value per call for its deadline and the idle limit of each wait, one alarm
/// at a time, one verdict, one thing stopped. Each test has a `TimeoutClock` of its own; waits
/// are polls bounded by 20 s, never a tight constant.
@Suite struct CallClockTests {
    @Test func aHeadWaitPastTheIdleLimitStopsTheTripWithAnIdleVerdict() async throws {
        let call = CallClock(timeout: nil, idleLimit: .milliseconds(30), clock: TimeoutClock())
        let handle = TransferHandle()
        try call.waiting(for: .head, on: .trip(handle))
        #expect(try await becomesTrue { handle.isCancelled })
        #expect(call.verdict == TimeoutExceeded(limit: .idle(.head), duration: .milliseconds(30)))
        #expect(call.verdict?.detail == "no response head within 0.03 seconds")
        call.end()
    }

    /// Signs of life move the wait on: the alarm that rings early answers a later instant, and
    /// the limit counts from the last sign.
    @Test func signsOfLifeKeepABodyWaitAlive() async throws {
        let call = CallClock(timeout: nil, idleLimit: .milliseconds(200), clock: TimeoutClock())
        let handle = TransferHandle()
        try call.waiting(for: .body, on: .trip(handle))
        let start = ContinuousClock.now
        // Each sign comes well within the limit, however late this task runs.
        var last = start
        var starved = false
        while ContinuousClock.now - start < .milliseconds(600) {
            try await Task.sleep(for: .milliseconds(20))
            // A loaded machine ran this task too late: the alarm, on a queue of its own, may
            // rightly have rung.
            if ContinuousClock.now - last >= .milliseconds(200) {
                starved = true
                break
            }
            call.heard()
            last = .now
        }
        let keptAlive = !starved && ContinuousClock.now - start >= .milliseconds(600)
        if keptAlive { #expect(!handle.isCancelled) }
        #expect(try await becomesTrue { handle.isCancelled })
        #expect(call.verdict?.limit == .idle(.body))
        #expect(ContinuousClock.now - last >= .milliseconds(200))
        call.end()
    }

    @Test func theDeadlineStopsTheWaitAndIsFinal() async throws {
        let call = CallClock(timeout: .milliseconds(40), idleLimit: .seconds(60), clock: TimeoutClock())
        let handle = TransferHandle()
        try call.waiting(for: .head, on: .trip(handle))
        #expect(try await becomesTrue { handle.isCancelled })
        let verdict = TimeoutExceeded(limit: .deadline, duration: .milliseconds(40))
        #expect(call.verdict == verdict)
        #expect(verdict.detail == "no complete response within 0.04 seconds")
        // A retry finds the deadline passed: nothing is sent, no other wait begins.
        #expect(throws: verdict) { try call.startTrip() }
        #expect(throws: verdict) { try call.waiting(for: .body, on: .trip(TransferHandle())) }
        call.end()
    }

    /// The deadline passes while nothing waits (the caller reads slowly): the next wait fails.
    @Test func theDeadlinePassedBetweenWaitsFailsTheNextWait() async throws {
        let call = CallClock(timeout: .milliseconds(30), idleLimit: nil, clock: TimeoutClock())
        #expect(try await becomesTrue { call.verdict != nil })
        #expect(throws: TimeoutExceeded.self) { try call.waiting(for: .body, on: .trip(TransferHandle())) }
        call.end()
    }

    @Test func aNewTripForgetsAnIdleVerdict() async throws {
        let call = CallClock(timeout: nil, idleLimit: .milliseconds(20), clock: TimeoutClock())
        try call.waiting(for: .head, on: .trip(TransferHandle()))
        #expect(try await becomesTrue { call.verdict != nil })
        try call.startTrip()
        #expect(call.verdict == nil)
        // The next wait arms anew.
        let second = TransferHandle()
        try call.waiting(for: .head, on: .trip(second))
        #expect(try await becomesTrue { second.isCancelled })
        call.end()
    }

    /// The cache's wait for an identical request ends at the idle limit without a verdict: the
    /// call goes to the network itself.
    @Test func aCacheWaitEndsWithoutAVerdict() async throws {
        let call = CallClock(timeout: nil, idleLimit: .milliseconds(20), clock: TimeoutClock())
        let ended = Guarded(false)
        try call.waiting(for: .cache, on: .wait { ended.withLock { $0 = true } })
        #expect(try await becomesTrue { ended.withLock { $0 } })
        #expect(call.verdict == nil)
        call.end()
    }

    /// A wait that ended in time stops nothing, and the clock lets go of its target at once.
    @Test func aWaitThatEndedInTimeLetsGoOfItsTarget() async throws {
        let call = CallClock(timeout: nil, idleLimit: .milliseconds(30), clock: TimeoutClock())
        weak var released: TransferHandle?
        do {
            let handle = TransferHandle()
            released = handle
            try call.waiting(for: .head, on: .trip(handle))
            call.stopped()
        }
        #expect(released == nil)
        try await Task.sleep(for: .milliseconds(60))
        #expect(call.verdict == nil)
        call.end()
    }

    @Test func anIdleLimitNoShorterThanTheDeadlineIsDropped() {
        #expect(CallClock(timeout: .seconds(5), idleLimit: .seconds(60)).idleLimit == nil)
        #expect(CallClock(timeout: .seconds(60), idleLimit: .seconds(5)).idleLimit == .seconds(5))
        #expect(CallClock(timeout: nil, idleLimit: .seconds(5)).idleLimit == .seconds(5))
    }

    /// An ended clock arms nothing and stops nothing.
    @Test func anEndedClockStopsNothing() async throws {
        let call = CallClock(timeout: .milliseconds(20), idleLimit: .milliseconds(10), clock: TimeoutClock())
        call.end()
        let handle = TransferHandle()
        try? call.waiting(for: .head, on: .trip(handle))
        try await Task.sleep(for: .milliseconds(60))
        #expect(!handle.isCancelled)
    }
}
