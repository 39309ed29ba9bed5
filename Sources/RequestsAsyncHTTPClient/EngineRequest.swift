#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Requests

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - EngineRequest

extension TransportRequest {
    /// The request as AsyncHTTPClient's delegate API takes it, for a body that is empty or in
    /// memory.
    ///
    /// - Parameter acceptEncoding: The `Accept-Encoding` to add when the request names none.
    /// - Returns: The request.
    /// - Throws: A ``TransportError`` for a request the engine cannot send.
    func engineRequest(acceptEncoding: String?) throws -> HTTPClient.Request {
        let (headers, _) = engineHeaders(acceptEncoding: acceptEncoding)
        let outgoingBody: HTTPClient.Body?
        switch body.storage {
        case .empty:
            outgoingBody = nil
        case .data(let data):
            outgoingBody = .bytes(data)
        case .file, .stream:
            throw TransportError(.other, detail: "a streamed body goes through streamedEngineRequest")
        }
        do {
            return try HTTPClient.Request(url: url, method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue), headers: headers, body: outgoingBody)
        } catch {
            // An unsupported scheme or a URL without a host, as the engine names it.
            throw AsyncHTTPClientTransport.classify(error, stopped: false)
        }
    }

    /// The request as AsyncHTTPClient's `execute` takes it, with a body streamed from a file or
    /// a sequence, new each call (a request sent again sends its body from the start).
    ///
    /// - Parameters:
    ///   - acceptEncoding: The `Accept-Encoding` to add when the request names none.
    ///   - sent: Counts the bytes handed to the connection and reports progress.
    ///   - pulls: Runs each pull of the body, so that the exchange can stop the one waiting.
    /// - Returns: The request.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` for a request without a
    ///   URL.
    func streamedEngineRequest(acceptEncoding: String?, sent: UploadProgress, pulls: UploadPulls) throws -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: method.rawValue)
        let (headers, declaredLength) = engineHeaders(acceptEncoding: acceptEncoding)
        outgoing.headers = headers
        let length = body.length ?? declaredLength
        let chunks = UploadChunks(stream: body.chunks(), progress: sent, pulls: pulls)
        outgoing.body = .stream(chunks, length: length.map { .known($0) } ?? .unknown)
        return outgoing
    }

    /// The request's header fields as the engine takes them, and a declared `Content-Length`.
    private func engineHeaders(acceptEncoding: String?) -> (NIOHTTP1.HTTPHeaders, Int64?) {
        var headers = NIOHTTP1.HTTPHeaders()
        var declaredLength: Int64?
        // In the caller's order, repeats as repeated lines, `Cookie` joined into one.
        let fields = request.headers.wireFields
        headers.reserveCapacity(fields.count + 1)
        for field in fields {
            let (name, value) = (field.name, field.value)
            if Requests.HTTPHeaders.namesMatch(name, "Content-Length") {
                // The engine writes the framing from the body; a declared length stands for a
                // stream of unknown length.
                declaredLength = Int64(value)
            } else if !Requests.HTTPHeaders.namesMatch(name, "Transfer-Encoding") {
                headers.add(name: name, value: value)
            }
        }
        if let acceptEncoding, !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: acceptEncoding)
        }
        return (headers, declaredLength)
    }
}

// MARK: - UploadProgress

/// Counts what a request body has handed to the connection and reports it to the request's
/// progress closure (the session counts it as a sign of life).
final class UploadProgress: @unchecked Sendable {
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
    let progress: UploadProgress
    let pulls: UploadPulls

    func makeAsyncIterator() -> Iterator {
        Iterator(stream: stream, progress: progress, pulls: pulls)
    }

    struct Iterator: AsyncIteratorProtocol {
        let stream: ChunkStream
        let progress: UploadProgress
        let pulls: UploadPulls

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await pulls.next(of: stream) else {
                // A sequence that ends because it was stopped has not ended: the body must not
                // go out cut short as if it were whole.
                try Task.checkCancellation()
                if pulls.isStopped { throw CancellationError() }
                progress.finish()
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
