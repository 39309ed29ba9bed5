import Foundation
@testable import Requests

// MARK: - HandClock

/// A clock the test moves by hand, for the stages whose decisions are time-based (a retry
/// budget's window, a circuit breaker's interval).
final class HandClock: Sendable {
    private let instant = Guarded(ContinuousClock.now)

    /// The clock's time now.
    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    /// Moves the clock on.
    func advance(_ by: Duration) { instant.withLock { $0 += by } }
}
