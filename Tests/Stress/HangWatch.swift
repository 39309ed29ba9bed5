import Foundation
import Requests

// MARK: - HangWatch

/// Watches a stress run from a thread of its own: when no operation has finished for `limit`, it
/// prints the operations in flight (with the seeds that replay them) and every thread's stack
/// (gdb), and ends the process with status 2.
final class HangWatch: Sendable {
    struct Running: Sendable {
        let operation: Operation
        let target: String
        let seed: UInt64
        let start: ContinuousClock.Instant
    }

    /// Invariant: `running` holds exactly the operations started and not finished.
    private let state = Guarded<(last: ContinuousClock.Instant, running: [Int: Running], finished: Int)>((.now, [:], 0))
    let limit: Duration

    init(limit: Duration) {
        self.limit = limit
    }

    func started(_ id: Int, _ running: Running) {
        state.withLock { $0.running[id] = running }
    }

    func finished(_ id: Int) {
        state.withLock { state in
            state.running[id] = nil
            state.last = .now
            state.finished += 1
        }
    }

    var finishedCount: Int { state.withLock { $0.finished } }

    /// Starts watching.
    func start() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                let (last, running) = state.withLock { ($0.last, $0.running) }
                guard ContinuousClock.now - last >= limit else { continue }
                report(running)
                exit(2)
            }
        }
        thread.start()
    }

    private func report(_ running: [Int: Running]) {
        var lines = ["HANG: no operation finished for \(limit); \(running.count) in flight:"]
        let now = ContinuousClock.now
        for (id, op) in running.sorted(by: { $0.key < $1.key }) {
            lines.append("  #\(id) \(op.operation.rawValue) on \(op.target), seed \(op.seed), running for \(now - op.start)")
        }
        print(lines.joined(separator: "\n"))
        // `exit` flushes what is printed.
        print(Self.stacks())
    }

    /// Every thread's stack, from gdb when it is installed.
    static func stacks() -> String {
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gdb.arguments = ["gdb", "-p", "\(ProcessInfo.processInfo.processIdentifier)", "-batch", "-ex", "thread apply all bt 40"]
        let output = Pipe()
        gdb.standardOutput = output
        gdb.standardError = output
        do {
            try gdb.run()
        } catch {
            return "(no stacks: gdb could not start: \(error))"
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        gdb.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
            .split(separator: "\n").filter { $0.hasPrefix("Thread") || $0.hasPrefix("#") }.joined(separator: "\n")
    }
}

// MARK: - Resources

/// What the process holds: resident memory and open file descriptors.
struct Resources: CustomStringConvertible {
    let residentBytes: Int
    let descriptors: Int

    static func now() -> Resources {
        var resident = 0
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { resident = pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        return Resources(residentBytes: resident, descriptors: descriptors)
    }

    var description: String {
        String(format: "%.1f MiB resident, %d descriptors", Double(residentBytes) / 1_048_576, descriptors)
    }
}
