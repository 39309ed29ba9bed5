import Foundation

// MARK: - Targets

extension Row {
    /// One of the row's targets (`≥ 5x`, `< 20 µs`, `peak < 64 MiB`, `extra ≤ 2x output`, a named
    /// figure such as `load ≤ 1.2x` or `recovery < 1 s`), whether
    /// it was met, and what was measured, in the target's own unit.
    struct Outcome {
        let target: String
        let met: Bool?
        /// The measured value in the target's unit (`2.92x`, `17.81 µs`, `68.0 MiB`, `4.9x` the output).
        let measured: String?
        /// Whether the table shows the measured value in a column of its own (the ratio does).
        let inRatioColumn: Bool
    }

    /// The row's targets, in the order written (separated by commas).
    var outcomes: [Outcome] {
        target.split(separator: ",").map { outcome(of: $0.trimmingCharacters(in: .whitespaces)) }
    }

    private func outcome(of target: String) -> Outcome {
        let words = target.split(separator: " ")
        func number(_ text: Substring) -> Double? {
            Double(text.filter { $0.isNumber || $0 == "." })
        }
        switch words.count {
        case 2 where words[0] == "≥" && words[1].hasSuffix("x"):
            let goal = number(words[1])
            return Outcome(target: target, met: goal.flatMap { goal in ratio.map { $0 >= goal } },
                           measured: ratio.map(Table.format(ratio:)), inRatioColumn: true)
        case 3 where words[0] == "<" && words[2] == "µs":
            let goal = number(words[1])
            return Outcome(target: target, met: goal.map { ours < $0 * 1_000 },
                           measured: String(format: "%.2f µs", ours / 1_000), inRatioColumn: false)
        case 4 where words[0] == "peak" && words[1] == "<" && words[3] == "MiB":
            let goal = number(words[2])
            let met = goal.flatMap { goal in peakMemory.map { Double($0) < goal * 1_048_576 } }
            return Outcome(target: target, met: met, measured: peakMemory.map(PeakMemory.format), inRatioColumn: false)
        case 4 where words[0] == "extra" && words[1] == "≤" && words[3] == "output":
            // `extra ≤ 2x output`: the memory beyond the input at most twice the output's size.
            guard let goal = number(words[2]), let extraMemory, let outputBytes, outputBytes > 0 else {
                return Outcome(target: target, met: nil, measured: nil, inRatioColumn: false)
            }
            let times = Double(extraMemory) / Double(outputBytes)
            return Outcome(target: target, met: times <= goal, measured: String(format: "%.1fx", times), inRatioColumn: false)
        case 3 where ["≤", "<"].contains(words[1]) && words[2].hasSuffix("x"),
             4 where ["≤", "<"].contains(words[1]) && words[3] == "s":
            // `load ≤ 1.2x`, `recovery < 1 s`: one of the row's named figures.
            let name = String(words[0])
            guard let goal = number(words[2]), let value = figures[name] else {
                return Outcome(target: target, met: nil, measured: nil, inRatioColumn: false)
            }
            let met = words[1] == "≤" ? value <= goal : value < goal
            func shown(_ value: Double) -> String {
                words.count == 3 ? String(format: "%.2fx", value) : String(format: "%.2f s", value)
            }
            let measured = shown(value) + (figures["baseline \(name)"].map { " (baseline \(shown($0)))" } ?? "")
            return Outcome(target: target, met: met, measured: measured, inRatioColumn: false)
        default:
            return Outcome(target: target, met: nil, measured: nil, inRatioColumn: false)
        }
    }

    /// Whether the row met its targets: all of them (`true`), one missed (`false`); `nil` without
    /// a target, or with one this reading does not know.
    var targetMet: Bool? {
        let results = outcomes.map(\.met)
        if results.isEmpty || results.contains(where: { $0 == nil }) { return nil }
        return !results.contains(false)
    }
}

// MARK: - Table

/// The table the README's `swift run -c release Benchmarks` prints: the legend first, then one
/// heading per group and a line per row, no line wider than ``width``.
enum Table {
    /// The widest line the table prints.
    static let width = 120
    /// The widest a row's name may be, indented under its heading.
    static let nameWidth = 36
    /// The widest a baseline's name may be.
    static let baselineWidth = 25

    static let legend = [
        "Each row times one operation of ours and of its baseline, both measured in this run (a --quick run is noisier).",
        "ratio: the baseline's time / ours, higher is better (2.00x: ours takes half the time).",
        "target: what the row must meet, with ✓ met or ✗ missed, and the measured value when no column shows it.",
    ]

    static func print(_ rows: [Row]) {
        lines(rows).forEach { Swift.print($0) }
    }

