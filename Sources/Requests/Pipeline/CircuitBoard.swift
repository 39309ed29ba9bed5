import Foundation

// MARK: - CircuitBoard

/// The circuits of one ``CircuitBreaker``, one per origin, and the decisions on them.
///
/// Invariants, under the lock: an origin without an entry is closed with nothing counted; an
/// open circuit's `until` is when it lets a probe through; a half-open circuit has exactly one
/// probe admitted and not yet recorded (it leaves that state only when that probe is recorded).
/// Sections only read and write these values: the events they decide are returned.
final class CircuitBoard: Sendable {
    /// What the breaker does with a call.
    enum Admission: Equatable {
        /// Send it; `probe` when it is the half-open circuit's one probe.
        case pass(probe: Bool)
        /// Fail it at once, with this detail.
        case reject(String)
    }

    private enum Circuit {
        case closed(consecutive: Int, counts: SlicedCounts)
        case open(until: ContinuousClock.Instant, reason: String)
        case halfOpen(reason: String)
    }

    private let threshold: CircuitBreaker.Threshold
    private let probeAfter: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let start: ContinuousClock.Instant
    private let circuits = Guarded([String: Circuit]())

    init(threshold: CircuitBreaker.Threshold, probeAfter: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.threshold = threshold
        self.probeAfter = probeAfter
        self.now = now
        self.start = now()
    }

    /// Decides whether a call to `key` goes; a circuit whose wait is over half-opens.
    func admit(_ key: String) -> (Admission, [ResilienceEvent]) {
        let now = now()
        let probeAfter = probeAfter
        return circuits.withLock { circuits in
            switch circuits[key] {
            case nil, .closed:
                return (.pass(probe: false), [])
            case .open(let until, let reason) where now >= until:
                circuits[key] = .halfOpen(reason: reason)
                return (.pass(probe: true), [ResilienceEvent(.circuitHalfOpen, origin: key, detail: "probing \(key) after \(probeAfter.phrase) open (\(reason))")])
            case .open(let until, let reason):
                let left = (until - now).phrase
                return (.reject("the circuit of \(key) is open: \(reason); it probes in \(left)"), [])
            case .halfOpen(let reason):
                return (.reject("the circuit of \(key) is half-open: \(reason); one probe is under way"), [])
            }
        }
    }

    /// Counts a call's outcome (`failed` is `nil` for a cancelled call); returns the changes of state.
    func record(_ key: String, probe: Bool, failed: Bool?, reason: String) -> [ResilienceEvent] {
        let now = now()
        let (threshold, probeAfter, start) = (threshold, probeAfter, start)
        return circuits.withLock { circuits -> [ResilienceEvent] in
            if probe {
                guard case .halfOpen(let before) = circuits[key] else { return [] }
                switch failed {
                case nil:
                    // A cancelled probe proved nothing: the next call probes.
                    circuits[key] = .open(until: now, reason: before)
                    return []
                case false?:
                    circuits[key] = nil
                    return [ResilienceEvent(.circuitClosed, origin: key, detail: "the probe of \(key) succeeded (\(reason))")]
                case true?:
                    let why = "the probe failed (\(reason))"
                    circuits[key] = .open(until: now + probeAfter, reason: why)
                    return [ResilienceEvent(.circuitOpened, origin: key, detail: "\(why); probing again in \(probeAfter.phrase)")]
                }
            }
            guard let failed else { return [] }
            var consecutive = 0
            var counts = SlicedCounts()
            switch circuits[key] {
            case nil: break
            case .closed(let run, let kept): (consecutive, counts) = (run, kept)
            // A call let through before the circuit opened: what it says is already known.
            case .open, .halfOpen: return []
            }
            consecutive = failed ? consecutive + 1 : 0
            var why: String?
            switch threshold {
            case .consecutiveFailures(let limit):
                if consecutive >= limit { why = "\(consecutive) failures in a row (last: \(reason))" }
            case .failureRate(let rate, let minimum, let window):
                let slice = Int(max(0, (now - start).seconds / (window.seconds / Double(SlicedCounts.sliceCount))))
                counts.add(at: slice, first: 1, second: failed ? 1 : 0)
                let (calls, failures) = counts.totals(at: slice)
                if failed, calls >= minimum, Double(failures) >= rate * Double(calls) {
                    why = "\(failures) of \(calls) calls failed in \(window.phrase) (last: \(reason))"
                }
            }
            guard let why else {
                circuits[key] = failed || consecutive > 0 || counts.hasAny ? .closed(consecutive: consecutive, counts: counts) : nil
                return []
            }
            circuits[key] = .open(until: now + probeAfter, reason: why)
            return [ResilienceEvent(.circuitOpened, origin: key, detail: "\(why); probing in \(probeAfter.phrase)")]
        }
    }

    /// `closed`, `open` or `half-open`.
    func state(_ key: String) -> String {
        circuits.withLock { circuits in
            switch circuits[key] {
            case nil, .closed: "closed"
            case .open: "open"
            case .halfOpen: "half-open"
            }
        }
    }
}

// MARK: - SlicedCounts

/// Two counts over a sliding window, kept in ten slices: a count older than the window drops out
/// slice by slice. Slice `n` is the time from the owner's start plus `n` slice widths; `numbers[i]`
/// names the slice whose counts slot `i` holds, and one older than the newest ten counts as zero.
struct SlicedCounts {
    static let sliceCount = 10

    private var numbers = [Int](repeating: -1, count: SlicedCounts.sliceCount)
    private var first = [Int](repeating: 0, count: SlicedCounts.sliceCount)
    private var second = [Int](repeating: 0, count: SlicedCounts.sliceCount)

    /// Adds to the counts of `slice`, the newest.
    mutating func add(at slice: Int, first: Int = 0, second: Int = 0) {
        let index = slice % Self.sliceCount
        if numbers[index] != slice {
            numbers[index] = slice
            self.first[index] = 0
            self.second[index] = 0
        }
        self.first[index] += first
        self.second[index] += second
    }

    /// The counts of the slices inside the window that ends with `slice`.
    func totals(at slice: Int) -> (Int, Int) {
        var totals = (0, 0)
        for index in 0..<Self.sliceCount where numbers[index] > slice - Self.sliceCount && numbers[index] <= slice {
            totals.0 += first[index]
            totals.1 += second[index]
        }
        return totals
    }

    /// Whether any slot holds a slice.
    var hasAny: Bool { numbers.contains { $0 >= 0 } }
}
