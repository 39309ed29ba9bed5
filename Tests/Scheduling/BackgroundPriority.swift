import Testing

/// Runs each test of a suite at background priority, so that pure computation yields the shared
/// thread pool to the tests that wait on time.
///
/// Swift Testing starts every test at once on the cooperative pool, which has one thread per
/// core. The pool serves its queue by priority, first come first served within one; at the same
/// priority, a timer that fires in a timing-sensitive test (a session's deadline, a cancel 200 ms
/// in) waits behind every computing test queued before it: seconds, on two cores. At background
/// priority those tests run only when nothing of the default priority is waiting.
///
/// The test is awaited through a continuation, not `Task.value`, which would raise the task back
/// to its waiter's priority while it runs. An unstructured `Task` inherits the test's task-local values, so
/// issues it records still belong to the test.
public struct BackgroundPriority: SuiteTrait, TestTrait, TestScoping {
    /// Applies to every test in the suite.
    public var isRecursive: Bool { true }

    /// Runs one test case at background priority and waits for it.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withoutActuallyEscaping(function) { body in
            var task: Task<Void, Never>?
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, any Error>, Never>) in
                task = Task(priority: .background) {
                    do {
                        try await body()
                        continuation.resume(returning: .success(()))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
            // The task releases the body before it counts as finished: wait for that, so that
            // the body has not escaped when this block ends.
            await task?.value
            try outcome.get()
        }
    }
}

extension Trait where Self == BackgroundPriority {
    /// Runs the suite's tests at background priority (see ``BackgroundPriority``).
    public static var backgroundPriority: Self { BackgroundPriority() }
}
