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
/// it on an event loop with the head and each piece of the body, and it feeds them to the
/// request's ``TransferStream``, the transfer core every built-in engine shares. At most
/// ``lookahead`` chunks wait for the reader: past that, the future a body part returns holds the
/// connection's reading until the reader takes one.
///
/// The engine's task is what makes a cancel reach the connection at once from any thread:
/// cancelling it ends the request (and its connection when the body is unfinished), whether it
/// waits for the head, for a chunk, or for the reader. No Swift task runs per request: the
/// delegate's callbacks resume the waiting caller straight from the event loop. A request whose
/// body streams from a file or a sequence is the exception: it goes through the engine's
/// `execute` in a task that a cancel cancels (`Exchange+StreamedUpload.swift` says why).
///
/// What the exchange shares is in the stream (the transfer's whole state) or behind a `Guarded`
/// of its own.
final class Exchange: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    /// What stops the request: the engine's task, or the task that runs a streamed upload.
    enum Engine: TransferEngine {
        case call(HTTPClient.Task<Void>)
        case runner(Task<Void, Never>)

        func stop() {
            switch self {
            case .call(let task): task.cancel()
            case .runner(let task): task.cancel()
            }
        }
    }

    /// How many chunks may wait for the reader before the connection is read no further.
    ///
    /// Three: as many as the exchange held before it became the engine's delegate (two of its own
    /// and one in AsyncHTTPClient's response sequence). With two, 1 GiB streamed at 0.79-0.83x
    /// raw AsyncHTTPClient in three runs; with three, 0.94x and 0.97x (`AHCBenchmarks`). A chunk
    /// is what one read of the socket brought (NIO reads at most 64 KiB at a time), inflated when
    /// the body was compressed.
    static let lookahead = 3

    let client: PooledClient
    let request: TransportRequest
    let acceptEncoding: String?
    let progress: UploadReporter
    /// The transfer: the head and the body as the reader sees them; a cancel of it stops the engine.
    let stream: TransferStream
    /// The transport's shutdown flag: set, the engine's `cancelled` is the shutdown's.
    private let shutDown: LockedFlag
    /// The connections the client had opened when the request began (see ``mayResend(after:)``).
    private let connectionsBefore: Int
    /// How many times the request was sent again (``mayResend(after:)``).
    let resent = Guarded(0)

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
        progress = UploadReporter(total: request.body.length, report: request.progress)
        connectionsBefore = client.connections.value
        // The trip's one cancel point: the request's handle (the session's clock) cancels it.
        stream = TransferStream(
            for: request,
            buffering: TransferBuffering(bytes: .max, chunks: Self.lookahead, enginePauses: true, batchBytes: 0)
        )
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
            stream.finish(error)
            return
        }
        let task = client.http.execute(request: outgoing, delegate: self, deadline: nil)
        // Kept (and stopped at once when the transfer was cancelled first) before a failure can
        // send the request again from here, so that the task that sends keeps its place.
        stream.attach(Engine.call(task))
        task.futureResult.whenFailure { [loop = task.eventLoop] error in self.failed(error, on: loop) }
    }

    // MARK: Engine callbacks

    func didSendRequest(task: HTTPClient.Task<Void>) {
        request.handle.requestSent()
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        // The head's arrival, even when it is handed over only with a small body read whole.
        request.handle.responseStarted()
        progress.finish()
        // When the caller reads the body whole, a small body of announced length is read before
        // the head is handed over and handed over whole: the reader then takes it without a wait
        // per chunk.
        let engineHead = EngineHead(head: head, url: request.url)
        if request.readsBodyWhole, let length = head.headers.first(name: "content-length").flatMap(Int.init), length <= TransferStream.wholeBodyLimit {
            stream.receive(head: engineHead, holdingBodyUpTo: TransferStream.wholeBodyLimit)
        } else {
            stream.receive(head: engineHead)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // The decompressor hands on what each piece of the wire inflated to, which may be nothing
        // (a gzip header): an empty chunk would take a place of the lookahead.
        if buffer.readableBytes == 0 { return task.eventLoop.makeSucceededVoidFuture() }
        return push(buffer, on: task.eventLoop)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        stream.finish(nil)
    }

    /// The engine's task failed: before the head, the request is sent again when that is safe
    /// and the head fails otherwise; after it, the body fails after what came.
    private func failed(_ error: any Error, on loop: any EventLoop) {
        // After the head (held back or not), the reader sees what came, then the failure.
        let phase = stream.phase
        if phase == .cancelled { return }
        if phase == .awaitingHead, mayResend(after: error) {
            resent.withLock { $0 += 1 }
            progress.restart()
            // Not at once: the loop first handles the connection's closing, which it has
            // queued, so that the pool no longer hands out the connection that failed.
            loop.execute { self.start() }
            return
        }
        stream.finish(AsyncHTTPClientTransport.classify(error, stopped: isStopped))
    }

    /// A failure before the head that a browser would send again: HTTP/2's refused streams and
    /// GOAWAY, which the server did not process; or a lost connection under an idempotent method
    /// (RFC 9110, 9.2.2) when the client opened no connection since the request began, so that it
    /// went out on one that was idle in the pool, which the server may close at any time. A
    /// connection made for the request that the server drops is its answer: the session's retry
    /// policy judges it (the transport contract: a transport retries nothing else). A body that
    /// cannot be read twice is never sent again, nor one sent ``StaleConnection/resendLimit`` times already.
    func mayResend(after error: any Error) -> Bool {
        guard !isStopped else { return false }
        let failure: StaleConnection.Failure
        if let closed = error as? NIOHTTP2Errors.StreamClosed, closed.errorCode == .refusedStream {
            failure = .unprocessed
        } else if error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
            failure = .unprocessed
        } else if TransportError.kind(of: AsyncHTTPClientTransport.classify(error, stopped: false)) == .connectionLost,
                  client.connections.value == connectionsBefore {
            failure = .lost
        } else {
            return false
        }
        return StaleConnection.mayResend(request, after: failure, resent: resent.withLock { $0 })
    }

    /// Whether the request was stopped on purpose: the transfer cancelled (which cancelling the
    /// calling task does), or the transport shut down. Then the engine's `cancelled` is that, not
    /// a lost connection.
    var isStopped: Bool {
        stream.isCancelled || shutDown.isSet
    }

    // MARK: Head and body

    /// Hands the head to the reader.
    func deliver(_ head: HTTPResponseHead) {
        stream.receive(head: EngineHead(head: head, url: request.url))
    }

    /// Hands a chunk to the reader, or keeps it.
    ///
    /// - Returns: A future that holds the connection's reading back while `lookahead` chunks
    ///   wait for the reader; a succeeded one otherwise.
    func push(_ buffer: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void> {
        guard stream.receive(Data(buffer: buffer, byteTransferStrategy: .noCopy)) else {
            return loop.makeSucceededVoidFuture()
        }
        let demand = loop.makePromise(of: Void.self)
        stream.paused { demand.succeed(()) }
        return demand.futureResult
    }
}

// MARK: - EngineHead

/// AsyncHTTPClient's head, made into a ``ResponseHead`` by the reader, off the event loop.
struct EngineHead: TransferHead {
    let head: HTTPResponseHead
    let url: URL

    func responseHead() -> ResponseHead {
        ResponseHead(
            statusCode: Int(head.status.code),
            headers: AsyncHTTPClientTransport.headers(head.headers),
            url: url,
            httpVersion: AsyncHTTPClientTransport.versionText(head.version)
        )
    }
}
#endif
