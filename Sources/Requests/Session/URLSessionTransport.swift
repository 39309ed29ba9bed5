import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLSessionTransport

/// A ``Transport`` backed by `URLSession`, on Apple platforms and on Linux (FoundationNetworking).
///
/// It cancels its `URLSessionTask` when the calling task is cancelled. Over a session it made itself,
/// redirects are not followed here: the 3xx response is returned, for the ``Session``'s
/// ``RedirectPolicy`` to follow. Over a caller's `URLSession`, that session's delegate decides. Authentication challenges are left to the interceptors: a 401 is
/// returned as a response (on Linux, where FoundationNetworking would otherwise wait forever on a
/// `WWW-Authenticate: Basic` challenge, with its status and headers but without its body).
public struct URLSessionTransport: Transport {
    /// The session that carries the requests.
    public let session: URLSession
    /// How many bytes of a streamed body may wait in memory for a slow reader; 1 MiB unless given.
    /// Beyond it, on Apple platforms the transfer is paused until the reader has taken half of
    /// them; on Linux, where FoundationNetworking cannot pause a transfer, the rest waits in an
    /// unlinked temporary file, read back in order.
    public let streamBufferLimit: Int
    /// Answers the challenges of a session this transport made; `nil` over a caller's session.
    private let challenges: ChallengeDelegate?

    /// Creates a transport with its own `URLSession`.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.default` unless given.
    ///   - streamBufferLimit: How many bytes of a streamed body may wait for a slow reader.
    public init(configuration: URLSessionConfiguration = .default, streamBufferLimit: Int = 1 << 20) {
        let challenges = ChallengeDelegate()
        self.streamBufferLimit = streamBufferLimit
        self.session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
        self.challenges = challenges
    }

    /// Creates a transport over an existing session, which keeps its own delegate.
    ///
    /// - Parameters:
    ///   - session: The session to use.
    ///   - streamBufferLimit: How many bytes of a streamed body may wait for a slow reader.
    public init(session: URLSession, streamBufferLimit: Int = 1 << 20) {
        self.session = session
        self.streamBufferLimit = streamBufferLimit
        self.challenges = nil
    }

    /// Sends a request with a data task.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: The session's `URLError`; `URLError(.badServerResponse)` for a response that is not HTTP.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response): (Data, URLResponse)
        if let challenges {
            (data, response) = try await challenges.data(for: request, in: session)
        } else {
            (data, response) = try await session.data(for: request)
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "the response is not HTTP"])
        }
        return (data, httpResponse)
    }
}

extension URLSessionTransport {
    /// The error Apple's `URLSession` reports for the same event. libcurl calls a connection
    /// closed before any reply "Empty reply from server" and FoundationNetworking files it under
    /// `badServerResponse`; Apple reports `networkConnectionLost`, which retry policies expect.
    static func normalized(_ error: any Error) -> any Error {
        #if canImport(FoundationNetworking)
        if let urlError = error as? URLError, urlError.code == .badServerResponse,
           urlError.userInfo[NSLocalizedDescriptionKey] as? String == "Empty reply from server" {
            return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
        }
        #endif
        return error
    }
}

// MARK: - ChallengeDelegate

/// Declines authentication challenges so that the 401 reaches the caller.
///
/// Apple's `URLSession` returns the 401 itself under default handling. FoundationNetworking never
/// completes the task (default handling) or fails it as cancelled (declining), so there the
/// challenge's `failureResponse` is kept and returned in place of the cancellation.
/// Invariant: `refused` holds an entry only between a challenge and its task's completion.
private final class ChallengeDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let refused = Guarded<[Int: HTTPURLResponse]>([:])

    /// Runs a data task. Cancelling the calling task cancels the data task and throws at once,
    /// without waiting for `URLSession` to report the cancellation (which a busy machine delays).
    func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let transfer = Guarded(Transfer())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { [refused] data, response, error in
                    let (waiting, id) = transfer.withLock { ($0.continuation.take(), $0.task?.taskIdentifier) }
                    let challenged = id.flatMap { id in refused.withLock { $0.removeValue(forKey: id) } }
                    guard let waiting else { return }
                    if let error {
                        if let challenged, (error as? URLError)?.code == .cancelled {
                            waiting.resume(returning: (data ?? Data(), challenged))
                        } else {
                            waiting.resume(throwing: URLSessionTransport.normalized(error))
                        }
                    } else if let response {
                        waiting.resume(returning: (data ?? Data(), response))
                    } else {
                        waiting.resume(throwing: URLError(.badServerResponse))
                    }
                }
                let cancelled = transfer.withLock { state in
                    state.task = task
                    if !state.cancelled { state.continuation = continuation }
                    return state.cancelled
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    task.resume()
                }
            }
        } onCancel: {
            let (task, waiting) = transfer.withLock { state in
                state.cancelled = true
                return (state.task, state.continuation.take())
            }
            // Resume first: cancelling a task on Linux can block on the session's queue.
            waiting?.resume(throwing: CancellationError())
            task?.cancel()
        }
    }

    /// One data task's state. Invariant: the continuation is taken exactly once, by the
    /// completion handler or by the cancellation, whichever comes first.
    private struct Transfer {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var cancelled = false
    }

    /// Redirects are the pipeline's to follow (``RedirectPolicy``): the 3xx response is returned.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        if let response = challenge.failureResponse as? HTTPURLResponse {
            refused.withLock { $0[task.taskIdentifier] = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
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

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
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
