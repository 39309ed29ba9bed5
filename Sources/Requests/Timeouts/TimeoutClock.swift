import Foundation

// MARK: - TimeoutClock

/// The one clock behind every timeout of the package: a call's deadline, the idle limit of a
/// wait on the transport and a streamed body's silence are each an alarm here, and one task
/// sleeps until the earliest alarm and runs those that are due.
///
/// A call pays a lock and a heap insertion for an alarm, and a lock to cancel it: no task or
/// timer of its own. A new sleeper starts only when an alarm comes due before every other (the
/// first one, or a shorter limit than those pending); otherwise the sleeping task picks it up.
///
/// An alarm may answer a later instant instead of firing: a wait that has moved on (the body sent
/// a chunk since) asks to be looked at again then, so that the waits that move all the time cost
/// nothing until they could have run out.
///
/// Invariants, under the lock:
/// - `alarms` holds the alarms not cancelled and not done; a heap entry is current only while its
///   alarm is pending at that instant (older entries are skipped, and pruned when they pile up);
/// - `wake` is the instant the sleeper of `generation` sleeps until, `nil` when none sleeps;
/// - alarms run outside the lock, on the sleeper's task, and must not block.
final class TimeoutClock: Sendable {
    /// What an alarm does when its time comes.
    ///
    /// - Parameter now: The clock's reading.
    /// - Returns: A later instant to be run again at, or `nil` when the alarm is done.
    typealias Alarm = @Sendable (_ now: ContinuousClock.Instant) -> ContinuousClock.Instant?

    /// An alarm's name, for ``cancel(_:)``.
    struct Key: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    /// The clock every session uses.
    static let shared = TimeoutClock()

    private struct Pending {
        var instant: ContinuousClock.Instant
        let alarm: Alarm
    }

    private struct State {
        var alarms: [UInt64: Pending] = [:]
        var heap = InstantHeap()
        var nextID: UInt64 = 0
        var wake: ContinuousClock.Instant?
        var generation: UInt64 = 0
        var sleeper: Task<Void, Never>?

        /// The earliest current heap entry, dropping stale ones on the way.
        mutating func earliest() -> (instant: ContinuousClock.Instant, id: UInt64)? {
            while let top = heap.top {
                if alarms[top.id]?.instant == top.instant { return top }
                heap.pop()
            }
            return nil
        }

        /// Keeps `instant` for alarm `id`; answers the generation of a sleeper to start when it
        /// is earlier than the one asleep, with the sleeper it replaces.
        mutating func arm(_ id: UInt64, at instant: ContinuousClock.Instant) -> (generation: UInt64, replaced: Task<Void, Never>?)? {
            heap.push(instant, id)
            guard wake.map({ instant < $0 }) ?? true else { return nil }
            wake = instant
            generation &+= 1
            return (generation, sleeper.take())
        }
    }

    private let state = Guarded(State())

    /// Runs `alarm` at `instant`, and again at the instant it answers, until it answers `nil` or
    /// is cancelled.
    ///
    /// - Parameters:
    ///   - instant: When to run it.
    ///   - alarm: What to run; it must not block.
    /// - Returns: The alarm's key, for ``cancel(_:)``.
    @discardableResult
    func schedule(at instant: ContinuousClock.Instant, _ alarm: @escaping Alarm) -> Key {
        let (id, start) = state.withLock { state in
            state.nextID &+= 1
            state.alarms[state.nextID] = Pending(instant: instant, alarm: alarm)
            return (state.nextID, state.arm(state.nextID, at: instant))
        }
        if let start { startSleeper(start.generation, replacing: start.replaced) }
        return Key(id: id)
    }

    /// Drops an alarm that has not run (or asked to run again); nothing happens when it is done.
    ///
    /// - Parameter key: The alarm's key.
    func cancel(_ key: Key) {
        let removed = state.withLock { state -> Pending? in
            let removed = state.alarms.removeValue(forKey: key.id)
            if state.heap.count > 2 * state.alarms.count + 64 {
                state.heap = InstantHeap(state.alarms.map { ($0.value.instant, $0.key) })
            }
            return removed
        }
        // The alarm's closure may hold what a `deinit` acts on: released after the lock.
        releaseUnlocked(removed)
    }

    /// How many alarms are pending (for tests).
    var pendingCount: Int {
        state.withLock { $0.alarms.count }
    }

    private func startSleeper(_ generation: UInt64, replacing replaced: Task<Void, Never>?) {
        replaced?.cancel()
        let sleeper = Task { await self.run(generation) }
        let superseded = state.withLock { state -> Bool in
            guard state.generation == generation else { return true }
            state.sleeper = sleeper
            return false
        }
        if superseded { sleeper.cancel() }
    }

    /// The sleeper of one generation: sleeps until `wake`, runs what is due, and goes on while
    /// alarms are pending and no earlier one has replaced it.
    private func run(_ generation: UInt64) async {
        while let wake = state.withLock({ $0.generation == generation ? $0.wake : nil }) {
            do {
                try await Task.sleep(until: wake, clock: .continuous)
            } catch {
                return
            }
            let now = ContinuousClock.now
            let due = state.withLock { state -> [(id: UInt64, alarm: Alarm)]? in
                guard state.generation == generation else { return nil }
                var due: [(id: UInt64, alarm: Alarm)] = []
                while let top = state.earliest(), top.instant <= now {
                    state.heap.pop()
                    if let pending = state.alarms[top.id] { due.append((top.id, pending.alarm)) }
                }
                return due
            }
            guard let due else { return }
            var later: [UInt64: ContinuousClock.Instant] = [:]
            for (id, alarm) in due {
                if let instant = alarm(now) { later[id] = instant }
            }
            let (done, starts) = state.withLock { state -> ([Pending], [(generation: UInt64, replaced: Task<Void, Never>?)]) in
                var done: [Pending] = []
                var starts: [(generation: UInt64, replaced: Task<Void, Never>?)] = []
                let current = state.generation == generation
                for (id, _) in due {
                    // Cancelled while it ran: nothing to keep.
                    guard let pending = state.alarms[id] else { continue }
                    if let instant = later[id] {
                        state.alarms[id]?.instant = instant
                        if current {
                            state.heap.push(instant, id)
                        } else if let start = state.arm(id, at: instant) {
                            // An earlier alarm replaced this sleeper meanwhile; the new one
                            // must see this alarm too.
                            starts.append(start)
                        }
                    } else {
                        done.append(pending)
                        state.alarms[id] = nil
                    }
                }
                if current {
                    state.wake = state.earliest()?.instant
                    if state.wake == nil { state.sleeper = nil }
                }
                return (done, starts)
            }
            for start in starts { startSleeper(start.generation, replacing: start.replaced) }
            releaseUnlocked(done)
        }
    }
}

// MARK: - InstantHeap

/// A binary min-heap of instants, each with the alarm it belongs to.
struct InstantHeap {
    private var items: [(instant: ContinuousClock.Instant, id: UInt64)] = []

    init() {}

    init(_ entries: [(ContinuousClock.Instant, UInt64)]) {
        for (instant, id) in entries { push(instant, id) }
    }

    var count: Int { items.count }

    var top: (instant: ContinuousClock.Instant, id: UInt64)? { items.first }

    mutating func push(_ instant: ContinuousClock.Instant, _ id: UInt64) {
        items.append((instant, id))
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
}
