import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - StreamBuffer

/// The chunks a data task has received and its reader has not taken yet, with the back-pressure
/// that keeps them under a limit.
///
/// The delegate fills it; one reader drains it. Once more than `limit` bytes wait, the network is
/// held back until the reader has taken them down to half the limit:
/// - on Linux, by blocking the URLSession's work thread (``waitForRoom()``, called from the
///   delegate queue's `addOperation`), so libcurl stops reading the socket and TCP holds the
///   server back; `URLSessionTask.suspend()` there removes the transfer from libcurl and starts
///   it over on `resume()`, which would corrupt the body;
/// - on Apple platforms, by suspending the task, which pauses it.
///
/// Invariants, under `condition`:
/// - `headWaiter` and `waiter` are each resumed at most once, and taken out before resuming;
/// - `waiter` exists only while `chunks` is empty and `end` is `nil`;
/// - `buffered` is the byte count of `chunks`;
/// - once `cancelled` or `end` is set, nothing blocks and nothing is buffered any more.
final class StreamBuffer: ChunkSource, @unchecked Sendable {
    /// How many bytes may wait before the network is held back.
    let limit: Int
    /// The request, for naming it in errors.
    let request: URLRequest

    private let condition = NSCondition()
    private var task: URLSessionTask?
    private var head: HTTPURLResponse?
    private var headWaiter: CheckedContinuation<HTTPURLResponse, any Error>?
    private var chunks: [Data] = []
    private var first = 0
    private var buffered = 0
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var end: (any Error)??
    private var cancelled = false
    /// Delegate operations queued and not run yet (Linux).
    private var queued = 0
    /// The task is suspended for back-pressure (Apple platforms).
    private var suspended = false

    init(request: URLRequest, limit: Int) {
        self.request = request
        self.limit = max(limit, 1)
    }

    /// Starts the task, unless the stream was cancelled first.
    func start(_ task: URLSessionTask) {
        let cancelled = locked {
            self.task = task
            return self.cancelled
        }
        if cancelled {
            task.cancel()
        } else {
            task.resume()
        }
    }

    // MARK: Delegate side

    /// The response head arrived.
    func receive(_ response: URLResponse) {
        let waiting: CheckedContinuation<HTTPURLResponse, any Error>?
        let result: Result<HTTPURLResponse, any Error>
        if let http = response as? HTTPURLResponse {
            result = .success(http)
        } else {
            result = .failure(URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "the response is not HTTP"]))
        }
        waiting = locked {
            if case .success(let http) = result, head == nil { head = http }
            defer { headWaiter = nil }
            return headWaiter
        }
        waiting?.resume(with: result)
    }

    /// A chunk of the body arrived.
    func receive(_ data: Data) {
        guard !data.isEmpty else { return }
        let (waiting, suspend): (CheckedContinuation<Data?, any Error>?, URLSessionTask?) = locked {
            guard !cancelled, end == nil else { return (nil, nil) }
            if let waiter {
                self.waiter = nil
                return (waiter, nil)
            }
            chunks.append(data)
            buffered += data.count
            #if canImport(FoundationNetworking)
            return (nil, nil)
            #else
            guard buffered >= limit, !suspended else { return (nil, nil) }
            suspended = true
            return (nil, task)
            #endif
        }
        waiting?.resume(returning: data)
        suspend?.suspend()
    }

    /// The task completed, with `error` or without.
    func complete(_ error: (any Error)?) {
        let (headWaiting, waiting) = locked {
            if end == nil { end = .some(error) }
            condition.broadcast()
            defer { headWaiter = nil; waiter = nil }
            return (headWaiter, waiter)
        }
        if let headWaiting {
            headWaiting.resume(throwing: error ?? URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "no response head"]))
        }
        if let waiting {
            if let error {
                waiting.resume(throwing: failure(error))
            } else {
                waiting.resume(returning: nil)
            }
        }
    }

    /// Blocks the calling thread (URLSession's work thread, adding a delegate operation) while the
    /// reader is behind; then counts the operation as queued.
    func waitForRoom() {
        condition.lock()
        while !cancelled, end == nil, buffered >= limit || queued >= 16 {
            condition.wait()
        }
        queued += 1
        condition.unlock()
    }

    /// A queued delegate operation ran.
    func operationRan() {
        locked {
            queued -= 1
            condition.broadcast()
        }
    }

    // MARK: Reader side

    /// Waits for the response head.
    func response() async throws -> HTTPURLResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                let outcome: Result<HTTPURLResponse, any Error>? = locked {
                    if cancelled { return .failure(CancellationError()) }
                    if let head { return .success(head) }
                    if let end {
                        return .failure(end ?? URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "no response head"]))
                    }
                    headWaiter = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let (outcome, resume) = take(continuation)
                if let outcome { continuation.resume(with: outcome) }
                resume?.resume()
            }
        } onCancel: {
            cancel()
        }
    }

    /// Takes the next chunk, the end, or leaves the continuation waiting; returns a task to resume
    /// when the buffer has drained below half the limit (Apple platforms).
    private func take(_ continuation: CheckedContinuation<Data?, any Error>) -> (Result<Data?, any Error>?, URLSessionTask?) {
        locked {
            if cancelled { return (.failure(CancellationError()), nil) }
            if first < chunks.count {
                let chunk = chunks[first]
                chunks[first] = Data()
                first += 1
                if first == chunks.count {
                    chunks.removeAll(keepingCapacity: true)
                    first = 0
                } else if first >= 1024 {
                    chunks.removeFirst(first)
                    first = 0
                }
                buffered -= chunk.count
                var resume: URLSessionTask?
                if buffered < limit / 2 {
                    condition.broadcast()
                    if suspended {
                        suspended = false
                        resume = task
                    }
                }
                return (.success(chunk), resume)
            }
            if let end {
                if let error = end { return (.failure(failure(error)), nil) }
                return (.success(nil), nil)
            }
            waiter = continuation
            return (nil, nil)
        }
    }

    func cancel() {
        let (task, headWaiting, waiting) = locked {
            guard !cancelled else { return (URLSessionTask?.none, CheckedContinuation<HTTPURLResponse, any Error>?.none, CheckedContinuation<Data?, any Error>?.none) }
            cancelled = true
            chunks = []
            first = 0
            buffered = 0
            condition.broadcast()
            defer { headWaiter = nil; waiter = nil }
            return (end == nil ? self.task : nil, headWaiter, waiter)
        }
        headWaiting?.resume(throwing: CancellationError())
        waiting?.resume(throwing: CancellationError())
        // After the lock: on Linux, cancelling waits for the work thread, which `waitForRoom()`
        // has just released.
        task?.cancel()
    }

    /// A transfer error after the head, as callers see it.
    private func failure(_ error: any Error) -> any Error {
        if error is RequestError || error is CancellationError { return error }
        if (error as? URLError)?.code == .cancelled { return CancellationError() }
        return RequestError(.streamFailed, request: request, underlyingError: error)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
