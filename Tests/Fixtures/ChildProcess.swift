import Foundation

// MARK: - ChildProcess

/// Runs a program to its end without holding a thread of Swift's cooperative pool.
///
/// `Process.waitUntilExit()` and reading a pipe to its end block their thread. In a parallel test
/// run on a two-core machine the cooperative pool has two threads, so a test that blocks one for
/// the life of a child process halves the pool, and every timing test beside it measures that.
/// Here the blocking reads run on their own threads and the caller waits in a continuation.
public enum ChildProcess {
    /// What a finished child left behind.
    public struct Output: Sendable {
        /// The exit status.
        public let status: Int32
        /// Everything it wrote to standard output.
        public let stdout: Data
        /// Everything it wrote to standard error (or nothing, when it went to standard output).
        public let stderr: Data
    }

    /// What a child reads on its standard input.
    public enum Input: Sendable {
        /// `/dev/null`: the child reads the end at once. The default, so that no child reads, or
        /// waits on, the test runner's own standard input (in CI often a pipe that never ends).
        case nullDevice
        /// A file, as `child < file` gives it: a regular file.
        case file(URL)
        /// Bytes in a pipe that has ended, as `printf … | child` gives them. At most
        /// ``pipeCapacity`` bytes: they are written into the pipe before the child starts, so a
        /// child that exits without reading them cannot leave the write waiting or break it.
        case pipe(Data)
    }

    /// The most bytes ``Input/pipe(_:)`` takes: a pipe's buffer on every platform here (macOS
    /// starts at 16 KiB, Linux at 64 KiB). Use ``Input/file(_:)`` for more.
    public static let pipeCapacity = 16 * 1024

