import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - ReplayTransport

/// A transport that answers from an HTTP Archive (``HAR``), offline: record once with
/// ``RecordingTransport`` against a real server, then replay in every run after.
///
/// A request is answered by a recorded entry with the same method and URL (and the same body,
/// with `matchingBody`), the entries of one request in the order they were recorded:
///
/// - ``Mode/strict`` compares query items in their order and bodies byte for byte, and answers
///   each entry once: a request that was not recorded, or asked for more often than it was,
///   fails with ``UnmatchedRequest``.
/// - ``Mode/lenient`` compares query items in any order and JSON bodies by value, and repeats the
///   last matching entry once the others are used; a request that was never recorded fails too.
///
/// A recorded `[redacted]` query value matches any value, and a URL's user and password are not
/// compared, so that a recording with its secrets hidden still replays.
///
/// An entry recorded as a failure (status 0) is thrown again as a ``/Requests/TransportError`` of its
/// recorded kind. The recorded body is the one the caller read, already decoded, so a replayed
/// head carries no `Content-Encoding` and a `Content-Length` of that body.
public final class ReplayTransport: Transport {
    /// How closely a request must match its recording.
    public enum Mode: Sendable {
        /// URLs as text, each entry once, nothing unrecorded.
        case strict
        /// Query order and JSON spacing ignored, the last entry repeating.
        case lenient
    }

    private let entries: [HAR.Entry]
    private let mode: Mode
    private let matchingBody: Bool
    private let used = Guarded<[Int]>([])
    private let received = Guarded<[RecordedRequest]>([])

    /// Replays an archive.
    ///
    /// - Parameters:
    ///   - har: The archive.
    ///   - mode: How closely requests must match; ``Mode/strict`` by default.
    ///   - matchingBody: Whether the body must match too; `false` by default.
    public init(_ har: HAR, mode: Mode = .strict, matchingBody: Bool = false) {
        // What a cache answered never reached the network, so it is never a network answer.
        let entries = har.log.entries.filter { $0.fromCache == nil }
        self.entries = entries
        self.mode = mode
        self.matchingBody = matchingBody
        used.withLock { $0 = Array(repeating: 0, count: entries.count) }
    }

    /// Replays an archive file.
    ///
    /// - Parameters:
    ///   - url: The `.har` file.
    ///   - mode: How closely requests must match; ``Mode/strict`` by default.
    ///   - matchingBody: Whether the body must match too; `false` by default.
    /// - Throws: The read error, or a `DecodingError` naming what is missing from the file.
    public convenience init(contentsOf url: URL, mode: Mode = .strict, matchingBody: Bool = false) throws {
        self.init(try HAR(contentsOf: url), mode: mode, matchingBody: matchingBody)
    }

    /// Every request received, in the order they came.
    public var requests: [RecordedRequest] { received.withLock { $0 } }

    /// The recorded entries no request has asked for yet.
    public var unusedEntries: [HAR.Entry] {
        let counts = used.withLock { $0 }
        return entries.indices.filter { counts[$0] == 0 }.map { entries[$0] }
    }

