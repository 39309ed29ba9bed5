import Foundation

// MARK: - TransferHandle

/// The session's way to stop one transfer while the transport is still waiting for the head:
/// when one of the session's timeouts passes, it cancels the handle, and the transport stops the
/// transfer and throws, as it does when the calling task is cancelled.
///
/// ```swift
/// func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
///     let call = engine.start(request.urlRequest)
///     request.handle.onCancel { call.cancel() }
///     let head = try await call.head()        // throws once cancelled
///     ...
/// }
/// ```
///
/// The session does not cancel the calling task for its timeouts (that would leave the caller's
/// task cancelled): a transport honours the handle and task cancellation alike.
public final class TransferHandle: @unchecked Sendable {
    // Guarded by `lock`; a plain lock, since one handle is made for every trip.
    private let lock = NSLock()
    private var cancelled = false
    private var actions: [@Sendable () -> Void] = []

    /// Creates a handle that is not cancelled.
    public init() {}

    /// Whether the transfer was cancelled.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Registers what stops the transfer; it runs once, on cancellation, or at once when the
    /// handle is already cancelled.
    ///
    /// - Parameter action: Stops the transfer; must not block.
    public func onCancel(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        let runNow = cancelled
        if !runNow { actions.append(action) }
        lock.unlock()
        if runNow { action() }
    }

    /// Cancels the transfer: runs the registered actions, once.
    public func cancel() {
        lock.lock()
        let registered = cancelled ? [] : actions
        cancelled = true
        actions = []
        lock.unlock()
        for action in registered {
            action()
        }
    }
}
