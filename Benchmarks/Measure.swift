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

    var ratio: Double? { pairedRatio ?? baseline.map { $0 / ours } }

    /// Whether the row met its target (`≥ 5x`, `peak < 64 MiB`, `< 20 µs`); `nil` without a
    /// target, or one this reading does not know.
    var targetMet: Bool? {
        // Several targets are separated by commas; the row meets them all or none.
        let results = target.split(separator: ",").map { met($0.trimmingCharacters(in: .whitespaces)) }
        if results.isEmpty || results.contains(where: { $0 == nil }) { return nil }
        return !results.contains(false)
    }

    private func met(_ target: String) -> Bool? {
        let words = target.split(separator: " ")
        func number(_ text: Substring) -> Double? {
            Double(text.filter { $0.isNumber || $0 == "." })
        }
        switch words.count {
        case 2 where words[0] == "≥" && words[1].hasSuffix("x"):
            guard let goal = number(words[1]), let ratio else { return nil }
            return ratio >= goal
        case 3 where words[0] == "<" && words[2] == "µs":
            guard let goal = number(words[1]) else { return nil }
            return ours < goal * 1_000
        case 4 where words[0] == "peak" && words[1] == "<" && words[3] == "MiB":
            guard let goal = number(words[2]), let peakMemory else { return nil }
            return Double(peakMemory) < goal * 1_048_576
        case 4 where words[0] == "extra" && words[1] == "≤" && words[3] == "output":
            // `extra ≤ 2x output`: the memory beyond the input at most twice the output's size.
            guard let goal = number(words[2]), let extraMemory, let outputBytes else { return nil }
            return Double(extraMemory) <= goal * Double(outputBytes)
        default:
            return nil
        }
    }
}

enum Table {
    static func print(_ rows: [Row]) {
        let header = ["benchmark", "ours / op", "throughput", "peak memory", "baseline", "baseline / op", "ratio", "target", "met"]
        let lines = rows.map { row -> [String] in
            [
                "\(row.group): \(row.name)",
                format(nanoseconds: row.ours),
                throughput(row),
                row.peakMemory.map { peak in
                    PeakMemory.format(peak) + (row.extraMemory.map { " (+\(PeakMemory.format($0)))" } ?? "")
                } ?? "-",
                row.baselineName,
                row.baseline.map(format(nanoseconds:)) ?? "-",
                row.ratio.map { String(format: $0 < 10 ? "%.2fx" : "%.1fx", $0) } ?? "-",
                row.target,
                row.targetMet.map { $0 ? "yes" : "MISSED" } ?? "",
            ]
        }
        let widths = header.indices.map { column in
            ([header] + lines).map { $0[column].count }.max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0 || index >= 7 || index == 4
                    ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
        }
        Swift.print(render(header))
        Swift.print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        lines.forEach { Swift.print(render($0)) }
        let missed = rows.filter { $0.targetMet == false }
        let targets = rows.filter { $0.targetMet != nil }.count
        if missed.isEmpty {
            Swift.print("\(targets) rows have a target; all met.")
        } else {
            Swift.print("\(missed.count) of \(targets) rows with a target MISSED it (a loaded machine moves timings: run again on a quiet one before believing it):")
            for row in missed {
                Swift.print("  \(row.group): \(row.name): \(row.ratio.map { String(format: "%.2fx", $0) } ?? format(nanoseconds: row.ours)), target \(row.target)")
            }
        }
    }

    static func throughput(_ row: Row) -> String {
        switch row.throughput {
        case .bytes(let bytes) where bytes > 0: String(format: "%.0f MB/s", Double(bytes) / row.ours * 1e3)
        case .operations: String(format: "%.0f ops/s", 1e9 / row.ours)
        default: "-"
        }
    }

    static func format(nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: String(format: "%.0f ns", nanoseconds)
        case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1e3)
        default: String(format: "%.2f ms", nanoseconds / 1e6)
        }
    }
}