    /// Answers from the archive.
    ///
    /// - Parameter request: The request.
    /// - Returns: The recorded head and body; a body recorded as ending early ends the same way.
    /// - Throws: ``UnmatchedRequest`` naming the request and the nearest entries; the recorded
    ///   failure as a ``/Requests/TransportError``; `CancellationError` when the call is
    ///   cancelled (no entry is used up then).
    public func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let recorded = try await RecordedRequest(reading: request)
        received.withLock { $0.append(recorded) }
        try Task.checkCancellation()
        if request.handle.isCancelled { throw CancellationError() }
        let matching = entries.indices.filter { differences(entries[$0], recorded).isEmpty }
        let chosen: Int? = used.withLock { used in
            let index = matching.first { used[$0] == 0 } ?? (mode == .lenient ? matching.last : nil)
            if let index { used[index] += 1 }
            return index
        }
        guard let chosen else { throw unmatched(recorded, matching: matching) }
        return try answer(entries[chosen].response, to: recorded)
    }

    /// The head and body of a recorded response, or its recorded failure.
    private func answer(_ response: HAR.Response, to request: RecordedRequest) throws -> (ResponseHead, ResponseBody) {
        if response.status == 0 {
            throw TransportError(Self.kind(response.errorKind), detail: "replayed: \(response.error ?? "a recorded failure")")
        }
        var body = HAR.data(of: response.content.text, encoding: response.content.encoding)
        var headers = HTTPHeaders()
        for field in response.headers {
            headers.append(name: field.name, value: field.value)
        }
        // The recorded body is what the caller read: decoded, and whole unless it ended early.
        headers.remove(name: "Content-Encoding")
        headers.remove(name: "Transfer-Encoding")
        let ending = response.content.errorKind.map { Self.kind($0) }
        if request.method == .head || !StubResponse.mayHaveBody(status: response.status) {
            body = Data()
        } else if ending != nil {
            headers.remove(name: "Content-Length")
        } else {
            headers.update(name: "Content-Length", value: String(body.count))
        }
        let head = ResponseHead(statusCode: response.status, headers: headers, url: request.url, httpVersion: response.httpVersion)
        guard let ending else { return (head, ResponseBody(body)) }
        let failure = TransportError(ending, detail: "replayed: " + (response.content.comment ?? "the recorded body ended early"))
        return (head, ResponseBody(source: ChunkSource(body.isEmpty ? [] : [body], interval: .zero, failure: failure)))
    }

    private static func kind(_ name: String?) -> TransportError.Kind {
        TransportError.Kind.all.first { $0.description == name } ?? .other
    }

    // MARK: Matching

    private func differences(_ entry: HAR.Entry, _ request: RecordedRequest) -> [String] {
        var found: [String] = []
        if entry.request.method != request.method.rawValue {
            found.append("method is \(request.method.rawValue), not \(entry.request.method)")
        }
        if !sameURL(entry.request.url, request.url) {
            found.append("URL is \(request.url.absoluteString), not \(entry.request.url)")
        }
        if matchingBody {
            let recorded = HAR.data(of: entry.request.postData?.text, encoding: entry.request.postData?.encoding)
            if !sameBody(recorded, request.body) {
                found.append("body of \(request.body.count) bytes differs from the recorded \(recorded.count)")
            }
        }
        return found
    }

    /// Whether a request's URL is the recorded one: the same scheme, host, port and path, and the
    /// same query items (in the same order when strict), a recorded `[redacted]` value matching
    /// any value; a user and password are not compared (a recording leaves them out).
    private func sameURL(_ recorded: String, _ url: URL) -> Bool {
        if recorded == url.absoluteString { return true }
        guard var left = URLComponents(string: recorded),
              var right = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return false }
        var leftItems = left.queryItems ?? []
        var rightItems = right.queryItems ?? []
        for components in [\URLComponents.query, \.user, \.password] {
            left[keyPath: components] = nil
            right[keyPath: components] = nil
        }
        guard left == right, leftItems.count == rightItems.count else { return false }
        if mode == .lenient {
            let order = { (a: URLQueryItem, b: URLQueryItem) in (a.name, a.value ?? "") < (b.name, b.value ?? "") }
            leftItems.sort(by: order)
            rightItems.sort(by: order)
        }
        return zip(leftItems, rightItems).allSatisfy { recordedItem, item in
            recordedItem.name == item.name && (recordedItem.value == item.value || recordedItem.value == Redaction.placeholder)
        }
    }

    private func sameBody(_ recorded: Data, _ sent: Data) -> Bool {
        if recorded == sent { return true }
        guard mode == .lenient,
              let left = try? JSONSerialization.jsonObject(with: recorded, options: [.fragmentsAllowed]) as? NSObject,
              let right = try? JSONSerialization.jsonObject(with: sent, options: [.fragmentsAllowed]) as? NSObject else { return false }
        return left.isEqual(right)
    }

    private func unmatched(_ request: RecordedRequest, matching: [Int]) -> UnmatchedRequest {
        if let last = matching.last {
            let entry = entries[last].request
            return UnmatchedRequest(
                request: request, source: "recorded entry left in the HAR file",
                nearest: [(route: "\(entry.method) \(entry.url)", differences: ["recorded \(matching.count) times, all replayed (strict mode)"])]
            )
        }
        let nearest = entries.enumerated()
            .map { (offset: $0.offset, route: "\($0.element.request.method) \($0.element.request.url)", differences: differences($0.element, request)) }
            .sorted { ($0.differences.count, $0.offset) < ($1.differences.count, $1.offset) }
            .prefix(3)
            .map { (route: $0.route, differences: $0.differences) }
        return UnmatchedRequest(request: request, source: "recorded entry in the HAR file", nearest: Array(nearest))
    }
}

// MARK: - Record once, replay after

extension ReplayTransport {
    /// Replays `file` when it exists; otherwise records what `live` does into `file`, written when
    /// the session shuts down. A test that uses it talks to a real server once, to record, and
    /// runs offline from then on; delete the file to record again.
    ///
    /// ```swift
    /// let transport = try ReplayTransport.replaying(fixture, orRecordingThrough: URLSessionTransport())
    /// let session = Session(transport: transport)
    /// let user = try await APIClient(session: session).user(7)
    /// try await session.shutdown()   // writes the file when recording
    /// ```
    ///
    /// - Parameters:
    ///   - file: The `.har` file.
    ///   - live: The transport to record through, made only when the file does not exist.
    ///   - mode: How closely requests must match when replaying; ``Mode/strict`` by default.
    ///   - matchingBody: Whether bodies must match when replaying; `false` by default.
    ///   - redactsCredentials: Whether credentials are redacted when recording; `true` by default.
    ///   - redactedHeaders: More header names to redact when recording.
    ///   - redactedQueryItems: Query item names to redact when recording.
    /// - Returns: A ``ReplayTransport`` or a ``RecordingTransport``.
    /// - Throws: The file's read or decoding error when it exists but cannot be replayed.
    public static func replaying(
        _ file: URL, orRecordingThrough live: @autoclosure () -> any Transport, mode: Mode = .strict,
        matchingBody: Bool = false, redactsCredentials: Bool = true, redactedHeaders: [String] = [],
        redactedQueryItems: [String] = []
    ) throws -> any Transport {
        if FileManager.default.fileExists(atPath: file.path) {
            return try ReplayTransport(contentsOf: file, mode: mode, matchingBody: matchingBody)
        }
        return RecordingTransport(
            wrapping: live(), writingTo: file, redactsCredentials: redactsCredentials,
            redactedHeaders: redactedHeaders, redactedQueryItems: redactedQueryItems
        )
    }
}
