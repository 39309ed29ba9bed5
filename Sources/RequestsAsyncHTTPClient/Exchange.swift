#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTP2
import Requests

// MARK: - Exchange

/// One request over AsyncHTTPClient, as the delegate of its `HTTPClient.Task`: the engine calls
/// it on an event loop with the head and each piece of the body, and it hands them to the reader,
/// keeping at most ``lookahead`` chunks: past that, the future it returns holds the connection's
/// reading until the reader takes one.
///
/// The engine's task is what makes ``cancel()`` reach the connection at once from any thread:
/// cancelling it ends the request (and its connection when the body is unfinished), whether it
/// waits for the head, for a chunk, or for the reader. No Swift task runs per request: the
/// delegate's callbacks resume the waiting caller straight from the event loop. A request whose
/// body streams from a file or a sequence is the exception: it goes through the engine's
/// `execute` in a task that ``cancel()`` cancels (`Exchange+StreamedUpload.swift` says why).
///
/// Invariants, under `lock`:
/// - each continuation is resumed once, and taken out before it is resumed;
/// - `waiter` exists only while `chunks` is empty and `end` is `nil`;
/// - `demand` exists only while `chunks` holds `lookahead` chunks;
/// - once `cancelled` is set, `chunks` is empty and stays so.
///
/// `pending` and `early` are touched only by the engine's callbacks, which come one at a time.
final class Exchange: HTTPClientResponseDelegate, ResponseBodySource, @unchecked Sendable {
    typealias Response = Void

    /// How many chunks may wait for the reader before the connection is read no further.
    ///
    /// Three: as many as the exchange held before it became the engine's delegate (two of its own
    /// and one in AsyncHTTPClient's response sequence). With two, 1 GiB streamed at 0.79-0.83x
    /// raw AsyncHTTPClient in three runs; with three, 0.94x and 0.97x (`AHCBenchmarks`). A chunk
    /// is what one read of the socket brought (NIO reads at most 64 KiB at a time), inflated when
    /// the body was compressed.
    static let lookahead = 3
    /// The largest body, of announced length, read whole before the head is handed over.
    static let wholeBodyLimit = 64 << 10
    /// How many times a request that failed before its head on a connection that was idle in the
    /// pool is sent again: before the pool has heard that such a connection closed, it may hand
    /// the same connection to the request sent again.
    static let resends = 2

    let client: PooledClient
    let request: TransportRequest
    let acceptEncoding: String?
    let progress: UploadProgress
    /// The transport's shutdown flag: set, the engine's `cancelled` is the shutdown's.
    private let shutDown: LockedFlag
    /// The connections the client had opened when the request began (see ``mayResend(after:)``).
    private let connectionsBefore: Int

    private let lock = NSLock()
    private var task: HTTPClient.Task<Void>?
    /// The task that runs a request whose body streams from a file or a sequence, through
    /// AsyncHTTPClient's `execute` (``startStreamedUpload()``).
    var runner: Task<Void, Never>?
    var resent = 0
    private var head: Result<HTTPResponseHead, any Error>?
    private var headWaiter: CheckedContinuation<HTTPResponseHead, any Error>?
    private var chunks: [ByteBuffer] = []
    private var end: (any Error)??
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var demand: EventLoopPromise<Void>?
    var cancelled = false
    /// The body, when it was read whole before the head (``wholeBodyLimit``).
    private var whole: ByteBuffer?

