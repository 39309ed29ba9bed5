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
final class UploadReporter: @unchecked Sendable {
    private let lock = NSLock()
    private var sent: Int64 = 0
    private var reportedEnd = false
    private let total: Int64?
    private let report: (@Sendable (Int64, Int64?) -> Void)?

    init(total: Int64?, report: (@Sendable (Int64, Int64?) -> Void)?) {
        self.total = total
        self.report = report
    }

    /// A chunk went out.
    func add(_ count: Int) {
        guard let report else { return }
        let now = locked { sent += Int64(count); return sent }
        report(now, total)
    }

    /// The body was sent whole, or the response began (a body in memory has been written by then,
    /// or is no longer wanted); reported once.
    func finish() {
        guard let report else { return }
        let now: Int64? = locked {
            if reportedEnd { return nil }
            reportedEnd = true
            return max(sent, total ?? sent)
        }
        if let now { report(now, total) }
    }

    /// Starts the count again, for a request sent once more.
    func restart() {
        locked {
            sent = 0
            reportedEnd = false
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
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
final class UploadPulls: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Task<Data?, any Error>?
    private var stopped = false

    /// The body's next chunk, or `nil` at its end or once stopped.
    func next(of stream: ChunkStream) async throws -> Data? {
        let pull = Task { try await stream.next() }
        let stopNow = locked {
            current = pull
            return stopped
        }
        if stopNow { pull.cancel() }
        defer { locked { current = nil } }
        return try await withTaskCancellationHandler {
            try await pull.value
        } onCancel: {
            pull.cancel()
        }
    }

    /// Whether ``stop()`` was called.
    var isStopped: Bool {
        locked { stopped }
    }

    /// Cancels the pull under way and every later one.
    func stop() {
        let pull: Task<Data?, any Error>? = locked {
            stopped = true
            return current
        }
        pull?.cancel()
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
#endif
