import Foundation

// MARK: - ProgressBar

/// A one-line download progress bar for a terminal: bytes, percentage, rate and time left.
struct ProgressBar {
    let start: ContinuousClock.Instant

    /// The line for `received` of `total` bytes (total unknown: no percentage, no ETA).
    func line(received: Int64, total: Int64?, now: ContinuousClock.Instant = .now) -> String {
        let elapsed = max((now - start).seconds, 0.001)
        let rate = Double(received) / elapsed
        var text = Self.size(received)
        if let total, total > 0 {
            let fraction = min(1, Double(received) / Double(total))
            let width = 24
            let filled = Int(fraction * Double(width))
            text = "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
                + String(format: "%3d%% ", Int(fraction * 100)) + Self.size(received) + " / " + Self.size(total)
            let left = rate > 0 ? Double(total - received) / rate : 0
            text += "  " + Self.size(Int64(rate)) + "/s  ETA " + Self.clock(left)
        } else {
            text += "  " + Self.size(Int64(rate)) + "/s"
        }
        return text
    }

    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
