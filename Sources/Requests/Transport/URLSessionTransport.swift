import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLSessionTransport

/// A ``Transport`` backed by `URLSession`, on Apple platforms and on Linux (FoundationNetworking).
///
/// Over a session it makes itself, every request is one task of that one `URLSession` (on Linux,
/// a `stream` or `download` call gets a `URLSession` of its own, so that leaving it closes its
/// connection: see `Documentation/Streaming.md`), whose delegate feeds each task's body to its reader (holding the network back when the reader is
/// behind, see ``streamBufferLimit``), reports upload progress, returns redirects unfollowed and
/// declines authentication challenges, so that a 401 reaches the pipeline as a response. Its
/// `URLSession` keeps no cookies and enforces no timeout of its own; the ``Session`` does both.
///
/// Over a caller's `URLSession` (``init(session:streamBufferLimit:)``), that session's delegate
/// keeps its say (redirects, challenges, pinning on Apple platforms), and bodies arrive whole:
/// the first chunk is the whole body.
///
/// On Linux, `URLSession` cannot trust a private certificate authority or pin a certificate: no
/// challenge reaches any delegate, and `SSL_CERT_FILE` is ignored; only the system's trust store
/// (`/etc/ssl/certs`, `update-ca-certificates`) works. Use the AsyncHTTPClient transport for that.
public struct URLSessionTransport: Transport {
    /// The session that carries the requests.
    public let session: URLSession
    /// How many bytes of a body may wait in memory for a slow reader; 1 MiB unless given.
    /// Beyond it, on Apple platforms the transfer is paused until the reader has taken half of
    /// them; on Linux, where FoundationNetworking cannot pause a transfer, the rest waits in an
    /// unlinked temporary file, read back in order.
    public let streamBufferLimit: Int
    /// The delegate of a session this transport made; `nil` over a caller's session.
    private let delegate: TaskDelegate?
    /// Whether ``shutdown()`` was called, and how many tasks are being made: a task made on an
    /// invalidated `URLSession` is a crash, not an error, and `URLSession` is never called under
    /// this lock. Invariant: once `closed`, no task is admitted; the session is invalidated once,
    /// by whichever of ``shutdown()`` and the last admitted start finds `closed` and no start
    /// under way (`invalidated` then set).
    private let lifecycle = Guarded<(closed: Bool, starting: Int, invalidated: Bool)>((false, 0, false))

    /// Creates a transport with its own `URLSession`.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.default` unless given. Its cookie storage,
    ///     URL cache and `timeoutIntervalForRequest` are not used: the ``Session`` keeps cookies
    ///     and time, and every response comes from the network.
    ///   - streamBufferLimit: How many bytes of a body may wait for a slow reader.
    public init(configuration: URLSessionConfiguration = .default, streamBufferLimit: Int = 1 << 20) {
        let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.timeoutIntervalForRequest = Self.engineTimeout
        // Every response comes from the network: like redirects and cookies, caching is the
        // pipeline's to decide (and looking a response up costs about 3% of a loopback request).
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = TaskDelegate()
        #if canImport(FoundationNetworking)
        // Delegate calls run in place on FoundationNetworking's work queue (see InlineQueue), so
        // that every chunk reaches its buffer before libcurl reads the next.
        let queue: OperationQueue? = InlineQueue()
        #else
        let queue: OperationQueue? = nil
        #endif
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.streamBufferLimit = streamBufferLimit
        self.delegate = delegate
    }

    /// Creates a transport over an existing session, which keeps its own delegate.
    ///
    /// - Parameters:
    ///   - session: The session to use.
    ///   - streamBufferLimit: Unused over a caller's session, whose bodies arrive whole.
    public init(session: URLSession, streamBufferLimit: Int = 1 << 20) {
        self.session = session
        self.streamBufferLimit = streamBufferLimit
        self.delegate = nil
    }

    /// `URLSession` decodes compressed bodies and adds, where a request has none, the headers
    /// below. On Linux they are libcurl's, and `Accept-Encoding` lists the encodings the system's
    /// libcurl decodes (Debian 12's: deflate, gzip, br, zstd).
    public var behavior: TransportBehavior { Self.standardBehavior }

