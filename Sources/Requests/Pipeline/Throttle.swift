import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Throttle

/// An ``Interceptor`` that keeps at most a number of requests in flight, in all and optionally per
/// origin (scheme, host and port: `http://a.com` and `https://a.com` are two); the others wait
/// their turn, first come first served.
///
/// ```swift
/// let session = Session(interceptors: [Throttle(maxConcurrent: 8, perOrigin: 2), RetryPolicy()])
/// ```
///
/// A request holds its slot while the stages inside the throttle run, retries and their waits
/// included when a ``RetryPolicy`` comes after it. A request cancelled while it waits leaves the
/// queue at once without taking a slot, and a slot is given back however the request ends. Copies
/// of one throttle share its slots; give each session its own to limit it alone.
public struct Throttle: Interceptor {
    /// The most requests in flight at once.
    public let maxConcurrent: Int
    /// The most requests in flight at once to one origin (scheme, host and port), or `nil` for
    /// no limit per origin.
    public let perOrigin: Int?
    private let slots: SlotQueue

    /// Creates a throttle.
    ///
    /// - Parameters:
    ///   - maxConcurrent: The most requests in flight at once; at least 1.
    ///   - perOrigin: The most in flight to one origin (scheme, host and port), or `nil`; at
    ///     least 1 when given.
    public init(maxConcurrent: Int, perOrigin: Int? = nil) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.perOrigin = perOrigin.map { max(1, $0) }
        self.slots = SlotQueue(limit: self.maxConcurrent, hostLimit: self.perOrigin)
    }

    /// Waits for a slot, runs the rest of the chain, and gives the slot back.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response.
    /// - Throws: `CancellationError` when cancelled while waiting; what the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        let host = perOrigin == nil ? nil : request.originKey
        let asked = ContinuousClock.now
        if try await slots.acquire(host: host, clock: next.chain.clock) {
            // The wait goes into the call's timings and span.
            next.context.queued(for: .now - asked)
        }
        defer { slots.release(host: host) }
        return try await next(request)
    }

    /// Requests holding a slot now.
    var inFlight: Int { slots.counts.inFlight }
    /// Requests waiting for a slot now.
    var waiting: Int { slots.counts.waiting }
}

// MARK: - SlotQueue

/// Counted slots, in all and per host, with a first-come-first-served queue of waiters.
///
/// Invariants, kept under the lock: `total` and `perHost` count the slots held; after every change
/// no queued waiter fits (each one that fits is granted at once, in queue order), so a newcomer that
/// fits passes only waiters that cannot go anyway. A waiter's continuation is resumed exactly once,
/// by whoever removes it from `waiters`: a grant, or its cancellation.
final class SlotQueue: Sendable {
    private struct Waiter {
        let id: UInt64
        let host: String?
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var total = 0
        var perHost: [String: Int] = [:]
        var waiters: [Waiter] = []
        /// Waiters between taking a number and joining the queue, or in it; a cancellation removes
        /// the number, so one that joins later knows to leave.
        var open: Set<UInt64> = []
        var nextID: UInt64 = 0

        func fits(_ host: String?, limit: Int, hostLimit: Int?) -> Bool {
            guard total < limit else { return false }
            guard let host, let hostLimit else { return true }
            return perHost[host, default: 0] < hostLimit
        }

        mutating func take(_ host: String?) {
            total += 1
            if let host { perHost[host, default: 0] += 1 }
        }
    }

    private let limit: Int
    private let hostLimit: Int?
    private let state = Guarded(State())

    init(limit: Int, hostLimit: Int?) {
        self.limit = limit
        self.hostLimit = hostLimit
    }

    /// Takes a slot, waiting in line when none is free.
    ///
    /// - Parameters:
    ///   - host: The request's origin, for a limit per origin.
    ///   - clock: The call's clock, whose deadline ends the wait; `nil` for none.
    /// - Returns: Whether it waited.
    /// - Throws: `CancellationError` when the task was cancelled or the deadline passed first.
    @discardableResult
    func acquire(host: String?, clock: CallClock? = nil) async throws -> Bool {
        try Task.checkCancellation()
        let (limit, hostLimit) = (self.limit, self.hostLimit)
        let id: UInt64? = state.withLock { state in
            if state.fits(host, limit: limit, hostLimit: hostLimit) {
                state.take(host)
                return nil
            }
            state.nextID += 1
            state.open.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return false }
        do {
            try clock?.waiting(for: .queue, on: .wait { [self] in withdraw(id) })
        } catch {
            withdraw(id)
            throw error
        }
        defer { clock?.stopped() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case queued, granted, cancelled }
                let outcome: Outcome = state.withLock { state in
                    guard state.open.contains(id) else { return .cancelled }
                    if state.fits(host, limit: limit, hostLimit: hostLimit) {
                        state.open.remove(id)
                        state.take(host)
                        return .granted
                    }
                    state.waiters.append(Waiter(id: id, host: host, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .queued: break
                case .granted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            withdraw(id)
        }
        return true
    }

    /// Takes a waiter out of the line (its task was cancelled, or its call's deadline passed).
    private func withdraw(_ id: UInt64) {
        let waiter: Waiter? = state.withLock { state in
            state.open.remove(id)
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: CancellationError())
    }

    /// Gives a slot back and grants it to the first waiters that fit.
    func release(host: String?) {
        let (limit, hostLimit) = (self.limit, self.hostLimit)
        let granted: [Waiter] = state.withLock { state in
            state.total -= 1
            if let host {
                let left = state.perHost[host, default: 1] - 1
                state.perHost[host] = left > 0 ? left : nil
            }
            var granted: [Waiter] = []
            var index = 0
            while index < state.waiters.count, state.total < limit {
                let waiter = state.waiters[index]
                if state.fits(waiter.host, limit: limit, hostLimit: hostLimit) {
                    state.take(waiter.host)
                    state.open.remove(waiter.id)
                    granted.append(state.waiters.remove(at: index))
                } else {
                    index += 1
                }
            }
            return granted
        }
        for waiter in granted {
            waiter.continuation.resume()
        }
    }

    /// Slots held and waiters queued.
    var counts: (inFlight: Int, waiting: Int) {
        state.withLock { ($0.total, $0.waiters.count) }
    }
}
