import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP2
import Requests

// MARK: - Exchange

/// One request over AsyncHTTPClient: a task that sends it, hands over the head, and then pulls
/// the body from the connection only as the reader asks, keeping at most ``lookahead`` chunks.
///
/// The task is what makes ``cancel()`` reach the connection at once from any thread: cancelling
/// it ends AsyncHTTPClient's request (and its connection when the body is unfinished), whether
/// it waits for the head, for a chunk, or for the reader.
///
/// Invariants, under `lock`:
/// - each continuation is resumed once, and taken out before it is resumed;
/// - `waiter` exists only while `chunks` is empty and `end` is `nil`;
/// - `demand` exists only while `chunks` holds `lookahead` chunks;
/// - once `cancelled` is set, `chunks` is empty and stays so.
final class Exchange: ResponseBodySource, @unchecked Sendable {
    /// How many chunks may wait for the reader before the connection is read no further.
    static let lookahead = 2
    /// The largest body, of announced length, read whole before the head is handed over.
    static let wholeBodyLimit = 64 << 10

    private let client: PooledClient
    private let request: TransportRequest
    private let acceptEncoding: String?
    private let progress: UploadProgress
    /// The transport's shutdown flag: set, the engine's `cancelled` is the shutdown's.
    private let shutDown: LockedFlag

    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var head: Result<HTTPClientResponse, any Error>?
    private var headWaiter: CheckedContinuation<HTTPClientResponse, any Error>?
    private var chunks: [ByteBuffer] = []
    private var end: (any Error)??
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var demand: CheckedContinuation<Void, Never>?
    private var cancelled = false
    /// The body, when it was read whole before the head (``wholeBodyLimit``).
    private var whole: ByteBuffer?

    init(
        client: PooledClient,
        request: TransportRequest,
        decompression: AsyncHTTPClientTransport.Configuration.Decompression,
        shutDown: LockedFlag
    ) {
        self.client = client
        self.request = request
        self.shutDown = shutDown
        if case .enabled = decompression {
            acceptEncoding = AsyncHTTPClientTransport.Configuration.acceptEncoding
        } else {
            acceptEncoding = nil
        }
        progress = UploadProgress(total: request.body.length, report: request.progress)
    }

    /// Starts the task that sends the request and pumps the body.
    func start() {
        let task = Task { await self.run() }
        let stopNow = locked {
            self.task = task
            return cancelled
        }
        if stopNow { task.cancel() }
    }

    private func run() async {
        let response: HTTPClientResponse
        do {
            response = try await execute()
        } catch {
            deliver(head: .failure(AsyncHTTPClientTransport.classify(error, stopped: isStopped)))
            return
        }
        progress.finish()
        var iterator = response.body.makeAsyncIterator()
        // When the caller reads the body whole, a small body of announced length is read before
        // the head is handed over, in this task, and handed over whole: the reader then takes it
        // without a wait per chunk.
        var early = ByteBuffer()
        if request.readsBodyWhole, let length = response.headers.first(name: "content-length").flatMap(Int.init), length <= Self.wholeBodyLimit {
            do {
                while early.readableBytes <= Self.wholeBodyLimit, var buffer = try await iterator.next() {
                    if early.readableBytes == 0 {
                        early = buffer
                    } else {
                        early.writeBuffer(&buffer)
                    }
                }
                if early.readableBytes <= Self.wholeBodyLimit, try await iterator.next() == nil {
                    locked {
                        whole = early
                        end = .some(nil)
                    }
                    deliver(head: .success(response))
                    return
                }
            } catch {
                // Failed midway: the reader sees what came, then the failure, as for any body.
                deliver(head: .success(response))
                if early.readableBytes > 0, !(await push(early)) { return }
                finish(AsyncHTTPClientTransport.classify(error, stopped: isStopped))
                return
            }
        }
        deliver(head: .success(response))
        do {
            if early.readableBytes > 0, !(await push(early)) { return }
            while let buffer = try await iterator.next() {
                // The decompressor hands on what each piece of the wire inflated to, which may be
                // nothing (a gzip header): an empty chunk would take a place of the lookahead.
                if buffer.readableBytes == 0 { continue }
                guard await push(buffer) else { return }
            }
            finish(nil)
        } catch {
            finish(AsyncHTTPClientTransport.classify(error, stopped: isStopped))
        }
    }

    /// How many times a request that failed before its head on a connection that was idle in the
    /// pool is sent again: before the pool has heard that such a connection closed, it may hand
    /// the same connection to the request sent again.
    static let resends = 2

    /// Sends the request, and again (at most ``resends`` times) when it failed before its head on
    /// a connection that the server closed while it was idle in the pool, and sending it again is
    /// safe.
    private func execute() async throws -> HTTPClientResponse {
        let deadline = NIODeadline.now() + .hours(24 * 7)
        let connectionsBefore = client.connections.value
        var resent = 0
        while true {
            do {
                return try await client.http.execute(try request.engineRequest(acceptEncoding: acceptEncoding, sent: progress), deadline: deadline)
            } catch where resent < Self.resends && mayResend(after: error, connectionsBefore: connectionsBefore) {
                resent += 1
                progress.restart()
            }
        }
    }

