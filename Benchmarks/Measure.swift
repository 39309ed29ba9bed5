import Foundation

// MARK: - Measure

/// Times one operation: warm-up, then batches sized to last a few milliseconds, median per op.
struct Measure {
    /// Samples per row and the target duration of one sample.
    let samples: Int
    let sampleDuration: Duration

    static let standard = Measure(samples: 15, sampleDuration: .milliseconds(20))
    static let quick = Measure(samples: 5, sampleDuration: .milliseconds(4))

    /// Median nanoseconds per call of `operation`.
    func nanosecondsPerOperation(_ operation: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        var plan = Plan(self)
        while let iterations = plan.nextBatch {
            let elapsed = try clock.measure { for _ in 0..<iterations { try operation() } }
            plan.record(elapsed)
        }
        return plan.median
    }

    /// Our operation and its baseline measured in alternating batches, so that both see the same
    /// machine state: a neighbour's load or a frequency change lands in one round, on both sides,
    /// instead of on whichever side happened to run during it.
    ///
    /// - Returns: The median nanoseconds per call of each, and the median of the rounds' ratios
    ///   (baseline / ours).
    func paired(ours: () throws -> Void, baseline: () throws -> Void) rethrows -> (ours: Double, baseline: Double, ratio: Double) {
        let clock = ContinuousClock()
        var oursPlan = Plan(self)
        var baselinePlan = Plan(self)
        // Warm up and size the batches of each side on its own.
        while !oursPlan.calibrated, let iterations = oursPlan.nextBatch {
            oursPlan.record(try clock.measure { for _ in 0..<iterations { try ours() } })
        }
        while !baselinePlan.calibrated, let iterations = baselinePlan.nextBatch {
            baselinePlan.record(try clock.measure { for _ in 0..<iterations { try baseline() } })
        }
        var ratios: [Double] = []
        while let oursIterations = oursPlan.nextBatch, let baselineIterations = baselinePlan.nextBatch {
            oursPlan.record(try clock.measure { for _ in 0..<oursIterations { try ours() } })
            baselinePlan.record(try clock.measure { for _ in 0..<baselineIterations { try baseline() } })
            if let oursTime = oursPlan.results.last, let baselineTime = baselinePlan.results.last {
                ratios.append(baselineTime / oursTime)
            }
        }
        return (oursPlan.median, baselinePlan.median, Measure.median(ratios))
    }

    /// ``paired(ours:baseline:)`` for async operations.
    ///
    /// - Returns: The median nanoseconds per call of each, and the median of the rounds' ratios
    ///   (baseline / ours).
    func paired(
        async ours: () async throws -> Void, baseline: () async throws -> Void
    ) async rethrows -> (ours: Double, baseline: Double, ratio: Double) {
        let clock = ContinuousClock()
        var oursPlan = Plan(self)
        var baselinePlan = Plan(self)
        func batch(_ iterations: Int, _ operation: () async throws -> Void) async rethrows -> Duration {
            let start = clock.now
            for _ in 0..<iterations { try await operation() }
            return clock.now - start
        }
        while !oursPlan.calibrated, let iterations = oursPlan.nextBatch {
            oursPlan.record(try await batch(iterations, ours))
        }
        while !baselinePlan.calibrated, let iterations = baselinePlan.nextBatch {
            baselinePlan.record(try await batch(iterations, baseline))
        }
        var ratios: [Double] = []
        while let oursIterations = oursPlan.nextBatch, let baselineIterations = baselinePlan.nextBatch {
            oursPlan.record(try await batch(oursIterations, ours))
            baselinePlan.record(try await batch(baselineIterations, baseline))
            if let oursTime = oursPlan.results.last, let baselineTime = baselinePlan.results.last {
                ratios.append(baselineTime / oursTime)
            }
        }
        return (oursPlan.median, baselinePlan.median, Measure.median(ratios))
    }

    /// Median nanoseconds per call of an async `operation`, measured like the synchronous one.
    func nanosecondsPerOperation(async operation: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        var plan = Plan(self)
        while let iterations = plan.nextBatch {
            let start = clock.now
            for _ in 0..<iterations { try await operation() }
            plan.record(clock.now - start)
        }
        return plan.median
    }

    /// The batches of one row: doubling warm-up batches until one lasts a quarter of a sample,
    /// then `samples` batches sized to last one sample each.
    private struct Plan {
        let measure: Measure
        var iterations = 1
        var calibrated = false
        var results: [Double] = []

        init(_ measure: Measure) {
            self.measure = measure
        }

        /// How many calls the next batch makes, or `nil` when the row is done.
        var nextBatch: Int? {
            results.count < measure.samples ? iterations : nil
        }

        mutating func record(_ elapsed: Duration) {
            let perCall = Measure.nanoseconds(elapsed) / Double(iterations)
            if calibrated {
                results.append(perCall)
            } else if elapsed >= measure.sampleDuration / 4 || iterations >= 1 << 24 {
                iterations = max(1, Int(Measure.nanoseconds(measure.sampleDuration) / max(perCall, 1)))
                calibrated = true
            } else {
                iterations *= 2
            }
        }

        var median: Double {
            Measure.median(results)
        }
    }

    /// The middle value (the upper one of an even count).
    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}

/// Keeps the optimizer from discarding a result.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

// MARK: - Row

/// One line of the table: our operation against its baseline, both measured in this run.
struct Row {
    /// What the throughput column shows.
    enum Throughput {
        /// Megabytes per second, from the bytes one operation produces.
        case bytes(Int)
        /// Operations (requests) per second.
        case operations
        case none
    }

    let group: String
    let name: String
    let baselineName: String
    let throughput: Throughput
    let ours: Double
    let baseline: Double?
    /// The target this row must meet, shown beside the ratio, e.g. `< 20 µs`.
    var target: String = ""
    /// A ratio measured round by round, when the row has one; otherwise baseline / ours.
    var pairedRatio: Double?
    /// The process's peak resident memory while our side of a large row ran, in bytes.
    var peakMemory: Int?
    /// How far the peak rose above the resident size before the row (which holds its input).
    var extraMemory: Int?
    /// The size of what one call of ours produces, for a target on ``extraMemory``.
    var outputBytes: Int?
    /// Named measurements a target can name (`load ≤ 1.2x`, `recovery < 1 s`): `load` in requests
    /// per call, `recovery` in seconds. `baseline <name>` is the baseline's, shown beside ours.
    var figures: [String: Double] = [:]

    var ratio: Double? { pairedRatio ?? baseline.map { $0 / ours } }
}