    /// Runs `executable` and waits for it to exit.
    ///
    /// - Parameters:
    ///   - executable: The program.
    ///   - arguments: Its arguments.
    ///   - environment: Its whole environment, or `nil` for this process's.
    ///   - directory: Its working directory, or `nil` for this process's.
    ///   - input: What it reads on standard input; `/dev/null` by default.
    ///   - mergingStandardError: Sends standard error to the standard-output pipe.
    ///   - timeLimit: How long the child may run. A child still running then is stopped (its
    ///     threads' stacks printed first, with gdb where the machine has it) and ``TimedOut`` thrown,
    ///     so that a hung child fails its test instead of holding the whole run until CI's limit.
    /// - Returns: Its status and output.
    /// - Throws: The error `Process.run()` throws when the program cannot start, the error
    ///   opening or writing `input`, `CocoaError(.fileWriteOutOfSpace)` for piped bytes beyond
    ///   ``pipeCapacity``, or ``TimedOut`` when the child outlived `timeLimit`.
    public static func run(
        _ executable: URL,
        arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        input: Input = .nullDevice,
        mergingStandardError: Bool = false,
        timeLimit: Duration = .seconds(180)
    ) async throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = mergingStandardError ? out : err
        switch input {
        case .nullDevice:
            process.standardInput = FileHandle.nullDevice
        case .file(let url):
            process.standardInput = try FileHandle(forReadingFrom: url)
        case .pipe(let data):
            guard data.count <= pipeCapacity else {
                throw CocoaError(.fileWriteOutOfSpace, userInfo: [
                    NSLocalizedDescriptionKey: "\(data.count) bytes do not fit a pipe's buffer (\(pipeCapacity)); pass a file",
                ])
            }
            let pipe = Pipe()
            try pipe.fileHandleForWriting.write(contentsOf: data)
            try pipe.fileHandleForWriting.close()
            process.standardInput = pipe.fileHandleForReading
        }
        await ChildSlots.shared.acquire()
        do {
            try process.run()
        } catch {
            await ChildSlots.shared.release()
            throw error
        }
        let finished = DispatchSemaphore(value: 0)
        let watchdog = Watchdog(process: process, description: ([executable.path] + arguments).joined(separator: " "))
        Thread.detachNewThread {
            let seconds = Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
            if finished.wait(timeout: .now() + seconds) == .timedOut { watchdog.stop(after: seconds) }
        }
        let output = await withCheckedContinuation { (continuation: CheckedContinuation<Output, Never>) in
            // Both pipes are read to the end before waiting, so a large output cannot fill one.
            Thread.detachNewThread {
                let group = DispatchGroup()
                let errors = ErrorBox()
                if !mergingStandardError {
                    group.enter()
                    Thread.detachNewThread {
                        errors.data = err.fileHandleForReading.readDataToEndOfFile()
                        group.leave()
                    }
                }
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                group.wait()
                finished.signal()
                continuation.resume(returning: Output(status: process.terminationStatus, stdout: stdout, stderr: errors.data))
            }
        }
        await ChildSlots.shared.release()
        if let report = watchdog.report {
            throw TimedOut(report: report, output: output)
        }
        return output
    }

    /// A child that ran past its time limit and was stopped.
    public struct TimedOut: Error, CustomStringConvertible {
        /// What was running, for how long, and its threads' stacks.
        public let report: String
        /// What it wrote before it was stopped.
        public let output: Output

        public var description: String {
            "\(report)\nstdout: \(String(decoding: output.stdout.suffix(4000), as: UTF8.self))\nstderr: \(String(decoding: output.stderr.suffix(4000), as: UTF8.self))"
        }
    }

    /// Stops a child that outlived its limit: prints the stacks of it and its descendants, then
    /// kills them all.
    private final class Watchdog: @unchecked Sendable {
        private let process: Process
        private let description: String
        private let lock = NSLock()
        private var stored: String?

        init(process: Process, description: String) {
            self.process = process
            self.description = description
        }

        /// The report, once the child was stopped.
        var report: String? { lock.withLock { stored } }

        func stop(after seconds: Double) {
            let root = process.processIdentifier
            let pids = [root] + Self.descendants(of: root)
            var report = "still running after \(seconds) s, stopped: \(description)"
            for pid in pids {
                report += "\n--- pid \(pid): " + Self.commandLine(of: pid)
                report += "\n" + Self.stacks(of: pid)
            }
            lock.withLock { stored = report }
            FileHandle.standardError.write(Data(("ChildProcess: " + report + "\n").utf8))
            for pid in pids.reversed() { kill(pid, SIGKILL) }
        }

        /// Every process below `pid`, read from `/proc` (empty where there is none).
        private static func descendants(of pid: Int32) -> [Int32] {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
            var children: [Int32: [Int32]] = [:]
            for entry in entries {
                guard let child = Int32(entry),
                      let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, let parent = Int32(fields[1]) { children[parent, default: []].append(child) }
            }
            var result: [Int32] = []
            var queue = [pid]
            while let next = queue.popLast() {
                for child in children[next] ?? [] {
                    result.append(child)
                    queue.append(child)
                }
            }
            return result
        }

        private static func commandLine(of pid: Int32) -> String {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "?" }
            return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        }

        /// Every thread's stack, from gdb when the machine has it.
        private static func stacks(of pid: Int32) -> String {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return "(no gdb here for stacks)" }
            let gdb = Process()
            gdb.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            gdb.arguments = ["60", "/usr/bin/gdb", "-p", "\(pid)", "-batch", "-ex", "thread apply all bt 30"]
            let pipe = Pipe()
            gdb.standardOutput = pipe
            gdb.standardError = pipe
            gdb.standardInput = FileHandle.nullDevice
            guard (try? gdb.run()) != nil else { return "(gdb did not start)" }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            gdb.waitUntilExit()
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            return lines.filter { $0.hasPrefix("Thread") || $0.hasPrefix("#") }.joined(separator: "\n")
        }
    }

    /// Standard error, written by its reading thread before the group is left and read after.
    private final class ErrorBox: @unchecked Sendable {
        var data = Data()
    }
}

// MARK: - ChildSlots

/// At most ``limit`` children at once. A parallel test run starts every test together, and the
/// `req` tests alone would start about eighty processes in the same second: on two cores that
/// burst starved the test process itself for seconds, longer than the timeouts its own timing
/// tests check. Waiters go in the order they came.
actor ChildSlots {
    static let shared = ChildSlots(limit: 6)

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