    /// Every line of the table: the legend, the header, the groups' rows, and what was missed.
    static func lines(_ rows: [Row]) -> [String] {
        let header = ["", "ours / op", "throughput", "ratio", "baseline", "target"]
        var cells: [(heading: String, cells: [String], targets: [String])] = []
        for row in rows {
            let (heading, name) = split("\(row.group): \(row.name)")
            cells.append((heading, [
                "  " + shortened(name, to: nameWidth - 2),
                format(nanoseconds: row.ours),
                throughput(row),
                row.ratio.map(format(ratio:)) ?? "-",
                shortened(row.baselineName, to: baselineWidth),
            ], row.outcomes.map(cell)))
        }
        var widths = header.indices.dropLast().map { column in
            ([header] + cells.map(\.cells)).map { $0[column].count }.max() ?? 0
        }
        widths[0] = max(widths[0], cells.map(\.heading.count).max() ?? 0)
        widths[0] = min(widths[0], nameWidth)
        let targetColumn = widths.reduce(0, +) + widths.count * 2
        func render(_ cells: [String], target: String) -> String {
            let columns = cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index == 0 || index == 4 ? cell + pad : pad + cell
            }
            let line = (columns + [target]).joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }

        var lines = legend + [""]
        lines.append(render(header.dropLast().map { $0 }, target: header.last ?? ""))
        lines.append(String(repeating: "-", count: min(width, targetColumn + 24)))
        var lastHeading: String?
        for entry in cells {
            if entry.heading != lastHeading {
                lines.append(shortened(entry.heading, to: width))
                lastHeading = entry.heading
            }
            // Several targets: one a line, the first beside the row; a measured value that does
            // not fit beside its target goes on the next line.
            let room = width - targetColumn
            let targets = (entry.targets.isEmpty ? [""] : entry.targets).flatMap { cell -> [String] in
                guard cell.count > room, let mark = cell.range(of: " ✓ ") ?? cell.range(of: " ✗ ") else { return [cell] }
                return [String(cell[..<mark.upperBound].dropLast()), "  " + String(cell[mark.upperBound...])]
            }
            lines.append(render(entry.cells, target: targets[0]))
            for more in targets.dropFirst() {
                lines.append(String(repeating: " ", count: targetColumn) + more)
            }
        }
        lines += summary(rows)
        return lines.map { shortened($0, to: width) }
    }

    /// `group: name` split at its last `": "`: the heading, and the name under it.
    static func split(_ label: String) -> (heading: String, name: String) {
        guard let range = label.range(of: ": ", options: .backwards) else { return (label, label) }
        return (String(label[..<range.lowerBound]), String(label[range.upperBound...]))
    }

    /// The target, ✓ or ✗, and what was measured when no column shows it.
    static func cell(_ outcome: Row.Outcome) -> String {
        let mark = outcome.met.map { $0 ? " ✓" : " ✗" } ?? ""
        let measured = outcome.inRatioColumn ? nil : outcome.measured
        return outcome.target + mark + (measured.map { " \($0)" } ?? "")
    }

    /// The rows that missed a target, each with what was measured in the target's unit.
    static func summary(_ rows: [Row]) -> [String] {
        let withTarget = rows.filter { $0.targetMet != nil }
        let missed = rows.filter { $0.targetMet == false }
        guard !missed.isEmpty else { return ["", "\(withTarget.count) rows have a target; all met."] }
        var lines = ["", "\(missed.count) of \(withTarget.count) rows with a target missed it (a loaded machine moves timings: run again on a quiet one):"]
        for row in missed {
            let misses = row.outcomes.filter { $0.met == false }.map { "\($0.measured ?? "?") against \($0.target)" }
            lines.append("  \(row.group): \(row.name): " + misses.joined(separator: "; "))
        }
        return lines
    }

    /// `text`, cut to `limit` characters with an ellipsis when longer.
    static func shortened(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    static func throughput(_ row: Row) -> String {
        switch row.throughput {
        case .bytes(let bytes) where bytes > 0: String(format: "%.0f MB/s", Double(bytes) / row.ours * 1e3)
        case .operations: String(format: "%.0f/s", 1e9 / row.ours)
        default: "-"
        }
    }

    static func format(ratio: Double) -> String {
        String(format: ratio < 10 ? "%.2fx" : "%.1fx", ratio)
    }

    static func format(nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: String(format: "%.0f ns", nanoseconds)
        case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1e3)
        case ..<10_000_000_000: String(format: "%.2f ms", nanoseconds / 1e6)
        default: String(format: "%.2f s", nanoseconds / 1e9)
        }
    }
}
