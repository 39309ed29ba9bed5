import Foundation
import Testing
@testable import Benchmarks

/// The table `swift run -c release Benchmarks` prints: legend first, no line over 120 columns,
/// and a missed target stated in its own unit.
@Suite struct TableTests {
    /// Rows shaped as the benchmarks make them, the longest names and every kind of target among them.
    static let rows: [Row] = [
        Row(group: "escape", name: "CJK/emoji 1 KiB", baselineName: "addingPercentEncoding", throughput: .bytes(1024),
            ours: 547, baseline: 26_090),
        Row(group: "Encodable, nested 150", name: "encode(to:) alone", baselineName: "JSONEncoder", throughput: .none,
            ours: 19_230, baseline: 142_660),
        Row(group: "shape", name: "array of 1000 objects: PropertyListEncoding binary", baselineName: "PropertyListSerialization",
            throughput: .bytes(56_000), ours: 1_390_000, baseline: 14_930_000, target: "≥ 8x"),
        Row(group: "shape", name: "deep 8 levels: JSONParameterEncoder POST", baselineName: "JSONEncoder",
            throughput: .bytes(2_800), ours: 80_260, baseline: 229_280, target: "≥ 3x"),
        Row(group: "scaling", name: "JSONEncoding, per pair of 1000000", baselineName: "1000 pairs, per pair",
            throughput: .none, ours: 583, baseline: 165, target: "≥ 0.4x, extra ≤ 2x output",
            peakMemory: 291 << 20, extraMemory: 95 << 20, outputBytes: 18_800_000),
        Row(group: "session", name: "in-memory, throttle+retry+auth+log", baselineName: "bare session", throughput: .operations,
            ours: 20_790, baseline: 17_370, target: "≥ 0.87x", pairedRatio: 0.83),
        Row(group: "session", name: "a name far longer than any column should be allowed to hold, on purpose",
            baselineName: "a baseline whose name is long too", throughput: .operations, ours: 123_456_789_012, baseline: 1,
            target: "< 20 µs"),
        Row(group: "upload", name: "multipart 64 MiB file, streamed", baselineName: "-", throughput: .bytes(64 << 20),
            ours: 13_826_000_000, baseline: nil, target: "peak < 64 MiB", peakMemory: Int(69.1 * 1_048_576)),
        Row(group: "upload", name: "a file far larger than memory", baselineName: "-", throughput: .bytes(1 << 30),
            ours: 9_000_000_000, baseline: nil, target: "peak < 64 MiB", peakMemory: Int(12_345.6 * 1_048_576)),
        Row(group: "stream", name: "stream chunks, 64 MiB, loopback", baselineName: "URLSession delegate",
            throughput: .bytes(64 << 20), ours: 123_970_000, baseline: 151_000_000, target: "peak < 64 MiB",
            peakMemory: 53 << 20),
    ]

    @Test func noLineIsWiderThan120Columns() {
        let lines = Table.lines(Self.rows)
        for line in lines {
            #expect(line.count <= 120, "\(line.count) columns: \(line)")
        }
        // Nothing measured is cut to fit: a value too wide for its line goes on the next one.
        let tableLines = lines.prefix { !$0.contains("rows with a target") && !$0.contains("rows have a target") }
        #expect(!tableLines.contains { $0.contains("…") && !$0.hasPrefix("  a name far longer") })
        let huge = lines.firstIndex { $0.hasPrefix("  a file far larger than memory") }
        #expect(huge.map { lines[$0].hasSuffix("peak < 64 MiB ✗") && lines[$0 + 1].hasSuffix("  12345.6 MiB") } == true)
    }

    @Test func aNamedFigureIsCheckedAndShownBesideTheBaselines() {
        var outage = Row(group: "resilience", name: "outage 30 s at 200 calls/s, budget", baselineName: "RetryPolicy alone",
                         throughput: .none, ours: 9_000_000, baseline: 23_000_000, target: "load ≤ 1.2x, recovery < 1 s")
        outage.figures = ["load": 1.16, "baseline load": 4, "recovery": 0]
        #expect(outage.outcomes.map(\.met) == [true, true])
        #expect(outage.outcomes.map(\.measured) == ["1.16x (baseline 4.00x)", "0.00 s"])
        outage.figures["load"] = 1.25
        #expect(outage.targetMet == false)
        let lines = Table.lines([outage])
        #expect(lines.contains("  resilience: outage 30 s at 200 calls/s, budget: 1.25x (baseline 4.00x) against load ≤ 1.2x"))
        // A figure the row does not have is a target this reading does not know.
        outage.figures = [:]
        #expect(outage.targetMet == nil)
    }

    @Test func theLegendComesFirst() {
        let lines = Table.lines(Self.rows)
        #expect(lines.first?.hasPrefix("Each row times one operation") == true)
        #expect(lines.prefix(3).contains { $0.hasPrefix("ratio: the baseline's time / ours") })
    }

    @Test func rowsSitUnderTheirGroupsHeading() {
        let lines = Table.lines(Self.rows)
        let heading = lines.firstIndex(of: "shape: array of 1000 objects")
        #expect(heading != nil)
        if let heading {
            #expect(lines[heading + 1].hasPrefix("  PropertyListEncoding binary"))
            #expect(lines[heading + 1].contains("10.7x"))
            #expect(lines[heading + 1].hasSuffix("≥ 8x ✓"))
        }
    }

    @Test func aMissedTargetIsStatedInItsOwnUnit() {
        let lines = Table.lines(Self.rows)
        // A memory miss gives the peak, not the row's time; a speed miss its ratio.
        let upload = lines.first { $0.hasPrefix("  multipart 64 MiB file") }
        #expect(upload?.hasSuffix("peak < 64 MiB ✗ 69.1 MiB") == true, "\(upload ?? "no line")")
        #expect(lines.contains("  upload: multipart 64 MiB file, streamed: 69.1 MiB against peak < 64 MiB"))
        #expect(lines.contains("  shape: deep 8 levels: JSONParameterEncoder POST: 2.86x against ≥ 3x"))
        // A memory target that was met reads as met, whatever the row's ratio.
        let stream = lines.first { $0.hasPrefix("  stream chunks") }
        #expect(stream?.contains("1.22x") == true)
        #expect(stream?.hasSuffix("peak < 64 MiB ✓ 53.0 MiB") == true, "\(stream ?? "no line")")
        // Two targets: one a line.
        let scaling = lines.firstIndex { $0.hasPrefix("  JSONEncoding, per pair of 1000000") }
        #expect(scaling != nil)
        if let scaling {
            #expect(lines[scaling].hasSuffix("≥ 0.4x ✗"))
            #expect(lines[scaling + 1].trimmingCharacters(in: .whitespaces) == "extra ≤ 2x output ✗ 5.3x")
        }
    }
}
