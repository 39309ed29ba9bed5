import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Streamed responses

extension URLSessionTransport {
    /// Sends a request and returns as soon as the response head has arrived, with the body still
    /// streaming.
    ///
    /// Each stream runs in a `URLSession` of its own with the transport's configuration and a
    /// delegate that feeds the stream's buffer (see ``streamBufferLimit``). Over a caller's
    /// session (``init(session:streamBufferLimit:)``) that means the caller's delegate is not
    /// asked: its challenge handling (certificate pinning, say) does not apply to streams and
    /// downloads.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response head and the body.
    /// - Throws: The session's `URLError` before the head arrived; `CancellationError`.
    public func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, ResponseBody) {
        let buffer = StreamBuffer(request: request, limit: streamBufferLimit)
        let delegate = StreamDelegate(buffer: buffer)
        #if canImport(FoundationNetworking)
        let queue: OperationQueue? = InlineQueue()
        #else
        let queue: OperationQueue? = nil
        #endif
        let streamSession = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: queue)
        let task = streamSession.dataTask(with: request)
        buffer.start(task)
        streamSession.finishTasksAndInvalidate()
        let head = try await buffer.response()
        return (head, ResponseBody(source: buffer))
    }
}

// MARK: - StreamDelegate

/// Feeds one stream's ``StreamBuffer``; declines redirects and authentication challenges, which
/// the session's pipeline handles.
final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let buffer: StreamBuffer

    init(buffer: StreamBuffer) {
        self.buffer = buffer
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // FoundationNetworking reports each interim response (100 Continue, 102 Processing,
        // 103 Early Hints) as if it were the head; the head is the final response. 101 is final:
        // nothing here speaks the protocol it switches to, so the caller sees it as it is.
        if let status = (response as? HTTPURLResponse)?.statusCode, (100..<200).contains(status), status != 101 {
            completionHandler(.allow)
            return
        }
        buffer.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        buffer.receive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // FoundationNetworking answers a declined challenge by cancelling; its failure response
        // was passed on in the challenge callback, so the head has arrived and the body is empty.
        buffer.complete(error.map(URLSessionTransport.normalized), response: task.response)
    }

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
        if let response = challenge.failureResponse {
            buffer.receive(response)
            buffer.complete(nil)
        }
        // This runs on FoundationNetworking's work queue (``InlineQueue``); declining cancels the
        // task, which must not wait for that queue.
        DispatchQueue.global().async {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

#if canImport(FoundationNetworking)
// MARK: - InlineQueue

/// The delegate queue of a Linux stream: it runs each delegate call at once, on the thread that
/// adds it, which is FoundationNetworking's work queue inside libcurl's callback.
///
/// With an ordinary queue, libcurl hands chunks over faster than a serial `OperationQueue` runs
/// them, and the chunks waiting in that queue (tens of MiB for a fast server) are memory that no
/// buffer limit can see. Run in place, every chunk reaches the ``StreamBuffer`` before libcurl
/// reads the next. The stream's delegate never waits and never calls back into `URLSession`
/// synchronously.
final class InlineQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif
