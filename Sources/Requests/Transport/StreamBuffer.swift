import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - StreamBuffer

/// The chunks a data task has received and its reader has not taken yet, kept within a memory
/// limit when the reader is slower than the network.
///
/// The delegate fills it; one reader drains it. Once `limit` bytes wait in memory:
/// - on Apple platforms the task is suspended, which pauses the transfer (TCP then holds the
///   server back), and resumed when the reader has taken the buffer down to half the limit;
/// - on Linux the further chunks go to an unlinked temporary file (``SpillFile``), read back in
///   order, because FoundationNetworking cannot pause a transfer: `URLSessionTask.suspend()`
///   removes it from libcurl and `resume()` starts the request over, and blocking the delegate
///   would block the one queue that every `URLSession` in the process shares. A reader more than
///   `spillLimit` bytes behind fails the stream with ``RequestError/Code/bodyTooLarge``.
///
/// Invariants, under `lock`:
/// - `headWaiter` and `waiter` are each resumed at most once, and taken out before resuming;
/// - `waiter` exists only while nothing is buffered (in memory or spilled) and `end` is `nil`;
/// - `buffered` is the byte count of `chunks`; spilled bytes are newer than every chunk;
/// - once `cancelled` is set, nothing is buffered any more.
final class StreamBuffer: ResponseBodySource, @unchecked Sendable {
    /// How many bytes may wait before the network is held back.
    let limit: Int
    /// The request, for naming it in errors.
    let request: (method: HTTPMethod, url: URL)

    /// How far behind the network a Linux reader may fall before the stream fails.
    let spillLimit: Int

    private let lock = NSLock()
    private var task: URLSessionTask?
    private var head: HTTPURLResponse?
    private var headWaiter: CheckedContinuation<HTTPURLResponse, any Error>?
    private var chunks: [Data] = []
    private var first = 0
    private var buffered = 0
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var end: (any Error)??
    private var cancelled = false
    /// The task is suspended for back-pressure (Apple platforms).
    private var suspended = false
    /// Where chunks go while the memory buffer is full (Linux).
    private var spill: SpillFile?

    init(request: (method: HTTPMethod, url: URL), limit: Int, spillLimit: Int = 4 << 30) {
        self.request = request
        self.limit = max(limit, 1)
        self.spillLimit = spillLimit
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
        let (waiting, task, failure) = locked { () -> (CheckedContinuation<Data?, any Error>?, URLSessionTask?, (any Error)?) in
            guard !cancelled, end == nil else { return (nil, nil, nil) }
            if let waiter {
                self.waiter = nil
                return (waiter, nil, nil)
            }
            #if canImport(FoundationNetworking)
            do {
                if spill == nil, buffered + data.count <= limit {
                    chunks.append(data)
                    buffered += data.count
                    return (nil, nil, nil)
                }
                let file = try spill ?? SpillFile()
                spill = file
                try file.append(data)
                guard file.count <= spillLimit else {
                    throw RequestError(.bodyTooLarge, method: request.method, url: request.url,
                                       detail: "the reader fell more than \(spillLimit) bytes behind the network")
                }
                return (nil, nil, nil)
            } catch {
                let failure = error is RequestError ? error : RequestError(.streamFailed, method: request.method, url: request.url, detail: "could not buffer the body on disk", underlyingError: error)
                end = .some(failure)
                return (nil, self.task, failure)
            }
            #else
            chunks.append(data)
            buffered += data.count
            if buffered >= limit, !suspended {
                // Under the lock, so that the reader's resume cannot overtake it.
                suspended = true
                self.task?.suspend()
            }
            return (nil, nil, nil)
            #endif
        }
        waiting?.resume(returning: data)
        if failure != nil {
            // Off the delegate's thread, which may be the one cancelling waits for.
            DispatchQueue.global().async { task?.cancel() }
        }
    }

