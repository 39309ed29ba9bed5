import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Download

/// A download under way: its progress as the body is written to disk, and its response at the end.
///
/// ```swift
/// let download = session.download("https://example.com/big.iso", to: file, resumable: true)
/// for await progress in download.progress {
///     print(progress.completedBytes, progress.fraction.map { "\(Int($0 * 100)) %" } ?? "")
/// }
/// let response = try await download.response().validate()   // response.fileURL == file
/// ```
public final class Download: Sendable {
    /// Progress values, from the bytes on disk before the first write (0, or a resumed part) to
    /// the file complete, paced by the call's ``RequestOptions/progressPacing`` (at most 10 a
    /// second and one per whole percent, unless set): the first and the last reported once each.
    /// The sequence finishes when the download ends, whichever way (complete, failed or
    /// cancelled), so a `for await` loop over it ends too; ``response()`` then says how. Only the
    /// newest 256 values are kept for a slow reader.
    public let progress: AsyncStream<TransferProgress>
    /// Where the file goes once complete.
    public let destination: URL
    private let task: Task<Response, any Error>

    init(progress: AsyncStream<TransferProgress>, destination: URL, task: Task<Response, any Error>) {
        self.progress = progress
        self.destination = destination
        self.task = task
    }

    /// Waits for the download to finish. Cancelling the waiting task cancels the download.
    ///
    /// - Returns: The response, whatever its status: for 2xx, ``Response/fileURL`` is the
    ///   destination and ``Response/data`` is empty; otherwise nothing was written, `fileURL` is
    ///   `nil` and `data` holds the first 64 KiB of the body, for ``Response/validate(statusCodes:contentTypes:)``.
    /// - Throws: ``RequestError`` (``RequestError/Code/fileFailed`` when the file cannot be written,
    ///   ``RequestError/Code/streamFailed`` when the transfer broke off), or `CancellationError`.
    public func response() async throws -> Response {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Cancels the download; ``response()`` then throws `CancellationError`.
    public func cancel() {
        task.cancel()
    }
}

// MARK: - Session + download

extension Session {
    /// Downloads a response body to a file, streaming it to disk.
    ///
    /// The body goes to a partial file beside `destination` and is moved into place (replacing
    /// any file there) only once complete. When the download fails or is cancelled, the partial
    /// file is removed, unless `resumable` is set: then it is kept as `<destination>.part`, and the
    /// next resumable download to the same destination asks for the rest with `Range`, and with
    /// `If-Range` carrying the first response's `ETag` (or `Last-Modified`), kept beside it as
    /// `<destination>.part.validator`. A `206` answer continues the file; any other 2xx (a file
    /// that changed) starts it over.
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: Parameters to encode, or `nil`.
    ///   - encoding: How to encode them; `URLEncoding.default`.
    ///   - headers: Headers for this request.
    ///   - timeout: The time allowed for the whole download, until the file is in place; overrides
    ///     the session's. Each silence of the server is bounded by the session's ``idleTimeout``.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``, its ``RequestOptions/progressPacing``
    ///     among them), over the session's ``options``.
    ///   - destination: The file to create or replace.
    ///   - resumable: Whether to keep a partial file on failure and resume from one.
    /// - Returns: The download, with its progress and its response. It starts at once.
    public func download(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil,
        to destination: URL,
        resumable: Bool = false
    ) -> Download {
        startDownload(to: destination, resumable: resumable, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy) {
            try self.makeRequest(url, method: method, parameters: parameters, encoding: encoding, headers: headers, options: options)
        }
    }

    /// Downloads the response to a ready-made request to a file; see
    /// ``download(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:to:resumable:)``.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one.
    ///   - timeout: The time allowed for the whole download, until the file is in place; overrides
    ///     the session's. Each silence of the server is bounded by the session's ``idleTimeout``.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the request's own and the
    ///     session's ``options``.
    ///   - destination: The file to create or replace.
    ///   - resumable: Whether to keep a partial file on failure and resume from one.
    /// - Returns: The download, with its progress and its response. It starts at once.
    public func download(
        _ request: any URLRequestConvertible,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil,
        to destination: URL,
        resumable: Bool = false
    ) -> Download {
        startDownload(to: destination, resumable: resumable, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy) {
            try self.makeRequest(request, options: options)
        }
    }

    private func startDownload(
        to destination: URL,
        resumable: Bool,
        timeout: Duration?,
        interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy?,
        build: @escaping @Sendable () throws -> OutgoingRequest
    ) -> Download {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(256))
        let task = Task {
            // The reporter ends the stream once its last value is out (the file's queue may be
            // yielding one still).
            var reporter: ProgressReporter?
            defer {
                if let reporter { reporter.finish() } else { continuation.finish() }
            }
            let file = DownloadFile(destination: destination, resumable: resumable)
            let request = try build()
            let made = ProgressReporter(pacing: request.options.progressPacing, continuation: continuation)
            reporter = made
            return try await self.performDownload(request, into: file, timeout: timeout,
                                                  interceptors: interceptors, redirectPolicy: redirectPolicy,
                                                  progress: made, mayRetryWithoutRange: true)
        }
        return Download(progress: stream, destination: destination, task: task)
    }