    /// The head, held back while a small body is read whole.
    private var pending: HTTPResponseHead?
    /// What came of the body held back.
    private var early = ByteBuffer()

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
        connectionsBefore = client.connections.value
    }

    /// Sends the request; the head and the body arrive through the delegate's callbacks.
    ///
    /// A body from a file or a sequence goes through AsyncHTTPClient's `execute` instead: with
    /// the delegate API, the engine finishes no response before the body's writer has finished,
    /// so a slow or endless body would hold an early answer (a 413) back, and a write it paused
    /// is never resumed when the request fails.
    func start() {
        switch request.body.storage {
        case .file, .stream:
            startStreamedUpload()
            return
        case .empty, .data:
            break
        }
        let outgoing: HTTPClient.Request
        do {
            outgoing = try request.engineRequest(acceptEncoding: acceptEncoding)
        } catch {
            deliver(head: .failure(error))
            return
        }
        let task = client.http.execute(request: outgoing, delegate: self, deadline: nil)
        let stopNow = locked {
            self.task = task
            return cancelled
        }
        // Registered once the task is kept: a failure sends the request again from here, and
        // the task that sends keeps its place.
        task.futureResult.whenFailure { [loop = task.eventLoop] error in self.failed(error, on: loop) }
        if stopNow { task.cancel() }
    }

    // MARK: Engine callbacks

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        progress.finish()
        // When the caller reads the body whole, a small body of announced length is read before
        // the head is handed over and handed over whole: the reader then takes it without a wait
        // per chunk.
        if request.readsBodyWhole, let length = head.headers.first(name: "content-length").flatMap(Int.init), length <= Self.wholeBodyLimit {
            pending = head
        } else {
            deliver(head: .success(head))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // The decompressor hands on what each piece of the wire inflated to, which may be nothing
        // (a gzip header): an empty chunk would take a place of the lookahead.
        if buffer.readableBytes == 0 { return task.eventLoop.makeSucceededVoidFuture() }
        guard let held = pending else { return push(buffer, on: task.eventLoop) }
        if early.readableBytes == 0 {
            early = buffer
        } else {
            var buffer = buffer
            early.writeBuffer(&buffer)
        }
        if early.readableBytes <= Self.wholeBodyLimit { return task.eventLoop.makeSucceededVoidFuture() }
        // Inflated past the limit: the body streams from here.
        pending = nil
        deliver(head: .success(held))
        defer { early = ByteBuffer() }
        return push(early, on: task.eventLoop)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        if let held = pending {
            pending = nil
            let body = early
            early = ByteBuffer()
            locked {
                whole = body
                end = .some(nil)
            }
            deliver(head: .success(held))
        } else {
            finish(nil)
        }
    }

    /// The engine's task failed: before the head, the request is sent again when that is safe
    /// and the head fails otherwise; after it, the body fails after what came.
    private func failed(_ error: any Error, on loop: any EventLoop) {
        let (stopped, headDelivered) = locked { (cancelled, head != nil) }
        if stopped { return }
        if let held = pending {
            // Failed while the body was read whole: the reader sees what came, then the failure.
            pending = nil
            let body = early
            early = ByteBuffer()
            locked {
                if body.readableBytes > 0 { chunks.append(body) }
            }
            deliver(head: .success(held))
        } else if !headDelivered {
            if mayResend(after: error) {
                locked { resent += 1 }
                progress.restart()
                // Not at once: the loop first handles the connection's closing, which it has
                // queued, so that the pool no longer hands out the connection that failed.
                loop.execute { self.start() }
            } else {
                deliver(head: .failure(AsyncHTTPClientTransport.classify(error, stopped: isStopped)))
            }
            return
        }
        finish(AsyncHTTPClientTransport.classify(error, stopped: isStopped))
    }

    /// A failure before the head that a browser would send again: HTTP/2's refused streams and
    /// GOAWAY, which the server did not process; or a lost connection under an idempotent method
    /// (RFC 9110, 9.2.2) when the client opened no connection since the request began, so that it
    /// went out on one that was idle in the pool, which the server may close at any time. A
    /// connection made for the request that the server drops is its answer: the session's retry
    /// policy judges it (the transport contract: a transport retries nothing else). A body that
    /// cannot be read twice is never sent again, nor one sent ``resends`` times already.
    func mayResend(after error: any Error) -> Bool {
        guard locked({ resent }) < Self.resends, request.body.isReplayable, !isStopped else { return false }
        if let closed = error as? NIOHTTP2Errors.StreamClosed, closed.errorCode == .refusedStream { return true }
        if error is NIOHTTP2Errors.CreatedStreamAfterGoaway { return true }
        let idempotent: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]
        return idempotent.contains(request.method.rawValue)
            && TransportError.kind(of: AsyncHTTPClientTransport.classify(error, stopped: false)) == .connectionLost
            && client.connections.value == connectionsBefore
    }

    /// Whether the request was stopped on purpose: ``cancel()`` called (which cancelling the
    /// calling task does), or the transport shut down. Then the engine's `cancelled` is that, not
    /// a lost connection.
    var isStopped: Bool {
        locked { cancelled } || shutDown.isSet
    }

    // MARK: Head

    /// Waits for the head.
    func head() async throws -> HTTPResponseHead {
        try await withCheckedThrowingContinuation { continuation in
            let now: Result<HTTPResponseHead, any Error>? = locked {
                if cancelled { return .failure(CancellationError()) }
                if let head { return head }
                headWaiter = continuation
                return nil
            }
            if let now { continuation.resume(with: now) }
        }
    }

    func deliver(head result: Result<HTTPResponseHead, any Error>) {
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

    /// Hands a chunk to the reader, or keeps it.
    ///
    /// - Returns: A future that holds the connection's reading back while `lookahead` chunks
    ///   wait for the reader; a succeeded one otherwise.
    func push(_ buffer: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void> {
        enum Step { case goOn, deliver(CheckedContinuation<Data?, any Error>), wait(EventLoopFuture<Void>) }
        let step: Step = locked {
            if cancelled { return .goOn }
            if let waiting = waiter {
                waiter = nil
                return .deliver(waiting)
            }
            chunks.append(buffer)
            if chunks.count < Self.lookahead { return .goOn }
            let promise = loop.makePromise(of: Void.self)
            demand = promise
            return .wait(promise.futureResult)
        }
        switch step {
        case .goOn:
            return loop.makeSucceededVoidFuture()
        case .deliver(let waiting):
            waiting.resume(returning: Data(buffer: buffer, byteTransferStrategy: .noCopy))
            return loop.makeSucceededVoidFuture()
        case .wait(let future):
            return future
        }
    }

    func finish(_ error: (any Error)?) {
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
                enum Step { case answer(Result<Data?, any Error>, EventLoopPromise<Void>?), wait }
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
                    demand?.succeed(())
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    func cancel() {
        typealias Taken = (HTTPClient.Task<Void>?, Task<Void, Never>?, CheckedContinuation<HTTPResponseHead, any Error>?, CheckedContinuation<Data?, any Error>?, EventLoopPromise<Void>?)
        let (task, runner, headWaiter, waiter, demand): Taken = locked {
            if cancelled { return (nil, nil, nil, nil, nil) }
            cancelled = true
            chunks = []
            defer {
                self.headWaiter = nil
                self.waiter = nil
                self.demand = nil
            }
            // A body read to its end has nothing left to stop.
            return (end == nil ? self.task : nil, end == nil ? self.runner : nil, self.headWaiter, self.waiter, self.demand)
        }
        headWaiter?.resume(throwing: CancellationError())
        waiter?.resume(throwing: CancellationError())
        demand?.succeed(())
        task?.cancel()
        runner?.cancel()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
#endif