    /// What every `URLSessionTransport` does on its own on this platform, known without making
    /// one (and so without starting a `URLSession`): for tools that show a request before it is
    /// sent, such as `req --offline`.
    public static var standardBehavior: TransportBehavior {
        #if canImport(FoundationNetworking)
        let added: HTTPHeaders = [
            "Accept": "*/*", "Accept-Encoding": "deflate, gzip, br, zstd", "Accept-Language": "en", "Connection": "keep-alive",
        ]
        #else
        let added: HTTPHeaders = ["Accept-Encoding": "gzip, deflate, br", "Connection": "keep-alive"]
        #endif
        return TransportBehavior(decodesContentEncoding: true, addedHeaders: added)
    }

    /// The timeout every task gets, so that `URLSession`'s own timer never fires before the
    /// session's: a week, `URLSession`'s own resource limit.
    static let engineTimeout: TimeInterval = 7 * 24 * 3600

    /// The failure of a WebSocket handshake over this engine.
    static let noWebSocket = TransportError(
        .other,
        detail: "URLSessionTransport opens no WebSocket (FoundationNetworking has none on Linux); use AsyncHTTPClientTransport with the package trait WebSocket"
    )

    /// Sends a request as one task of the transport's session and returns at its head.
    ///
    /// - Parameter request: The request and its body.
    /// - Returns: The head and the body.
    /// - Throws: ``TransportError`` (the `URLError` beneath) before the head arrived;
    ///   `CancellationError` when the calling task was cancelled.
    public func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        if request.request.options.webSocketUpgrade != nil { throw Self.noWebSocket }
        guard let delegate else {
            return try await sendWhole(request)
        }
        // The engine's request, built once: the session owns every timeout, so the engine's is a
        // week away. A file or stream body is not in it.
        let urlRequest = request.request.unvalidatedURLRequest(timeout: .seconds(Self.engineTimeout))
        var upload: URL?
        var spooled: URL?
        switch request.body.storage {
        case .empty, .data:
            break
        case .file(let url, _):
            upload = url
        case .stream:
            // URLSession streams a body only from an InputStream; the chunks go to a temporary
            // file first (memory stays bounded), which is then uploaded and removed.
            let file = try await Self.spool(request.body, for: request.request)
            spooled = file
            upload = file
        }
        // A request that failed on a reused HTTP/2 connection the server had closed, before any
        // byte of its answer, goes again on a new connection (``StaleConnection``). A streamed
        // body, spooled to a file the task removes, goes once.
        var resent = 0
        while true {
            do {
                // Only a request without a spooled body goes again, so `spooled` goes once.
                return try await start(urlRequest, upload: upload, spooled: spooled, for: request, delegate: delegate)
            } catch let error where spooled == nil && !Task.isCancelled {
                guard let failure = Self.staleConnectionFailure(error),
                      StaleConnection.mayResend(request, after: failure, resent: resent) else {
                    throw Self.classified(error)
                }
                resent += 1
            } catch {
                throw Self.classified(error)
            }
        }
    }

    /// Runs one task and waits for its head; throws the task's error as it is.
    private func start(
        _ urlRequest: URLRequest, upload: URL?, spooled: URL?, for request: TransportRequest, delegate: TaskDelegate
    ) async throws -> (ResponseHead, ResponseBody) {
        let stream = TransferStream(for: request, buffering: bufferLimits)
        var carrier = (session: session, delegate: delegate)
        #if canImport(FoundationNetworking)
        if !request.readsBodyWhole {
            carrier = transferSession()
        }
        #endif
        let admitted = lifecycle.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.starting += 1
            return true
        }
        guard admitted else {
            if carrier.session !== session { carrier.session.invalidateAndCancel() }
            throw TransportError(.other, detail: "the transport was shut down")
        }
        let task = if let upload {
            carrier.session.uploadTask(with: urlRequest, fromFile: upload)
        } else {
            carrier.session.dataTask(with: urlRequest)
        }
        carrier.delegate.register(task, stream: stream, progress: request.progress, spooled: spooled, handle: request.handle, readsBodyWhole: request.readsBodyWhole)
        task.resume()
        // Attached after it runs: a transfer cancelled meanwhile stops the task now.
        stream.attach(URLSessionEngine(task: task))
        let invalidate = lifecycle.withLock { state -> Bool in
            state.starting -= 1
            guard state.closed, state.starting == 0, !state.invalidated else { return false }
            state.invalidated = true
            return true
        }
        if invalidate { session.finishTasksAndInvalidate() }
        do {
            // The head made here, on the caller's thread, not on FoundationNetworking's one
            // queue that every transfer's delegate calls share.
            return (try await stream.head(), ResponseBody(source: stream))
        } catch {
            stream.cancel()
            throw error
        }
    }

    /// How a body waits for a slow reader: in memory up to ``streamBufferLimit``; beyond it, the
    /// task is suspended on Apple platforms, and on Linux, where FoundationNetworking cannot pause
    /// a transfer (`suspend()` removes it from libcurl and `resume()` starts it over, and blocking
    /// the delegate would block the queue every `URLSession` of the process shares), the rest
    /// goes to an unlinked temporary file, read back in order.
    private var bufferLimits: TransferBuffering {
        #if canImport(FoundationNetworking)
        TransferBuffering(bytes: streamBufferLimit, enginePauses: false)
        #else
        TransferBuffering(bytes: streamBufferLimit, enginePauses: true)
        #endif
    }

    #if canImport(FoundationNetworking)
    /// A session of its own for one streamed transfer (a `stream` or `download` call), with the
    /// transport's configuration and a delegate that invalidates it when the transfer completes.
    ///
    /// Over HTTP/2, libcurl (7.88, Debian 12's) answers a cancelled transfer by queueing an
    /// RST_STREAM that it writes only when the connection next carries a request: a reader who
    /// left an endless stream would leave the server streaming until the call's timeout. Nothing
    /// in FoundationNetworking's API closes one connection or flushes that frame; releasing the
    /// `URLSession` does (its libcurl handle is cleaned up, closing its connections). So a
    /// transfer read as it comes, which a reader may leave, gets a connection of its own, closed
    /// when the transfer ends: the server sees the disconnect within milliseconds. The cost is a
    /// connection (and a TLS handshake) per streamed transfer; requests read whole share the
    /// transport's session and its pooled connections.
    private func transferSession() -> (session: URLSession, delegate: TaskDelegate) {
        let delegate = TaskDelegate(invalidatesSessionWhenDone: true)
        let session = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: InlineQueue())
        return (session, delegate)
    }
    #endif

    /// How libcurl reports a request on a connection the server had already closed (its
    /// keep-alive ran out while the connection was idle in the pool): a refused HTTP/2 stream the
    /// server never processed, or a stream not closed cleanly; `nil` for any other failure.
    static func staleConnectionFailure(_ error: any Error) -> StaleConnection.Failure? {
        guard let urlError = TransportError.engineError(error) as? URLError else { return nil }
        let text = (urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? "").lowercased()
        if text.contains("http/2 stream") && text.contains("refused") { return .unprocessed }
        if text.contains("was not closed cleanly") { return .lost }
        return nil
    }

    /// Closes the transport's session once its tasks are done; over a caller's session, nothing.
    public func shutdown() async throws {
        guard delegate != nil else { return }
        let invalidate = lifecycle.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            guard state.starting == 0 else { return false }
            state.invalidated = true
            return true
        }
        if invalidate { session.finishTasksAndInvalidate() }
    }
}

