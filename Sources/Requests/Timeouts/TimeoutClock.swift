import Foundation

// MARK: - ClockAlarm

/// What runs when one of a call's limits could have run out: a ``CallClock``.
protocol ClockAlarm: AnyObject, Sendable {
    /// Looks at the limit at `now`, and acts when it has run out.
    ///
    /// It runs outside every lock and must not block.
    ///
    /// - Parameter now: The clock's reading.
    /// - Returns: A later instant to be rung again at (a wait that moved on since), or `nil` when
    ///   the alarm is done.
    func ring(at now: ContinuousClock.Instant) -> ContinuousClock.Instant?
}

// MARK: - TimeoutClock

/// Where every call's ``CallClock`` keeps its one alarm: one dispatch timer, set to the earliest
/// alarm, rings those that are due.
///
/// A call pays a lock, a slot and a heap insertion for an alarm, and a lock to cancel it: no task
/// or timer of its own. The timer is set again only when an alarm comes due before every other
/// (the first one, or a shorter limit than those pending).
///
/// The timer fires on a serial queue of the clock's own, not in a Swift task: a cooperative pool
/// kept busy by CPU-bound work (the caller's, or a loaded machine's) does not hold a timeout back.
///
/// An alarm may answer a later instant instead of acting: a wait that has moved on (the body sent
/// a chunk since) asks to be looked at again then, so that waits that move all the time cost
/// nothing until they could have run out.
///
/// Invariants, under the lock:
/// - `slots` holds the alarms not cancelled and not done, each with the serial its key carries;
///   a heap entry is current only while its slot holds that serial at that instant (older entries
///   are skipped, and pruned when they pile up);
/// - `wake` is the instant the timer is (being) set to, `nil` when no alarm is pending; each new
///   `wake` takes a new `generation`, and whoever sets the timer checks after it that the
///   generation is still the one it set, or sets it again: the last setting is the latest `wake`;
/// - alarms ring outside the lock, on the timer's queue.
final class TimeoutClock: Sendable {
    /// An alarm's name, for ``cancel(_:)``.
    struct Key: Hashable, Sendable {
        fileprivate let slot: Int
        fileprivate let serial: UInt64
    }

    /// The clock every session uses.
    static let shared = TimeoutClock()

    private struct Slot {
        var serial: UInt64
        var instant: ContinuousClock.Instant
        let alarm: any ClockAlarm
    }

    /// What the timer is to be set to: an instant (`nil`: never), of a generation.
    private struct Setting {
        let wake: ContinuousClock.Instant?
        let generation: UInt64
    }

    private struct State {
        var slots: [Slot?] = []
        var free: [Int] = []
        var live = 0
        var heap = InstantHeap()
        var serial: UInt64 = 0
        var wake: ContinuousClock.Instant?
        var generation: UInt64 = 0

        func isCurrent(_ entry: InstantHeap.Entry) -> Bool {
            guard let slot = slots[entry.slot] else { return false }
            return slot.serial == entry.serial && slot.instant == entry.instant
        }

        /// The earliest current heap entry, dropping stale ones on the way.
        mutating func earliest() -> InstantHeap.Entry? {
            while let top = heap.top {
                if isCurrent(top) { return top }
                heap.pop()
            }
            return nil
        }

        /// Keeps `instant` for the alarm in `slot`; answers the timer's new setting when it is
        /// earlier than the one set.
        mutating func arm(_ slot: Int, at instant: ContinuousClock.Instant) -> Setting? {
            guard let serial = slots[slot]?.serial else { return nil }
            slots[slot]?.instant = instant
            heap.push(InstantHeap.Entry(instant: instant, slot: slot, serial: serial))
            guard wake.map({ instant < $0 }) ?? true else { return nil }
            return newWake(instant)
        }

        /// A new setting for the timer.
        mutating func newWake(_ instant: ContinuousClock.Instant?) -> Setting {
            wake = instant
            generation &+= 1
            return Setting(wake: instant, generation: generation)
        }

        /// Empties a slot; answers its alarm, to be released after the lock.
        mutating func remove(_ slot: Int) -> (any ClockAlarm)? {
            guard let taken = slots[slot] else { return nil }
            slots[slot] = nil
            free.append(slot)
            live -= 1
            // Stale entries are a few words each: pruned rarely, so that a cancel costs no rebuild.
            if heap.count > 4 * live + 1024 {
                let slots = self.slots
                heap.keep { entry in
                    guard let slot = slots[entry.slot] else { return false }
                    return slot.serial == entry.serial && slot.instant == entry.instant
                }
            }
            return taken.alarm
        }
    }