    private func performDownload(
        _ request: OutgoingRequest,
        into file: DownloadFile,
        timeout: Duration?,
        interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy?,
        progress: ProgressReporter,
        mayRetryWithoutRange: Bool
    ) async throws -> Response {
        var request = request
        // Byte counts and Range offsets are about the bytes on the wire; a transport that decodes
        // compressed bodies would match neither.
        if transport.behavior.decodesContentEncoding, request.headers["Accept-Encoding"] == nil {
            request.headers.append(name: "Accept-Encoding", value: "identity")
        }
        let offset = file.resumableLength()
        if offset > 0 {
            request.headers.update(name: "Range", value: "bytes=\(offset)-")
            // A file that changed since the part was written comes back whole (200), not spliced.
            if let validator = file.validator(), request.headers["If-Range"] == nil {
                request.headers.append(name: "If-Range", value: validator)
            }
        }
        let stream = try await self.stream(built: request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
        let status = stream.statusCode
        if status == 416, offset > 0, mayRetryWithoutRange {
            // The kept part does not fit the file any more (it changed, or was complete): start over.
            stream.cancel()
            try file.discardPartial(request: request)
            return try await performDownload(request.removingRange(), into: file, timeout: timeout, interceptors: interceptors,
                                             redirectPolicy: redirectPolicy, progress: progress, mayRetryWithoutRange: false)
        }
        guard (200..<300).contains(status) else {
            return await stream.withBodyPrefix(64 << 10)
        }
        // A 206 to the Range asked for continues the kept part; any other 2xx is the whole body
        // (or the range the caller asked for), from the start.
        let resumed = status == 206 && offset > 0
        let contentRange = stream.headers.value(for: "Content-Range")
        let range = ContentRange(contentRange)
        if resumed, range?.start != offset {
            stream.cancel()
            throw RequestError(.streamFailed, response: stream.response,
                               detail: "asked for the bytes from \(offset) on, got Content-Range \(contentRange ?? "none")")
        }
        let start: Int64 = resumed ? offset : 0
        let encoding = stream.headers.value(for: "Content-Encoding")?.lowercased()
        let decoded = encoding.map { $0 != "identity" } ?? false
        // A decoded body's length is not the announced one.
        let total = decoded ? nil : resumed ? (range?.total ?? stream.expectedLength.map { $0 + start }) : stream.expectedLength
        let writer: DownloadWriter
        do {
            writer = try file.open(continuingAt: start, request: request)
        } catch {
            stream.cancel()
            throw error
        }
        if !resumed {
            file.recordValidator(of: stream.headers)
        }
        var received = start
        do {
            progress.offer(TransferProgress(completedBytes: received, totalBytes: total))
            // A built-in engine's transfer writes the body to the file itself, on the file's own
            // queue as it arrives; any other body is read here and written chunk by chunk.
            let onDisk = Guarded(start)
            let sunk = try await stream.body.write(into: writer.handle.fileDescriptor, at: start) { count in
                let now = onDisk.withLock { $0 += Int64(count); return $0 }
                progress.offer(TransferProgress(completedBytes: now, totalBytes: total))
            }
            if sunk {
                received = onDisk.withLock { $0 }
            } else {
                for try await chunk in stream.body {
                    try writer.write(chunk)
                    received += Int64(chunk.count)
                    progress.offer(TransferProgress(completedBytes: received, totalBytes: total))
                }
            }
            if let total, received != total {
                throw RequestError(.streamFailed, response: stream.response, detail: "the body ended after \(received) of \(total) bytes")
            }
            try writer.finish()
            try file.moveIntoPlace(request: request)
            progress.offer(TransferProgress(completedBytes: received, totalBytes: total ?? received), final: true)
        } catch {
            writer.abandon()
            file.failed()
            throw error
        }
        return stream.response.withFileURL(file.destination)
    }
}

extension OutgoingRequest {
    /// This request without a `Range` header.
    fileprivate func removingRange() -> OutgoingRequest {
        var request = self
        request.headers.remove(name: "Range")
        return request
    }
}

extension Response {
    fileprivate func withFileURL(_ url: URL?) -> Response {
        var copy = self
        copy.fileURL = url
        return copy
    }
}

// MARK: - ContentRange

/// A parsed `Content-Range: bytes <start>-<end>/<total>` value.
struct ContentRange: Equatable {
    let start: Int64
    let end: Int64
    let total: Int64?

    init(start: Int64, end: Int64, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    init?(_ value: String?) {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1)
        let bounds = halves.first?.split(separator: "-", maxSplits: 1) ?? []
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else { return nil }
        self.init(start: start, end: end, total: halves.count == 2 ? Int64(halves[1]) : nil)
    }
}
