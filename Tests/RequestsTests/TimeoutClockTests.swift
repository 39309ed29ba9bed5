import Foundation
import Testing
@testable import Requests

/// `TimeoutClock`: where every call's clock keeps its one alarm.
/// Each test has a clock of its own; waits are polls bounded by 20 s, never a tight constant.
@Suite struct TimeoutClockTests {
    @Test func alarmsRunInTheOrderOfTheirInstantsAndNeverEarly() async throws {
        let clock = TimeoutClock()
        let ran = Guarded<[(name: String, late: Bool)]>([])
        let start = ContinuousClock.now
        // Scheduled latest first: each earlier one sets the timer again.
        for (name, offset) in [("c", 60), ("b", 40), ("a", 20)] {
            let instant = start + .milliseconds(offset)
            clock.schedule(at: instant, TestAlarm { now in
                ran.withLock { $0.append((name, now >= instant)) }
                return nil
            })
        }
        #expect(try await becomesTrue { ran.withLock { $0.count } == 3 })
        #expect(ran.withLock { $0.map(\.name) } == ["a", "b", "c"])
        #expect(ran.withLock { $0.allSatisfy(\.late) })
    }

    @Test func aCancelledAlarmDoesNotRun() async throws {
        let clock = TimeoutClock()
        let ran = Guarded<[String]>([])
        let start = ContinuousClock.now
        let cancelled = clock.schedule(at: start + .milliseconds(10), TestAlarm { _ in
            ran.withLock { $0.append("cancelled") }
            return nil
        })
        clock.schedule(at: start + .milliseconds(30), TestAlarm { _ in
            ran.withLock { $0.append("kept") }
            return nil
        })
        clock.cancel(cancelled)
        #expect(try await becomesTrue { ran.withLock { $0 } == ["kept"] })
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
        #expect(try await becomesTrue { runs.withLock { $0.count } == 3 })
        let times = runs.withLock { $0 }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= .milliseconds(10) })
    }

    /// Thousands of alarms set and cancelled, as calls that end before their limits do: the clock
    /// lets go of every one (none is kept alive by the heap), and one that rang is let go too.
    @Test func alarmsCancelledOrDoneAreLetGo() async throws {
        let clock = TimeoutClock()
        let far = ContinuousClock.now + .seconds(60)
        let released = Guarded(0)
        for _ in 0..<10_000 {
            let key = clock.schedule(at: far, TestAlarm(onDeinit: { released.withLock { $0 += 1 } }) { _ in nil })
            clock.cancel(key)
        }
        #expect(released.withLock { $0 } == 10_000)
        clock.schedule(at: .now + .milliseconds(5), TestAlarm(onDeinit: { released.withLock { $0 += 1 } }) { _ in nil })
        #expect(try await becomesTrue { released.withLock { $0 } == 10_001 })
    }
}

/// An alarm made of a closure, for the tests.
final class TestAlarm: ClockAlarm {
    let body: @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?
    let onDeinit: (@Sendable () -> Void)?

    init(onDeinit: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?) {
        self.body = body
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit?()
    }

    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        body(now)
    }
}
