import Foundation

// MARK: - LatenessProbe

/// Watches how late the runtime is beside a timed step, for bounds that survive a loaded machine.
///
/// A task sleeps 10 ms at a time, from the moment the probe is made, and keeps the worst lateness
/// it saw until ``stop()``: a stall anywhere in the step shows, which a single sleep of the step's
/// length misses when the stall begins after it woke. On a loaded machine the runtime itself is
/// that late, which no transport can beat, so a bound is `limit + 2 × lateness` (one more hop
/// after the library's own wake-up).
///
/// ```swift
/// let probe = LatenessProbe()
/// let start = ContinuousClock.now
/// _ = try? await session.request(url, timeout: .seconds(1))
/// #expect(ContinuousClock.now - start < .seconds(1.5) + await probe.stop() * 2)
/// ```
public final class LatenessProbe: Sendable {
    private let task: Task<Duration, Never>

    /// Starts watching.
    public init() {
        // The first target is set now, so that a task that starts late counts as late.
        let first = ContinuousClock.now + .milliseconds(10)
        task = Task {
            var worst = Duration.zero
            var target = first
            while !Task.isCancelled {
                try? await Task.sleep(until: target, clock: .continuous)
                let now = ContinuousClock.now
                worst = max(worst, now - target)
                target = now + .milliseconds(10)
            }
            return max(worst, ContinuousClock.now - target)
        }
    }

    /// Ends the watch.
    ///
    /// - Returns: The worst lateness seen.
    public func stop() async -> Duration {
        task.cancel()
        return await task.value
    }

    /// The worst lateness seen, ending the watch.
    public var value: Duration {
        get async { await stop() }
    }
}

// MARK: - retryingWhenLate

/// Runs a timed check again when it failed while the runtime itself was stalled.
///
/// A check that a deadline fires, or that a cancel lands before an answer, can fail without any
/// fault in the code under test when the process gets no CPU for seconds (a parallel test run on
/// a loaded two-core machine). Each try runs beside a fresh ``LatenessProbe``; a try that fails
/// while the probe saw the runtime at least `stall` late is run again, and a failure on a runtime
/// that kept time, or on the last try, is the check's answer.
///
/// - Parameters:
///   - attempts: How many tries at most; 3 by default.
///   - stall: The lateness that voids a failed try; 1 second by default.
///   - check: The check, given the probe that watches its try (pass it to bounds of your own).
/// - Returns: What the first successful try returned.
/// - Throws: The error of the last try, or of the first that failed on time.
public func retryingWhenLate<Value>(
    attempts: Int = 3, stall: Duration = .seconds(1), _ check: (LatenessProbe) async throws -> Value
) async throws -> Value {
    var attempt = 1
    while true {
        let probe = LatenessProbe()
        do {
            let value = try await check(probe)
            _ = await probe.stop()
            return value
        } catch {
            let late = await probe.stop()
            guard attempt < max(1, attempts), late >= stall else { throw error }
            attempt += 1
        }
    }
}