    /// A failure before the head that a browser would send again: HTTP/2's refused streams and
    /// GOAWAY, which the server did not process; or a lost connection under an idempotent method
    /// (RFC 9110, 9.2.2) when the client opened no connection since the request began, so that it
    /// went out on one that was idle in the pool, which the server may close at any time. A
    /// connection made for the request that the server drops is its answer: the session's retry
    /// policy judges it (the transport contract: a transport retries nothing else). A body that
    /// cannot be read twice is never sent again.
    private func mayResend(after error: any Error, connectionsBefore: Int) -> Bool {
        guard request.body.isReplayable, !isStopped else { return false }
        if let closed = error as? NIOHTTP2Errors.StreamClosed, closed.errorCode == .refusedStream { return true }
        if error is NIOHTTP2Errors.CreatedStreamAfterGoaway { return true }
        let idempotent: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]
        return idempotent.contains(request.method.rawValue)
            && TransportError.kind(of: AsyncHTTPClientTransport.classify(error, stopped: false)) == .connectionLost
            && client.connections.value == connectionsBefore
    }

    /// Whether the request was stopped on purpose: ``cancel()`` called, the task cancelled, or
    /// the transport shut down. Then the engine's `cancelled` is that, not a lost connection.
    private var isStopped: Bool {
        locked { cancelled } || Task.isCancelled || shutDown.isSet
    }

    // MARK: Head

    /// Waits for the head.
    func head() async throws -> HTTPClientResponse {
        try await withCheckedThrowingContinuation { continuation in
            let now: Result<HTTPClientResponse, any Error>? = locked {
                if cancelled { return .failure(CancellationError()) }
                if let head { return head }
                headWaiter = continuation
                return nil
            }
            if let now { continuation.resume(with: now) }
        }
    }

    private func deliver(head result: Result<HTTPClientResponse, any Error>) {
        let waiting = locked {
            head = result
            defer { headWaiter = nil }
            return headWaiter
        }
        waiting?.resume(with: result)
    }

    /// The body read whole before the head, taken once; `nil` when it streams.
    func takeWholeBody() -> Data? {
        locked {
            defer { whole = nil }
            return whole.map { Data(buffer: $0, byteTransferStrategy: .noCopy) }
        }
    }

    // MARK: Body, engine side

    /// Hands a chunk to the reader, or keeps it, waiting while `lookahead` chunks wait.
    ///
    /// - Returns: `false` once the body was cancelled.
    private func push(_ buffer: ByteBuffer) async -> Bool {
        enum Step { case stop, deliver(CheckedContinuation<Data?, any Error>), kept }
        let step: Step = locked {
            if cancelled { return .stop }
            if let waiting = waiter {
                waiter = nil
                return .deliver(waiting)
            }
            chunks.append(buffer)
            return .kept
        }
        switch step {
        case .stop:
            return false
        case .deliver(let waiting):
            waiting.resume(returning: Data(buffer: buffer, byteTransferStrategy: .noCopy))
            return true
        case .kept:
            await withCheckedContinuation { continuation in
                let goOn = locked {
                    if cancelled || chunks.count < Self.lookahead { return true }
                    demand = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
            return !locked { cancelled }
        }
    }

    private func finish(_ error: (any Error)?) {
        let waiting = locked {
            end = .some(error)
            defer { waiter = nil }
            return waiter
        }
        if let error {
            waiting?.resume(throwing: error)
        } else {
            waiting?.resume(returning: nil)
        }
    }

    // MARK: Body, reader side

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Step { case answer(Result<Data?, any Error>, CheckedContinuation<Void, Never>?), wait }
                let step: Step = locked {
                    if cancelled { return .answer(.failure(CancellationError()), nil) }
                    if !chunks.isEmpty {
                        let chunk = chunks.removeFirst()
                        defer { demand = nil }
                        return .answer(.success(Data(buffer: chunk, byteTransferStrategy: .noCopy)), demand)
                    }
                    if let end {
                        return .answer(end.map { .failure($0) } ?? .success(nil), nil)
                    }
                    waiter = continuation
                    return .wait
                }
                if case .answer(let result, let demand) = step {
                    demand?.resume()
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    func cancel() {
        let (task, headWaiter, waiter, demand) = locked {
            if cancelled { return (nil, nil, nil, nil) as (Task<Void, Never>?, CheckedContinuation<HTTPClientResponse, any Error>?, CheckedContinuation<Data?, any Error>?, CheckedContinuation<Void, Never>?) }
            cancelled = true
            chunks = []
            defer {
                self.headWaiter = nil
                self.waiter = nil
                self.demand = nil
            }
            // A body read to its end has nothing left to stop.
            return (end == nil ? self.task : nil, self.headWaiter, self.waiter, self.demand)
        }
        headWaiter?.resume(throwing: CancellationError())
        waiter?.resume(throwing: CancellationError())
        demand?.resume()
        task?.cancel()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