// MARK: - Errors

extension URLSessionTransport {
    /// A `URLError` as a ``TransportError``; the error Apple's `URLSession` reports for the same
    /// event where FoundationNetworking's differs (libcurl calls a connection closed before any
    /// reply "Empty reply from server", under `badServerResponse`).
    static func classified(_ error: any Error) -> any Error {
        guard var urlError = error as? URLError else { return error }
        #if canImport(FoundationNetworking)
        if urlError.code == .badServerResponse,
           urlError.userInfo[NSLocalizedDescriptionKey] as? String == "Empty reply from server" {
            urlError = URLError(.networkConnectionLost, userInfo: urlError.userInfo)
        }
        #endif
        let kind = TransportError.Kind(urlError)
        return TransportError(kind, detail: kind == .tls ? tlsDetail(urlError) : "", underlyingError: urlError)
    }

    /// What a TLS failure means and what to do, in words (the engine's own, often `URLError
    /// unknown (-1)` on Linux, follow in parentheses).
    static func tlsDetail(_ error: URLError) -> String {
        let text = (error.userInfo[NSLocalizedDescriptionKey] as? String ?? "").lowercased()
        let certificate = text.contains("certificate") || text.contains("issuer") || text.contains("self signed")
            || text.contains("self-signed") || error.code == .serverCertificateUntrusted || error.code == .serverCertificateHasUnknownRoot
            || error.code == .serverCertificateHasBadDate || error.code == .serverCertificateNotYetValid
        guard certificate else { return "the TLS handshake failed" }
        #if canImport(FoundationNetworking)
        return "the server's certificate was not accepted (self-signed, not issued by a root in the system's trust store, "
            + "expired, or for another name); on Linux URLSession trusts only the system's store: add your CA there "
            + "(update-ca-certificates), or use AsyncHTTPClientTransport with tls.trustRoots"
        #else
        return "the server's certificate was not accepted (self-signed, not issued by a trusted root, expired, or for another name)"
        #endif
    }

