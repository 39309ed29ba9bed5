import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking or long work on a thread of its own and returns its result, so that it holds
/// none of the cooperative pool's threads (one per core) that the rest of a parallel run needs.
///
/// A small `stackSize` shows deep inputs stay within the stacks of threads other than the main
/// one. With `lowPriority`, the thread yields the CPU to everything else, so that seconds of work
/// (in a debug build) do not delay the timing-sensitive tests running beside it.
///
/// - Parameters:
///   - stackSize: The thread's stack, 8 MiB by default.
///   - lowPriority: Runs the thread only when nothing else wants the CPU.
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

/// Runs seconds of checking (the differential tests) on an idle-priority thread with a large
/// stack, so that it does not delay the timing-sensitive tests running in parallel.
///
/// - Parameter body: The work.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
public func inBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await onThread(stackSize: 8 << 20, lowPriority: true, body)
}

/// Gives the calling thread the lowest scheduling priority: Linux's `SCHED_IDLE` policy, which
/// runs it only when nothing else wants the CPU. Elsewhere the thread's quality of service does it.
private func lowerCurrentThreadPriority() {
    #if canImport(Glibc)
    var parameters = sched_param()
    parameters.sched_priority = 0
    let schedIdle: Int32 = 5  // SCHED_IDLE in <sched.h>, which Swift does not see without _GNU_SOURCE
    _ = pthread_setschedparam(pthread_self(), schedIdle, &parameters)
    #endif
}
