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
/// end; a body cancelled or failed midway is recorded as far as it came, with a `comment` saying
/// so. Credentials (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`) are written
/// as `[redacted]` unless `redactsCredentials` is `false`.
public final class RecordingTransport: Transport {
    /// The header names whose values are redacted by default.
    public static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    private let inner: any Transport
    private let file: URL?
    private let redacted: Set<String>
    private let log = Locked<(next: Int, entries: [Int: HAR.Entry])>((0, [:]))

    /// Records what `transport` sends and receives.
    ///
    /// - Parameters:
    ///   - transport: The transport that does the work.
    ///   - file: Where ``shutdown()`` writes the archive; `nil` to write it only with ``write(to:)``.
    ///   - redactsCredentials: Whether credential header values are written as `[redacted]`;
    ///     `true` by default.
    ///   - redactedHeaders: More header names to redact, such as `X-Api-Key`.
    public init(
        wrapping transport: any Transport, writingTo file: URL? = nil, redactsCredentials: Bool = true,
        redactedHeaders: [String] = []
    ) {
        self.inner = transport
        self.file = file
        self.redacted = Set(((redactsCredentials ? Self.credentialHeaders : []) + redactedHeaders).map { $0.lowercased() })
    }

    /// What the wrapped transport does on its own.
    public var behavior: TransportBehavior { inner.behavior }

    /// The archive of every exchange finished so far, in the order they started.
    public var har: HAR {
        HAR(entries: log.withLock { $0.entries }.sorted { $0.key < $1.key }.map(\.value))
    }

    /// Writes ``har`` to a file.
    ///
    /// - Parameter url: The `.har` file, replaced when it exists.
    /// - Throws: The write error.
    public func write(to url: URL) throws {
        try har.jsonData().write(to: url, options: .atomic)
    }

    /// Shuts the wrapped transport down, then writes the archive to the file given at creation.
    ///
    /// - Throws: The wrapped transport's error, or the write error.
    public func shutdown() async throws {
        try await inner.shutdown()
        if let file { try write(to: file) }
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
        let sent = Locked(Data())
        let forwarded: TransportRequest
        switch request.body.storage {
        case .stream(let chunks, let length):
            forwarded = TransportRequest(
                request.urlRequest, body: .stream(Teed(chunks: chunks, copy: sent), length: length),
                progress: request.progress, handle: request.handle
            )
        case .file(let url, _):
            sent.withLock { $0 = (try? Data(contentsOf: url)) ?? Data() }
            forwarded = request
        case .data(let data):
            sent.withLock { $0 = data }
            forwarded = request
        case .empty:
            forwarded = request
        }
        let entry = EntryDraft(request: request.urlRequest, started: started, redacted: redacted)
        do {
            let (head, body) = try await inner.send(forwarded)
            let wait = ContinuousClock.now - clock
            let source = RecordingSource(body: body) { [log] received, comment in
                let finished = entry.finished(
                    sent: sent.withLock { $0 }, head: head, received: received, comment: comment,
                    wait: wait, total: ContinuousClock.now - clock
                )
                log.withLock { $0.entries[number] = finished }
            }
            return (head, ResponseBody(source: source))
        } catch {
            let failed = entry.failed(sent: sent.withLock { $0 }, error: error, total: ContinuousClock.now - clock)
            log.withLock { $0.entries[number] = failed }
            throw error
        }
    }
}

// MARK: - Teeing the request body

/// A request body's chunks, passed on as they are read and copied into `copy`.
private struct Teed: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: ChunkStream
    let copy: Locked<Data>

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: ChunkStream
        let copy: Locked<Data>

        mutating func next() async throws -> Data? {
            guard let chunk = try await chunks.next() else { return nil }
            copy.withLock { $0.append(chunk) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, copy: copy) }
}

// MARK: - Recording the response body

/// The wrapped body, read for the caller and copied; reports once, at its end, failure or cancel.
private final class RecordingSource: ResponseBodySource, @unchecked Sendable {
    // One reader at a time calls next() (the ResponseBodySource contract), so `iterator` needs no
    // lock; `state` is touched by cancel() from anywhere.
    private var iterator: ResponseBody.AsyncIterator
    private let body: ResponseBody
    private let state = Locked<(data: Data, reported: Bool)>((Data(), false))
    private let report: @Sendable (Data, String?) -> Void

    init(body: ResponseBody, report: @escaping @Sendable (Data, String?) -> Void) {
        self.body = body
        self.iterator = body.makeAsyncIterator()
        self.report = report
    }

    func next() async throws -> Data? {
        do {
            guard let chunk = try await iterator.next() else {
                finish(comment: nil)
                return nil
            }
            state.withLock { $0.data.append(chunk) }
            return chunk
        } catch {
            finish(comment: "the body failed after \(state.withLock { $0.data.count }) bytes: \(error)")
            throw error
        }
    }

    func cancel() {
        body.cancel()
        finish(comment: "the body was cancelled after \(state.withLock { $0.data.count }) bytes")
    }

    private func finish(comment: String?) {
        let data: Data? = state.withLock { state in
            guard !state.reported else { return nil }
            state.reported = true
            return state.data
        }
        if let data { report(data, comment) }
    }
}
