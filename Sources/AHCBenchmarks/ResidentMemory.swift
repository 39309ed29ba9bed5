#if AsyncHTTPClient
import Foundation

#if canImport(Darwin)
/// The task's own port, asked for once: Swift 6 refuses `mach_task_self_`, a mutable C global,
/// on SDKs older than macOS 15.4.
private let taskPort = task_self_trap()
#endif

// MARK: - ResidentMemory

/// The process's resident memory: now, and the peak since the last ``resetPeak()``.
///
/// On Linux both come from `/proc/self/status` (`VmRSS`, `VmHWM`), and the peak is reset through
/// `/proc/self/clear_refs`, so each row reports the peak reached while it ran. On Apple platforms
/// the kernel's task information gives the resident size, and the peak is the process's lifetime
/// maximum (an upper bound). Elsewhere nothing is measured and the rows say so.
enum ResidentMemory {
    /// The resident size in bytes, or `nil` where it is not measured.
    static func current() -> Int? {
        #if canImport(Darwin)
        return basicInfo().map { Int($0.resident_size) }
        #else
        return statusField("VmRSS:")
        #endif
    }

    /// Starts a new peak at the current resident size, where the platform allows it.
    static func resetPeak() {
        #if !canImport(Darwin)
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        #endif
    }

    /// The peak resident size in bytes since the last ``resetPeak()``, or `nil` where it is not
    /// measured.
    static func peak() -> Int? {
        #if canImport(Darwin)
        return basicInfo().map { Int($0.resident_size_max) }
        #else
        return statusField("VmHWM:")
        #endif
    }

    /// `bytes` as MiB with one decimal, or "not measured".
    static func format(_ bytes: Int?) -> String {
        guard let bytes else { return "not measured" }
        return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// A change of size as signed MiB with two decimals, or "not measured".
    static func formatChange(_ bytes: Int?) -> String {
        guard let bytes else { return "not measured" }
        return String(format: "%+.2f MiB", Double(bytes) / 1_048_576)
    }

    #if canImport(Darwin)
    private static func basicInfo() -> mach_task_basic_info? {
        var info = mach_task_basic_info()
        var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
        let result = withUnsafeMutablePointer(to: &info) { pointer in
            pointer.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                task_info(taskPort, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
            }
        }
        return result == KERN_SUCCESS ? info : nil
    }
    #else
    /// A size line of `/proc/self/status`, such as `VmRSS:`, in bytes; `nil` without `/proc`.
    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1_024
    }
    #endif
}
#endif
