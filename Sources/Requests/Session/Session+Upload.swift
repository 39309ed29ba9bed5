import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Upload

/// An upload under way: its progress as it is sent, and its response once it arrives.
///
/// ```swift
/// let upload = session.upload(multipart: form, to: "https://example.com/albums")
/// for await progress in upload.progress {
///     print("\(Int((progress.fraction ?? 0) * 100)) %")
/// }
/// let response = try await upload.response()
/// ```
public final class Upload: Sendable {
    /// Progress values, from 0 bytes sent to all of them, paced by the call's
    /// ``RequestOptions/progressPacing`` (at most 10 a second and one per whole percent, unless
    /// set): the first, and the last once the response has arrived (the body's length, or what the
    /// transport reported sent if more), reported once each. The sequence ends
    /// when the upload does; only the newest values are kept for a slow reader.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<Response, any Error>

    init(progress: AsyncStream<TransferProgress>, task: Task<Response, any Error>) {
        self.progress = progress
        self.task = task
    }

    /// Waits for the response. Cancelling the waiting task cancels the upload.
    ///
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError`` (``RequestError/Code/encodingFailed`` for a part that cannot be
    ///   written, such as a missing file), or `CancellationError` when cancelled.
    public func response() async throws -> Response {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Cancels the upload; ``response()`` then throws `CancellationError`.
    public func cancel() {
        task.cancel()
    }
}

// MARK: - Session + upload

extension Session {
    /// Uploads a multipart form, streaming its files from disk.
    ///
    /// The body is first written to a temporary file in chunks (files are never read whole),
    /// then sent from that file; the file is deleted afterwards. The request's `Content-Type` is
    /// always the body's, `multipart/form-data` with the boundary used. The upload starts at once.
    ///
    /// - Parameters:
    ///   - multipart: The form.
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `POST` by default.
    ///   - headers: Headers for this request.
    ///   - timeout: The timeout for the whole upload, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's. A 307
    ///     or 308 sends the file again; 301, 302 and 303 turn the request into a `GET` without it.
    ///   - options: Settings for this call (``RequestOptions``, its ``RequestOptions/progressPacing``
    ///     among them), over the session's ``options``.
    /// - Returns: The upload, with its progress and its response.
    @discardableResult
    public func upload(
        multipart: MultipartFormBody,
        to url: any URLConvertible,
        method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) -> Upload {
        startUpload(to: url, method: method, headers: headers, timeout: timeout, interceptors: interceptors,
                    redirectPolicy: redirectPolicy, options: options) { file in
            let written = try multipart.write(to: file)
            return (try RequestBody.file(file), written.contentType)
        }
    }

    /// Uploads a body: a file streamed from disk, chunks from an async sequence, or bytes.
    ///
    /// ```swift
    /// let upload = session.upload(try .file(videoURL), to: "https://example.com/videos",
    ///                             headers: ["Content-Type": "video/quicktime"])
    /// let response = try await upload.response().validate()
    /// ```
    ///
    /// The transport sends the body as it reads it, never whole into memory. A stream body is
    /// sent once: a 307 or 308 redirect, or a retry, after it was sent fails the call with
    /// ``RequestError/Code/encodingFailed`` saying so. The upload starts at once.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `POST` by default.
    ///   - headers: Headers for this request, its `Content-Type` among them.
    ///   - timeout: The timeout for the whole upload, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``, its ``RequestOptions/progressPacing``
    ///     among them), over the session's ``options``.
    /// - Returns: The upload, with its progress (``TransferProgress/totalBytes`` is `nil` while a
    ///   stream of unknown length is sent) and its response.
    @discardableResult
    public func upload(
        _ body: RequestBody,
        to url: any URLConvertible,
        method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) -> Upload {
        startUpload(to: url, method: method, headers: headers, timeout: timeout, interceptors: interceptors,
                    redirectPolicy: redirectPolicy, options: options) { _ in (body, nil) }
    }

    /// Starts an upload task; `prepare` makes the body, given a temporary file it may write
    /// (deleted afterwards), and names the `Content-Type` it needs.
    private func startUpload(
        to url: any URLConvertible,
        method: HTTPMethod,
        headers: HTTPHeaders?,
        timeout: Duration?,
        interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy?,
        options: RequestOptions?,
        prepare: @escaping @Sendable (URL) throws -> (RequestBody, contentType: String?)
    ) -> Upload {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(256))
        let options = options.map(self.options.merging) ?? self.options
        let reporter = ProgressReporter(pacing: options.progressPacing, continuation: continuation)
        let task = Task {
            // The reporter ends the stream once its last value is out (an engine's thread may be
            // yielding one still).
            defer { reporter.finish() }
            return try await self.performUpload(to: url, method: method, headers: headers,
                                                timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy,
                                                options: options, progress: reporter, prepare: prepare)
        }
        return Upload(progress: stream, task: task)
    }

    private func performUpload(
        to url: any URLConvertible,
        method: HTTPMethod,
        headers: HTTPHeaders?,
        timeout: Duration?,
        interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy?,
        options: RequestOptions,
        progress reporter: ProgressReporter,
        prepare: (URL) throws -> (RequestBody, contentType: String?)
    ) async throws -> Response {
        let resolved = try build(nil) { try url.asURL() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("swift-requests-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try build((method, resolved)) { () throws -> OutgoingRequest in
            var request = OutgoingRequest(
                url: resolved, method: method, headers: self.headers.overridden(by: headers ?? [:]),
                options: options
            )
            let (prepared, contentType) = try prepare(file)
            request.body = prepared
            if let contentType {
                request.headers.update(HTTPHeader(name: "Content-Type", value: contentType))
            }
            return request
        }
        try Task.checkCancellation()
        let total = request.body.length
        reporter.offer(TransferProgress(completedBytes: 0, totalBytes: total))
        let sentSoFar = Guarded<Int64>(0)
        let report: @Sendable (Int64, Int64?) -> Void = { sent, expected in
            sentSoFar.withLock { $0 = max($0, sent) }
            reporter.offer(TransferProgress(completedBytes: sent, totalBytes: expected ?? total))
        }
        let response = try await send(consume request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy, progress: report)
        // The end, never behind what the transport last said (a stream's length is known only now).
        let sent = max(total ?? 0, sentSoFar.withLock { $0 })
        reporter.offer(TransferProgress(completedBytes: sent, totalBytes: sent), final: true)
        return response
    }
}
