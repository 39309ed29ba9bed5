import Foundation
import Testing
@testable import Requests

/// `TimeoutClock`: the one clock behind the call deadline, the idle limit and a body's silence.
/// Each test has a clock of its own; waits are polls bounded by 20 s, never a tight constant.
@Suite struct TimeoutClockTests {
    /// Polls until `condition` holds, for at most 20 s.
    func eventually(_ condition: @Sendable () -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < end else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func alarmsRunInTheOrderOfTheirInstantsAndNeverEarly() async throws {
        let clock = TimeoutClock()
        let ran = Guarded<[(name: String, late: Bool)]>([])
        let start = ContinuousClock.now
        // Scheduled latest first: each earlier one replaces the sleeper.
        for (name, offset) in [("c", 60), ("b", 40), ("a", 20)] {
            let instant = start + .milliseconds(offset)
            clock.schedule(at: instant, TestAlarm { now in
                ran.withLock { $0.append((name, now >= instant)) }
                return nil
            })
        }
        #expect(try await eventually { ran.withLock { $0.count } == 3 })
        #expect(ran.withLock { $0.map(\.name) } == ["a", "b", "c"])
        #expect(ran.withLock { $0.allSatisfy(\.late) })
        #expect(clock.pendingCount == 0)
    }

    @Test func aCancelledAlarmDoesNotRun() async throws {
        let clock = TimeoutClock()
        let ran = Guarded<[String]>([])
        let start = ContinuousClock.now
        let cancelled = clock.schedule(at: start + .milliseconds(10)) {
            ran.withLock { $0.append("cancelled") }
        }
        clock.schedule(at: start + .milliseconds(30)) {
            ran.withLock { $0.append("kept") }
        }
        clock.cancel(cancelled)
        #expect(try await eventually { ran.withLock { $0 } == ["kept"] })
        #expect(clock.pendingCount == 0)
    }

    /// A wait that moved on asks to be looked at again; it runs until it answers `nil`.
    @Test func anAlarmThatAnswersALaterInstantRunsAgainThen() async throws {
        let clock = TimeoutClock()
        let runs = Guarded<[ContinuousClock.Instant]>([])
        let start = ContinuousClock.now
        clock.schedule(at: start + .milliseconds(10), TestAlarm { now in
            let count = runs.withLock { runs -> Int in
                runs.append(now)
                return runs.count
            }
            return count < 3 ? now + .milliseconds(10) : nil
        })
        #expect(try await eventually { runs.withLock { $0.count } == 3 })
        let times = runs.withLock { $0 }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= .milliseconds(10) })
        #expect(clock.pendingCount == 0)
    }

    /// Thousands of alarms set and cancelled, as calls that end before their limits do: none is
    /// left, and the heap does not keep what was cancelled.
    @Test func alarmsCancelledBeforeTheirTimeLeaveNothingBehind() async throws {
        let clock = TimeoutClock()
        let far = ContinuousClock.now + .seconds(60)
        for _ in 0..<10_000 {
            let key = clock.schedule(at: far) {}
            clock.cancel(key)
        }
        #expect(clock.pendingCount == 0)
    }

    /// The idle limit through the clock: the session's sweep cancels a trip whose wait outlasts
    /// the limit and says which wait it was, and goes quiet once no call is registered.
    @Test func theIdleSweepCancelsTheTripWhoseWaitOutlastsTheLimit() async throws {
        let clock = TimeoutClock()
        let sweep = IdleSweep(clock: clock)
        let watch = IdleWatch(limit: .milliseconds(30))
        let handle = TransferHandle()
        let key = sweep.add(watch)
        watch.waiting(for: .head, handle: handle)
        #expect(try await eventually { handle.isCancelled })
        #expect(watch.expired == .head)
        sweep.remove(key)
        #expect(try await eventually { clock.pendingCount == 0 })
    }
}

/// An alarm made of a closure, for the tests.
final class TestAlarm: ClockAlarm {
    let body: @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?

    init(_ body: @escaping @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?) {
        self.body = body
    }

    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        body(now)
    }
}
