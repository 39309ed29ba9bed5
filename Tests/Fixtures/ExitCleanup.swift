import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ExitCleanup

/// What the TLS fixtures (``TLSServer``, ``TLSCertificates``) leave for the end of the test process: temporary directories to remove
/// and child servers to terminate, done by an `atexit` handler.
///
/// The servers also exit by themselves when their standard input closes, which the end of this
/// process does in any case (a crash included); terminating them here makes the end immediate.
public enum ExitCleanup {
    private static let registry = Registry()

    /// Removes `directory` and everything in it when the process exits.
    public static func removeAtExit(_ directory: URL) {
        registry.update { $0.directories.append(directory) }
    }

    /// Sends SIGTERM to `processID` when the process exits, unless ``forget(_:)`` came first.
    public static func terminateAtExit(_ processID: Int32) {
        registry.update { $0.processIDs.insert(processID) }
    }

    /// A child that was stopped already.
    public static func forget(_ processID: Int32) {
        registry.update { $0.processIDs.remove(processID) }
    }

    /// The `atexit` handler: terminates the children, then removes the directories.
    private static func run() {
        let (directories, processIDs) = registry.update { state in
            defer { state = Registry.State(installed: true) }
            return (state.directories, state.processIDs)
        }
        for processID in processIDs {
            kill(processID, SIGTERM)
        }
        for directory in directories {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The lists, and whether the handler is installed, under one lock; the handler is installed
    /// with the first entry.
    private final class Registry: @unchecked Sendable {
        struct State {
            var installed = false
            var directories: [URL] = []
            var processIDs: Set<Int32> = []
        }

        private let lock = NSLock()
        private var state = State()

        @discardableResult
        func update<T>(_ body: (inout State) -> T) -> T {
            lock.lock()
            let install = !state.installed
            state.installed = true
            let result = body(&state)
            lock.unlock()
            if install {
                atexit { ExitCleanup.run() }
            }
            return result
        }
    }
}
