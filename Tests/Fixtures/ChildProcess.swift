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
    /// - Returns: Its status and output.
    /// - Throws: The error `Process.run()` throws when the program cannot start, the error
    ///   opening or writing `input`, or `CocoaError(.fileWriteOutOfSpace)` for piped bytes
    ///   beyond ``pipeCapacity``.
    public static func run(
        _ executable: URL,
        arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        input: Input = .nullDevice,
        mergingStandardError: Bool = false
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
                continuation.resume(returning: Output(status: process.terminationStatus, stdout: stdout, stderr: errors.data))
            }
        }
        await ChildSlots.shared.release()
        return output
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
