import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - RecordingTransport

/// A transport that passes every request to another and records each exchange into an HTTP
/// Archive (``HAR``), for a test to replay later with ``ReplayTransport``.
///
/// ```swift
/// let recorder = RecordingTransport(wrapping: URLSessionTransport(), writingTo: fixtureURL)
/// let session = Session(transport: recorder)
/// _ = try await session.request("http://127.0.0.1:8080/users/7")
/// try await session.shutdown()   // writes the file
/// ```
///
/// Each trip is one entry: a redirect's hops and a retry's attempts each appear. The response
/// body is recorded as the caller reads it, so an entry is complete when the body was read to its
/// end; a body that failed midway, or that the caller cancelled, is recorded as far as it came,
/// with a `comment` and the `_errorKind` that ended it, and replays ending the same way. A trip
/// that failed before its head is an entry with status 0 and its `_errorKind`; a trip or a body
/// that a session timeout stopped is recorded as `timedOut`, as the session reported it; a trip
/// whose calling task was cancelled before its head is not recorded.
///
/// Credentials are redacted unless `redactsCredentials` is `false`: the values of the
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` headers, and a URL's user
/// and password, are written as `[redacted]` or left out. Name more headers and query items
/// (an `api_key`, say) with `redactedHeaders` and `redactedQueryItems`; a response body is the
/// server's data and is kept as it came.
public final class RecordingTransport: Transport {
    /// The header names whose values are redacted by default.
    public static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    private let inner: any Transport
    private let file: URL?
    fileprivate let redaction: Redaction
    fileprivate let log = Guarded<(next: Int, entries: [Int: HAR.Entry])>((0, [:]))

    /// Records what `transport` sends and receives.
    ///
    /// - Parameters:
    ///   - transport: The transport that does the work.
    ///   - file: Where ``shutdown()`` writes the archive; `nil` to write it only with ``write(to:)``.
    ///   - redactsCredentials: Whether credential header values and a URL's user and password are
    ///     hidden; `true` by default.
    ///   - redactedHeaders: More header names whose values are hidden, such as `X-Api-Key`.
    ///   - redactedQueryItems: Query item names whose values are hidden, such as `api_key`;
    ///     ``ReplayTransport`` matches a hidden value to any value.
    public init(
        wrapping transport: any Transport, writingTo file: URL? = nil, redactsCredentials: Bool = true,
        redactedHeaders: [String] = [], redactedQueryItems: [String] = []
    ) {
        self.inner = transport
        self.file = file
        self.redaction = Redaction(
            headers: Set(((redactsCredentials ? Self.credentialHeaders : []) + redactedHeaders).map { $0.lowercased() }),
            queryItems: Set(redactedQueryItems),
            stripsUserInfo: redactsCredentials
        )
    }

    /// What the wrapped transport does on its own.
    public var behavior: TransportBehavior { inner.behavior }

    /// The archive of every exchange finished so far, in the order they started.
    public var har: HAR {
        HAR(entries: log.withLock { $0.entries }.sorted { $0.key < $1.key }.map(\.value))
    }

    /// Forgets the exchanges recorded so far; ``har`` then holds those that finish from now on
    /// (a long recording written in parts with ``write(to:)``, or a load test that should not keep
    /// every body for the whole run).
    public func removeAllEntries() {
        let dropped = log.withLock { log -> [Int: HAR.Entry] in
            defer { log.entries = [:] }
            return log.entries
        }
        releaseUnlocked(dropped)
    }

    /// Writes ``har`` to a file.
    ///
    /// - Parameter url: The `.har` file, replaced when it exists.
    /// - Throws: The write error.
    public func write(to url: URL) throws {
        try har.jsonData().write(to: url, options: .atomic)
    }

    /// Writes the archive to the file given at creation, then shuts the wrapped transport down
    /// (also when the write failed).
    ///
    /// - Throws: The write error, or the wrapped transport's.
    public func shutdown() async throws {
        var writeError: (any Error)?
        if let file {
            do { try write(to: file) } catch { writeError = error }
        }
        try await inner.shutdown()
        if let writeError { throw writeError }
    }

    /// Sends through the wrapped transport, recording the request and, as it is read, the response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The wrapped transport's head, and its body, recorded as it is read.
    /// - Throws: What the wrapped transport throws; the failure is recorded as an entry with
    ///   status 0.
    public func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let number = log.withLock { log in
            defer { log.next += 1 }
            return log.next
        }
        let started = Date()
        let clock = ContinuousClock.now
        let sent = Guarded(Data())
        let forwarded: TransportRequest
        switch request.body.storage {
        case .stream(let chunks, let length):
            var teed = request.request
            teed.body = .stream(Teed(chunks: chunks, copy: sent), length: length)
            forwarded = TransportRequest(teed, progress: request.progress, handle: request.handle, readsBodyWhole: request.readsBodyWhole)
        case .file(let url, _):
            // Read before the lock: a section holds no I/O.
            let whole = (try? Data(contentsOf: url)) ?? Data()
            sent.withLock { $0 = whole }
            forwarded = request
        case .data(let data):
            sent.withLock { $0 = data }
            forwarded = request
        case .empty:
            forwarded = request
        }
        let entry = EntryDraft(request: request.request, started: started, redaction: redaction)
        let decoded = inner.behavior.decodesContentEncoding
        do {
            let (head, body) = try await inner.send(forwarded)
            let headArrived = ContinuousClock.now
            let handle = request.handle
            let source = RecordingSource(body: body, handle: request.handle) { [log] received, ending in
                let end = ContinuousClock.now
                let finished = entry.finished(
                    sent: sent.withLock { $0 }, head: head, received: received, ending: ending, decoded: decoded,
                    timings: HAR.Timings(handle.timings(start: clock), headArrived: headArrived, end: end), total: end - clock
                )
                log.withLock { $0.entries[number] = finished }
            }
            return (head, ResponseBody(source: source))
        } catch {
            // A session timeout cancels the handle and reports the call timed out; a cancelled
            // caller wanted nothing, so there is nothing to replay.
            let kind: TransportError.Kind? = request.handle.isCancelled ? .timedOut
                : (Task.isCancelled ? nil : TransportError.kind(of: error))
            if let kind {
                let end = ContinuousClock.now
                let timings = HAR.Timings(request.handle.timings(start: clock), headArrived: nil, end: end)
                let failed = entry.failed(sent: sent.withLock { $0 }, error: error, kind: kind, timings: timings, total: end - clock)
                log.withLock { $0.entries[number] = failed }
            }
            throw error
        }
    }
}

// MARK: - RecordingTransport + EventMonitor

extension RecordingTransport: EventMonitor {
    /// Records an answer the session's ``/Requests/HTTPCache`` made without the network, as an
    /// entry with `_fromCache` and the stored response's state; pass the recorder as one of the
    /// session's monitors too to have them (`Session(transport: recorder, monitors: [recorder], cache: …)`).
    ///
    /// - Parameters:
    ///   - response: The cache's answer.
    ///   - attempt: Unused.
    public func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt) {
        let started = Date().addingTimeInterval(-EntryDraft.milliseconds(response.duration) / 1000)
        let entry = EntryDraft(request: response.outgoingRequest, started: started, redaction: redaction).answeredFromCache(response)
        log.withLock { log in
            log.entries[log.next] = entry
            log.next += 1
        }
    }
}

// MARK: - Teeing the request body

/// A request body's chunks, passed on as they are read and copied into `copy`.
private struct Teed: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: ChunkStream
    let copy: Guarded<Data>

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: ChunkStream
        let copy: Guarded<Data>

        mutating func next() async throws -> Data? {
            guard let chunk = try await chunks.next() else { return nil }
            copy.withLock { $0.append(chunk) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, copy: copy) }
}

// MARK: - Recording the response body

/// The wrapped body's source, read for the caller and copied; reports once, at the body's end,
/// its failure, or its cancel. A cancel that the session's idle limit caused (it cancels the
/// trip's handle first) is reported as `timedOut`, as the session reports it.
private final class RecordingSource: ResponseBodySource {
    /// The wrapped body, kept so that its source is not cancelled as dropped while read here.
    private let body: ResponseBody
    private let handle: TransferHandle
    private let state = Guarded<(data: Data, reported: Bool)>((Data(), false))
    private let report: @Sendable (Data, (comment: String, kind: TransportError.Kind)?) -> Void

    init(body: ResponseBody, handle: TransferHandle, report: @escaping @Sendable (Data, (comment: String, kind: TransportError.Kind)?) -> Void) {
        self.body = body
        self.handle = handle
        self.report = report
    }

    func next() async throws -> Data? {
        do {
            guard let chunk = try await body.source.next() else {
                finish(nil)
                return nil
            }
            state.withLock { $0.data.append(chunk) }
            return chunk
        } catch {
            let count = state.withLock { $0.data.count }
            let kind = TransportError.kind(of: error)
            if kind == .cancelled {
                finish(cancelled(after: count))
            } else {
                finish(("the body failed after \(count) bytes: \(error)", kind))
            }
            throw error
        }
    }

    func cancel() {
        body.source.cancel()
        finish(cancelled(after: state.withLock { $0.data.count }))
    }

    /// How a cancelled body ended: timed out when the session's limit cancelled the trip.
    private func cancelled(after count: Int) -> (comment: String, kind: TransportError.Kind) {
        handle.isCancelled ? ("the body timed out after \(count) bytes", .timedOut)
            : ("the body was cancelled after \(count) bytes", .cancelled)
    }

    private func finish(_ ending: (comment: String, kind: TransportError.Kind)?) {
        let data: Data? = state.withLock { state in
            guard !state.reported else { return nil }
            state.reported = true
            return state.data
        }
        if let data { report(data, ending) }
    }
}
