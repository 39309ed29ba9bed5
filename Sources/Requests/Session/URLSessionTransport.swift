import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLSessionTransport

/// A ``Transport`` backed by `URLSession`, on Apple platforms and on Linux (FoundationNetworking).
///
/// It uses `URLSession.data(for:)`, which cancels its `URLSessionTask` when the calling task is
/// cancelled. Redirects are followed as the session's configuration says.
public struct URLSessionTransport: Transport {
    /// The session that carries the requests.
    public let session: URLSession

    /// Creates a transport with its own `URLSession`.
    ///
    /// - Parameter configuration: The session configuration; `.default` unless given.
    public init(configuration: URLSessionConfiguration = .default) {
        self.session = URLSession(configuration: configuration)
    }

    /// Creates a transport over an existing session.
    ///
    /// - Parameter session: The session to use.
    public init(session: URLSession) {
        self.session = session
    }

    /// Sends a request with `URLSession.data(for:)`.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: The session's `URLError`; `URLError(.badServerResponse)` for a response that is not HTTP.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let httpResponse = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "the response is not HTTP"])
        }
        return (data, httpResponse)
    }
}

// MARK: - Streamed uploads

extension URLSessionTransport {
    /// Streams the file from disk with an upload task, reporting progress as `URLSession` sends it.
    ///
    /// The upload runs in its own `URLSession` with the transport's configuration and a delegate
    /// for progress; cancelling the calling task cancels it.
    ///
    /// - Parameters:
    ///   - request: The request, without a body.
    ///   - fileURL: The file whose bytes are the body.
    ///   - progress: Called with the bytes sent so far and the total.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: The session's `URLError`; `URLError(.badServerResponse)` for a response that is not HTTP.
    public func upload(
        _ request: URLRequest,
        fromFile fileURL: URL,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse) {
        let delegate = UploadDelegate(progress: progress)
        let uploadSession = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: nil)
        defer { uploadSession.finishTasksAndInvalidate() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.start(uploadSession.uploadTask(with: request, fromFile: fileURL), continuation: continuation)
            }
        } onCancel: {
            delegate.cancel()
        }
    }
}

/// Collects an upload task's progress, response and body, and resumes its caller once.
private final class UploadDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var task: URLSessionTask?
        var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
        var body = Data()
        var cancelled = false
    }

    private let progress: @Sendable (Int64, Int64) -> Void
    private let state = Guarded(State())

    init(progress: @escaping @Sendable (Int64, Int64) -> Void) {
        self.progress = progress
    }

    func start(_ task: URLSessionTask, continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) {
        let cancelled = state.withLock { state in
            state.task = task
            state.continuation = continuation
            return state.cancelled
        }
        if cancelled { task.cancel() }
        task.resume()
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        progress(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, body) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.body)
        }
        guard let continuation else { return }
        if let error {
            continuation.resume(throwing: error)
        } else if let response = task.response as? HTTPURLResponse {
            continuation.resume(returning: (body, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "the response is not HTTP"]))
        }
    }
}