    private let state = Guarded(State())
    /// Fires at `wake`, on `queue`; set outside the lock (``set(_:)``).
    private nonisolated(unsafe) let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "swift-requests.timeouts", qos: .userInitiated)

    init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// Rings `alarm` at `instant`, and again at the instant it answers, until it answers `nil` or
    /// is cancelled.
    ///
    /// - Parameters:
    ///   - instant: When to ring it.
    ///   - alarm: What to ring; it must not block.
    /// - Returns: The alarm's key, for ``cancel(_:)``.
    @discardableResult
    func schedule(at instant: ContinuousClock.Instant, _ alarm: any ClockAlarm) -> Key {
        var setting: Setting?
        let key = state.withLock { state -> Key in
            state.serial &+= 1
            let entry = Slot(serial: state.serial, instant: instant, alarm: alarm)
            let slot: Int
            if let reused = state.free.popLast() {
                slot = reused
                state.slots[slot] = entry
            } else {
                slot = state.slots.count
                state.slots.append(entry)
            }
            state.live += 1
            setting = state.arm(slot, at: instant)
            return Key(slot: slot, serial: state.serial)
        }
        if let setting { set(setting) }
        return key
    }

    /// Drops an alarm that has not rung (or asked to ring again); nothing happens when it is done.
    ///
    /// - Parameter key: The alarm's key.
    func cancel(_ key: Key) {
        let removed = state.withLock { state -> (any ClockAlarm)? in
            guard key.slot < state.slots.count, state.slots[key.slot]?.serial == key.serial else { return nil }
            return state.remove(key.slot)
        }
        // The alarm may hold what a `deinit` acts on: released after the lock.
        releaseUnlocked(removed)
    }

    /// Sets the timer, then again for as long as a newer setting was made meanwhile (see the
    /// type's invariants).
    private func set(_ setting: Setting) {
        var setting = setting
        while true {
            if let wake = setting.wake {
                let (seconds, attoseconds) = max(.zero, wake - .now).components
                let delay = Double(seconds) + Double(attoseconds) / 1e18
                #if canImport(Darwin)
                // Wall time goes on while the device sleeps, as the continuous clock does.
                timer.schedule(wallDeadline: .now() + delay, leeway: .milliseconds(1))
                #else
                timer.schedule(deadline: .now() + delay, leeway: .milliseconds(1))
                #endif
            } else {
                timer.schedule(deadline: .distantFuture)
            }
            let newer = state.withLock { state -> Setting? in
                state.generation == setting.generation ? nil : Setting(wake: state.wake, generation: state.generation)
            }
            guard let newer else { return }
            setting = newer
        }
    }

    /// An alarm that came due: its slot, its serial, and itself.
    private struct Due {
        let slot: Int
        let serial: UInt64
        let alarm: any ClockAlarm
    }

    /// The timer fired: rings what is due, keeps what asks to ring again, and sets the timer to
    /// the earliest alarm left.
    private func fire() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [Due] in
            var due: [Due] = []
            while let top = state.earliest(), top.instant <= now {
                state.heap.pop()
                if let slot = state.slots[top.slot] { due.append(Due(slot: top.slot, serial: slot.serial, alarm: slot.alarm)) }
            }
            return due
        }
        let again = due.map { $0.alarm.ring(at: now) }
        let (done, setting) = state.withLock { state -> ([any ClockAlarm], Setting) in
            var done: [any ClockAlarm] = []
            for (entry, instant) in zip(due, again) {
                // Cancelled while it rang: nothing to keep.
                guard state.slots[entry.slot]?.serial == entry.serial else { continue }
                if let instant {
                    state.slots[entry.slot]?.instant = instant
                    state.heap.push(InstantHeap.Entry(instant: instant, slot: entry.slot, serial: entry.serial))
                } else if let alarm = state.remove(entry.slot) {
                    done.append(alarm)
                }
            }
            return (done, state.newWake(state.earliest()?.instant))
        }
        releaseUnlocked(done)
        set(setting)
    }
}

// MARK: - InstantHeap

/// A binary min-heap of instants, each with the alarm slot it belongs to.
struct InstantHeap {
    struct Entry {
        let instant: ContinuousClock.Instant
        let slot: Int
        let serial: UInt64
    }

    private var items: [Entry] = []

    var count: Int { items.count }

    var top: Entry? { items.first }

    mutating func push(_ entry: Entry) {
        items.append(entry)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].instant < items[parent].instant else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left].instant < items[smallest].instant { smallest = left }
            if right < items.count, items[right].instant < items[smallest].instant { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }

    /// Keeps the entries `isKept` accepts, in place (its storage kept).
    mutating func keep(where isKept: (Entry) -> Bool) {
        let kept = items.filter(isKept)
        items.removeAll(keepingCapacity: true)
        for entry in kept { push(entry) }
    }
}
