import Foundation

// MARK: - Guarded

/// A value behind a lock. Every access goes through ``withLock(_:)``, so the value is never
/// touched by two threads at once; a type that keeps its mutable state in `Guarded`s is
/// `Sendable` without `@unchecked`. (The package's `@unchecked Sendable` types are those whose
/// state an engine's callbacks or a single task confine, each saying so where it is declared.)
///
/// **The rule of every critical section: read and write the value, nothing else.** A section
/// never calls a closure, resumes a continuation, cancels a task or an engine, starts a task,
/// calls into `URLSession` or an event loop, reads or writes a file (or does any other I/O: a
/// spill file's writes are actions performed on its own queue), and never drops the last reference to an object whose `deinit`
/// does anything (a response body, a transfer handle, a closure holding either). It *returns*
/// what is to be done, and the caller does it after the lock is released:
///
/// ```swift
/// let effects = state.withLock { $0.receive(chunk) }   // decides, under the lock
/// perform(effects)                                     // acts, unlocked
/// ```
///
/// What a section takes out of the value to drop it must outlive the call: an optimised build
/// releases a value at its last use, so a result that is discarded (`_ = withLock { … }`), or
/// bound and never read, may be freed while the lock is still held, and a `deinit` that calls
/// back into the same lock then waits on itself for good. Hand such a result to
/// ``releaseUnlocked(_:)``, which keeps it alive until the lock is gone.
///
/// The lock is not recursive, and the Swift runtime holds a task's status lock while that task's
/// cancellation handlers run: a cancellation handler must not block either (it records the
/// cancellation and hands anything that may wait, such as `URLSessionTask.cancel()` on Linux, to
/// another thread).
package final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Creates a box holding a value.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs a closure with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Releases what a critical section took out of its state, here and not earlier: call it after
/// the lock is released, so that no `deinit` runs while the lock is held.
///
/// - Parameter taken: What the section returned to be dropped.
@inline(__always)
package func releaseUnlocked<T>(_ taken: consuming T) {
    // `withExtendedLifetime` keeps `taken` alive to here however the call is inlined.
    withExtendedLifetime(taken) {}
}
