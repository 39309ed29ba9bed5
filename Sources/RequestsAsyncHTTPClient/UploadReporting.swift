#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Requests

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - UploadReporter

/// Counts what a request body has handed to the connection and reports it to the request's
/// progress closure (the session counts it as a sign of life).
///
/// Invariant, under the lock: `sent` is what went out since the last ``restart()``;
/// `reportedEnd` is set once the end was reported.
final class UploadReporter: Sendable {
    private let state = Guarded<(sent: Int64, reportedEnd: Bool)>((0, false))
    private let total: Int64?
    private let report: (@Sendable (Int64, Int64?) -> Void)?

    init(total: Int64?, report: (@Sendable (Int64, Int64?) -> Void)?) {
        self.total = total
        self.report = report
    }

    /// A chunk went out.
    func add(_ count: Int) {
        guard let report else { return }
        let now = state.withLock { state in
            state.sent += Int64(count)
            return state.sent
        }
        report(now, total)
    }

    /// The body was sent whole, or the response began (a body in memory has been written by then,
    /// or is no longer wanted); reported once.
    func finish() {
        guard let report else { return }
        let total = self.total
        let now = state.withLock { state -> Int64? in
            if state.reportedEnd { return nil }
            state.reportedEnd = true
            return max(state.sent, total ?? state.sent)
        }
        if let now { report(now, total) }
    }

    /// Starts the count again, for a request sent once more.
    func restart() {
        state.withLock { $0 = (0, false) }
    }
}

// MARK: - UploadChunks

/// A request body's chunks as the engine pulls them, counted as they go.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let stream: ChunkStream
    let progress: UploadReporter
    let pulls: UploadPulls
    /// The trip's handle, told when the body's last chunk went to the engine.
    let handle: TransferHandle

    func makeAsyncIterator() -> Iterator {
        Iterator(stream: stream, progress: progress, pulls: pulls, handle: handle)
    }

    struct Iterator: AsyncIteratorProtocol {
        let stream: ChunkStream
        let progress: UploadReporter
        let pulls: UploadPulls
        let handle: TransferHandle

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await pulls.next(of: stream) else {
                // A sequence that ends because it was stopped has not ended: the body must not
                // go out cut short as if it were whole.
                try Task.checkCancellation()
                if pulls.isStopped { throw CancellationError() }
                progress.finish()
                handle.requestSent()
                return nil
            }
            progress.add(chunk.count)
            return ByteBuffer(bytes: chunk)
        }
    }
}

// MARK: - UploadPulls

/// Runs each pull of a streamed request body in a task of its own, which ``stop()`` cancels.
///
/// AsyncHTTPClient pulls the body in a task of its own, which nobody cancels when the response
/// ends first (a server that answers before it has read the body): a sequence waiting for its
/// next chunk would wait on, holding what it holds. The exchange stops it when it ends.
///
/// Invariant, under the lock: `current` is the pull under way, if any; once `stopped`, every pull
/// is cancelled as soon as it is made.
final class UploadPulls: Sendable {
    private let state = Guarded<(current: Task<Data?, any Error>?, stopped: Bool)>((nil, false))

    /// The body's next chunk, or `nil` at its end or once stopped.
    func next(of stream: ChunkStream) async throws -> Data? {
        let pull = Task { try await stream.next() }
        let stopNow = state.withLock { state in
            state.current = pull
            return state.stopped
        }
        if stopNow { pull.cancel() }
        defer { state.withLock { $0.current = nil } }
        return try await withTaskCancellationHandler {
            try await pull.value
        } onCancel: {
            pull.cancel()
        }
    }

    /// Whether ``stop()`` was called.
    var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    /// Cancels the pull under way and every later one.
    func stop() {
        let pull = state.withLock { state in
            state.stopped = true
            return state.current
        }
        pull?.cancel()
    }
}
#endif