    /// The task completed, with `error` or without. `response` is the task's response, for a head
    /// that was not announced on its own (FoundationNetworking does not announce a 3xx whose
    /// redirect was declined).
    func complete(_ error: (any Error)?, response: URLResponse? = nil) {
        if error == nil, let response, locked({ head == nil }) {
            receive(response)
        }
        let (headWaiting, waiting) = locked {
            if end == nil { end = .some(error) }
            // The task keeps its URLSession alive; over Linux's per-transfer session, that
            // session's release is what closes the transfer's connection.
            task = nil
            defer { headWaiter = nil; waiter = nil }
            return (headWaiter, waiter)
        }
        if let headWaiting {
            headWaiting.resume(throwing: error ?? URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "no response head"]))
        }
        if let waiting {
            if let error {
                waiting.resume(throwing: error)
            } else {
                waiting.resume(returning: nil)
            }
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
                if let outcome = take(continuation) { continuation.resume(with: outcome.map { $0.map(Self.joined) }) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The chunks a reader took at once, as one piece: joined here, outside the lock, so that
    /// the delegate is not held up by the copy.
    private static func joined(_ chunks: [Data]) -> Data {
        guard var whole = chunks.first, chunks.count > 1 else { return chunks.first ?? Data() }
        whole.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
        for chunk in chunks.dropFirst() { whole.append(chunk) }
        return whole
    }

    /// Takes the next chunk or the end, or leaves the continuation waiting (`nil`); resumes a
    /// suspended task once the buffer has drained to half the limit (Apple platforms).
    private func take(_ continuation: CheckedContinuation<Data?, any Error>) -> Result<[Data]?, any Error>? {
        locked {
            if cancelled { return .failure(CancellationError()) }
            if first < chunks.count {
                let taken = takeChunks()
                if first == chunks.count {
                    chunks.removeAll(keepingCapacity: true)
                    first = 0
                } else if first >= 1024 {
                    chunks.removeFirst(first)
                    first = 0
                }
                if suspended, buffered <= limit / 2 {
                    suspended = false
                    task?.resume()
                }
                return .success(taken)
            }
            if let file = spill {
                do {
                    if let data = try file.take(upTo: 256 << 10) {
                        if file.count == 0 {
                            file.close()
                            spill = nil
                        }
                        return .success([data])
                    }
                } catch {
                    return .failure(RequestError(.streamFailed, method: request.method, url: request.url, detail: "could not read the body back from disk", underlyingError: error))
                }
            }
            if let end {
                if let error = end { return .failure(error) }
                return .success(nil)
            }
            guard waiter == nil else {
                return .failure(RequestError(.streamFailed, method: request.method, url: request.url, detail: "the body is already being read by another loop; a body is read once"))
            }
            waiter = continuation
            return nil
        }
    }

    /// The bytes a reader that fell behind takes at once, at most: taking what waits in one
    /// piece saves a call, a lock and often a write per chunk (libcurl hands over 16 KiB at a
    /// time), and lets such a reader catch up instead of pushing the stream to disk.
    static let batchBytes = 256 << 10

    /// Takes the first waiting chunk and those after it while they fit in ``batchBytes``, and
    /// counts them out of ``buffered``; under the lock.
    private func takeChunks() -> [Data] {
        var taken: [Data] = []
        var total = 0
        repeat {
            total += chunks[first].count
            taken.append(chunks[first])
            chunks[first] = Data()
            first += 1
        } while first < chunks.count && total + chunks[first].count <= Self.batchBytes
        buffered -= total
        return taken
    }

    func cancel() {
        let (task, headWaiting, waiting) = locked {
            guard !cancelled else { return (URLSessionTask?.none, CheckedContinuation<HTTPURLResponse, any Error>?.none, CheckedContinuation<Data?, any Error>?.none) }
            cancelled = true
            chunks = []
            first = 0
            buffered = 0
            spill?.close()
            spill = nil
            defer { headWaiter = nil; waiter = nil; self.task = nil }
            return (end == nil ? self.task : nil, headWaiter, waiter)
        }
        headWaiting?.resume(throwing: CancellationError())
        waiting?.resume(throwing: CancellationError())
        task?.cancel()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