    /// Writes a stream body to a temporary file, unlinked by the task's completion.
    static func spool(_ body: RequestBody, for request: OutgoingRequest) async throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("swift-requests-body-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw RequestError(.encodingFailed, request: request, detail: "could not create \(file.path) to hold the streamed body")
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            let chunks = body.chunks()
            while let chunk = try await chunks.next() {
                try handle.write(contentsOf: chunk)
            }
            return file
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// Over a caller's session: one task with a completion handler, its body whole.
    private func sendWhole(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let urlRequest = request.urlRequest
        var spooled: URL?
        defer { spooled.map { try? FileManager.default.removeItem(at: $0) } }
        var file: URL?
        switch request.body.storage {
        case .empty, .data:
            break
        case .file(let url, _):
            file = url
        case .stream:
            spooled = try await Self.spool(request.body, for: request.request)
            file = spooled
        }
        // The task's answer comes whole to its completion handler, and goes through a transfer
        // as any engine's: one cancel point (the transfer's), one wait for the head.
        let stream = TransferStream(for: request, buffering: TransferBuffering(bytes: .max, enginePauses: false))
        let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            if let error {
                stream.finish(Self.classified(error))
            } else if let http = response as? HTTPURLResponse {
                stream.receive(head: URLSessionHead(response: http))
                if let data { stream.receive(data) }
                stream.finish(nil)
            } else {
                stream.finish(TransportError(.other, detail: "the response is not HTTP"))
            }
        }
        let task = if let file {
            session.uploadTask(with: urlRequest, fromFile: file, completionHandler: handler)
        } else {
            session.dataTask(with: urlRequest, completionHandler: handler)
        }
        // Attached before it runs: a transfer cancelled first stops it at once.
        stream.attach(URLSessionEngine(task: task))
        task.resume()
        let head: ResponseHead
        do {
            head = try await stream.head()
        } catch {
            stream.cancel()
            throw error
        }
        if let total = request.body.length {
            request.progress?(total, total)
        }
        return (head, ResponseBody(source: stream))
    }
}

// MARK: - URLSessionEngine

/// A `URLSessionTask` as the engine of its transfer: stopping it cancels the task.
struct URLSessionEngine: TransferEngine {
    let task: URLSessionTask

    func stop() {
        task.cancel()
    }
}

// MARK: - URLSessionHead

/// A task's `HTTPURLResponse`, made into a ``ResponseHead`` by the reader, off FoundationNetworking's
/// one work queue.
struct URLSessionHead: TransferHead {
    let response: HTTPURLResponse

    func responseHead() -> ResponseHead {
        ResponseHead(response)
    }
}
