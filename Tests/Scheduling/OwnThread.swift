import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking or long work on a thread of its own and returns its result, so that it holds
/// none of the cooperative pool's threads (one per core) that the rest of a parallel run needs.
///
/// A small `stackSize` shows deep inputs stay within the stacks of threads other than the main
/// one. With `lowPriority`, the thread mostly yields the CPU to everything else, so that seconds
/// of work (in a debug build) do not delay the timing-sensitive tests running beside it.
///
/// - Parameters:
///   - stackSize: The thread's stack, 8 MiB by default.
///   - lowPriority: Runs the thread at a low priority (see `lowerCurrentThreadPriority`).
///   - body: The work.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
public func onThread<T: Sendable>(
    stackSize: Int = 8 << 20,
    lowPriority: Bool = false,
    _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            if lowPriority {
                lowerCurrentThreadPriority()
            }
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = stackSize
        if lowPriority {
            thread.qualityOfService = .background
        }
        thread.start()
    }
}

/// Runs seconds of checking (the differential tests) on a low-priority thread with a large
/// stack, so that it does not delay the timing-sensitive tests running in parallel.
///
/// - Parameter body: The work.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
public func inBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await onThread(stackSize: 8 << 20, lowPriority: true, body)
}

/// Lowers the calling thread's scheduling priority: on Linux to nice 10, where it gets about a
/// tenth of the CPU a normal thread gets when both want it. Elsewhere the thread's quality of
/// service does it.
///
/// Not `SCHED_IDLE`, which runs a thread only when nothing else wants the CPU: with both cores
/// busy (other processes, say), the checks on such threads did not finish in minutes, and the
/// whole suite took 17 minutes instead of 2. (On Linux a nice value is the calling thread's.)
private func lowerCurrentThreadPriority() {
    #if canImport(Glibc)
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    #endif
}
