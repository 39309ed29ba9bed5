import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - TaskDelegate

/// The delegate of a ``URLSessionTransport``'s session (and, on Linux, of each streamed
/// transfer's session of its own): it finds each task's ``TransferStream`` by the task's
/// identifier and feeds it the task's events; declines redirects and authentication challenges,
/// which the session's pipeline handles; reports upload progress.
///
/// Invariant: `tasks` holds an entry from just before a task is resumed until its completion.
final class TaskDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// What the delegate keeps for one task.
    struct Entry {
        let stream: TransferStream
        let progress: (@Sendable (Int64, Int64?) -> Void)?
        /// A temporary file holding a streamed body, removed when the task completes.
        let spooled: URL?
        /// The trip's handle, told the phases the task reports.
        let handle: TransferHandle
        /// Whether the caller reads the body whole: a small one is then handed over with the head.
        let readsBodyWhole: Bool
    }

    private let tasks = Guarded<[Int: Entry]>([:])
    /// Whether the delegate's session carries one transfer and is invalidated when it completes
    /// (``URLSessionTransport``'s per-transfer sessions on Linux).
    private let invalidatesSessionWhenDone: Bool

    /// Creates the delegate of a session.
    ///
    /// - Parameter invalidatesSessionWhenDone: Whether the session carries one transfer and is
    ///   invalidated when it completes, so that it is released and closes its connection.
    init(invalidatesSessionWhenDone: Bool = false) {
        self.invalidatesSessionWhenDone = invalidatesSessionWhenDone
    }

    /// Starts feeding `stream` from `task`; call before the task is resumed.
    func register(
        _ task: URLSessionTask, stream: TransferStream, progress: (@Sendable (Int64, Int64?) -> Void)?, spooled: URL?,
        handle: TransferHandle, readsBodyWhole: Bool
    ) {
        let entry = Entry(stream: stream, progress: progress, spooled: spooled, handle: handle, readsBodyWhole: readsBodyWhole)
        tasks.withLock { $0[task.taskIdentifier] = entry }
    }

    private func entry(_ task: URLSessionTask) -> Entry? {
        tasks.withLock { $0[task.taskIdentifier] }
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
        if let entry = entry(dataTask) {
            entry.handle.responseStarted()
            Self.receive(response, into: entry.stream, readingWhole: entry.readsBodyWhole)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let stream = entry(dataTask)?.stream, stream.receive(data) else { return }
        // The reader is behind (Apple platforms only: FoundationNetworking cannot pause a
        // transfer, and its streams spill to disk instead).
        dataTask.suspend()
        stream.paused { dataTask.resume() }
    }

    /// Hands a response head to the transfer: an `HTTPURLResponse`'s, or a failure. For a caller
    /// who reads the body whole, a small body of announced length comes with the head.
    static func receive(_ response: URLResponse, into stream: TransferStream, readingWhole: Bool = false) {
        if let http = response as? HTTPURLResponse {
            let length = http.expectedContentLength
            if readingWhole, length >= 0, length <= TransferStream.wholeBodyLimit {
                stream.receive(head: URLSessionHead(response: http), holdingBodyUpTo: TransferStream.wholeBodyLimit)
            } else {
                stream.receive(head: URLSessionHead(response: http))
            }
        } else {
            stream.finish(TransportError(.other, detail: "the response is not HTTP"))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        guard let entry = entry(task) else { return }
        if totalBytesExpectedToSend > 0, totalBytesSent >= totalBytesExpectedToSend {
            entry.handle.requestSent()
        }
        entry.progress?(totalBytesSent, totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
    }

    /// The phases of the task's last transaction (Apple platforms; FoundationNetworking does not
    /// call this): how the connection was made, when the request went out and the response began.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        guard let handle = entry(task)?.handle, let last = metrics.transactionMetrics.last else { return }
        Self.report(last, to: handle)
    }

    /// Hands a transaction's dates to a trip's handle, as instants of the session's clock.
    static func report(_ transaction: URLSessionTaskTransactionMetrics, to handle: TransferHandle) {
        let now = ContinuousClock.now
        let wall = Date()
        func instant(_ date: Date?) -> ContinuousClock.Instant? {
            date.map { now - .seconds(wall.timeIntervalSince($0)) }
        }
        func span(_ start: Date?, _ end: Date?) -> Duration? {
            guard let start, let end else { return nil }
            return .seconds(max(0, end.timeIntervalSince(start)))
        }
        var connection: ConnectionTimings?
        if transaction.isReusedConnection {
            connection = ConnectionTimings(isReused: true)
        } else if transaction.connectStartDate != nil || transaction.domainLookupStartDate != nil {
            connection = ConnectionTimings(
                isReused: false,
                dns: span(transaction.domainLookupStartDate, transaction.domainLookupEndDate),
                connect: span(transaction.connectStartDate, transaction.connectEndDate),
                tls: span(transaction.secureConnectionStartDate, transaction.secureConnectionEndDate)
            )
        }
        // The task's own measurements replace the marks its callbacks left.
        handle.measured(connection: connection, requestSent: instant(transaction.requestEndDate),
                        responseStart: instant(transaction.responseStartDate))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if invalidatesSessionWhenDone {
            // Its one task is over: once invalidated, the session lets go of this delegate and,
            // released by the task's last holder, of its connection.
            session.finishTasksAndInvalidate()
        }
        guard let entry = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let spooled = entry.spooled {
            try? FileManager.default.removeItem(at: spooled)
        }
        if error == nil, let progress = entry.progress {
            let sent = task.countOfBytesSent
            progress(sent, sent)
        }
        // FoundationNetworking answers a declined challenge by cancelling; its failure response
        // was passed on in the challenge callback, so the head has arrived and the body is empty.
        // FoundationNetworking does not announce a 3xx whose redirect was declined: its head is
        // the task's response.
        if error == nil, let response = task.response, entry.stream.phase == .awaitingHead {
            Self.receive(response, into: entry.stream)
        }
        entry.stream.finish(error.map(URLSessionTransport.classified))
    }

    /// Redirects are the pipeline's to follow (``RedirectPolicy``): the 3xx response is returned.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Challenges are the pipeline's to answer: a 401 or 407 is returned as a response.
    ///
    /// Apple's `URLSession` returns the 401 itself under default handling. FoundationNetworking
    /// never completes the task under default handling and fails it as cancelled when declined, so
    /// there the challenge's `failureResponse` becomes the head, and the body is empty.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        if let response = challenge.failureResponse, let stream = entry(task)?.stream {
            Self.receive(response, into: stream)
            stream.finish(nil)
        }
        // This runs on FoundationNetworking's work queue (``InlineQueue``); declining cancels the
        // task, which must not wait for that queue.
        DispatchQueue.global().async {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
        #else
        // Server trust is URLSession's to evaluate; a 401 or 407 challenge is rejected, so the
        // response reaches the pipeline even when credentials sit in the URL.
        let method = challenge.protectionSpace.authenticationMethod
        if method == NSURLAuthenticationMethodServerTrust || method == NSURLAuthenticationMethodClientCertificate {
            completionHandler(.performDefaultHandling, nil)
        } else {
            completionHandler(.rejectProtectionSpace, nil)
        }
        #endif
    }
}

#if canImport(FoundationNetworking)
// MARK: - InlineQueue

/// The delegate queue of a Linux transport's session: it runs each delegate call at once, on the
/// thread that adds it, which is FoundationNetworking's work queue inside libcurl's callback.
///
/// With an ordinary queue, libcurl hands chunks over faster than a serial `OperationQueue` runs
/// them, and the chunks waiting in that queue (tens of MiB for a fast server) are memory that no
/// buffer limit can see. Run in place, every chunk reaches the ``TransferStream`` before libcurl
/// reads the next. The delegate never waits and never calls back into `URLSession`
/// synchronously; the only lock it takes is held for a dictionary lookup.
final class InlineQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif
