import Foundation

// MARK: - PeakMemory

/// The process's peak resident memory, which the large rows report.
///
/// On Linux the peak (`VmHWM`) can be reset through `/proc/self/clear_refs`, so each large row
/// reports the peak reached while it ran. Elsewhere the peak is the process's lifetime maximum
/// (`getrusage`), which is still an upper bound.
enum PeakMemory {
    /// Starts a new peak at the current resident size, where the platform allows it.
    ///
    /// - Returns: The resident size the new peak starts from, in bytes; `nil` where the peak
    ///   cannot be reset.
    @discardableResult
    static func reset() -> Int? {
        #if os(Linux)
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        return statusField("VmRSS:")
        #else
        return nil
        #endif
    }

    /// The peak resident size in bytes since the last ``reset()`` (or since the process began).
    static func peak() -> Int? {
        #if os(Linux)
        return statusField("VmHWM:")
        #else
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss)  // bytes on Apple platforms
        #endif
    }

    /// `bytes` as MiB with one decimal.
    static func format(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    #if os(Linux)
    /// A size line of `/proc/self/status`, such as `VmRSS:` or `VmHWM:`, in bytes.
    static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1_024
    }
    #endif
}
