import Foundation
import ParameterEncoding

// MARK: - Report

/// The rows as JSON, for `--json PATH`: one object per row, times in nanoseconds, written with
/// this package's own `JSONEncoding`.
enum Report {
    static func data(_ rows: [Row], quick: Bool) throws -> Data {
        let entries: [Parameters] = rows.map { row in
            var entry: Parameters = [
                "group": row.group,
                "name": row.name,
                "oursNanosecondsPerOperation": row.ours,
                "baselineName": row.baselineName,
            ]
            entry["baselineNanosecondsPerOperation"] = row.baseline
            entry["ratio"] = row.ratio
            entry["target"] = row.target.isEmpty ? nil : row.target
            entry["targetMet"] = row.targetMet
            entry["peakMemoryBytes"] = row.peakMemory
            entry["extraMemoryBytes"] = row.extraMemory
            entry["outputBytes"] = row.outputBytes
            entry["figures"] = row.figures.isEmpty ? nil : row.figures
            switch row.throughput {
            case .bytes(let bytes) where bytes > 0: entry["megabytesPerSecond"] = Double(bytes) / row.ours * 1e3
            case .operations: entry["operationsPerSecond"] = 1e9 / row.ours
            default: break
            }
            return entry
        }
        var host = utsname()
        uname(&host)
        let machine = withUnsafeBytes(of: host.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let report: Parameters = [
            "rows": entries,
            "quick": quick,
            "date": ISO8601DateFormatter().string(from: Date()),
            "processors": ProcessInfo.processInfo.activeProcessorCount,
            "architecture": machine,
            "operatingSystem": ProcessInfo.processInfo.operatingSystemVersionString,
        ]
        return try JSONEncoding.prettyPrinted.data(for: report)
    }
}
