import Foundation

// MARK: - Guarded

/// A value behind a lock: the one place in the package that is `@unchecked Sendable`.
///
/// Every access goes through ``withLock(_:)``, so the value is never touched by two threads at once.
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
