import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - EntryDraft

/// What is known of an exchange when its request goes out; finished into a ``HAR/Entry`` when
/// the response body ends or the exchange fails.
struct EntryDraft: Sendable {
    let method: String
    let url: String
    let headers: [HAR.NameValue]
    let queryString: [HAR.NameValue]
    let contentType: String
    let startedDateTime: String
    /// `operation <name>` when the request named its operation.
    let comment: String?
    /// The stored response the session's cache validates with this request.
    let cacheBefore: HAR.CacheState?

    init(request: OutgoingRequest, started: Date, redaction: Redaction) {
        method = request.method.rawValue
        let url: URL? = redaction.url(request.url)
        self.url = url?.absoluteString ?? ""
        // As they went out: in order, `Cookie` fields joined into one.
        let fields = request.headers.wireFields
        headers = fields.map { HAR.NameValue(name: $0.name, value: redaction.value(of: $0)) }
        queryString = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }?
            .map { HAR.NameValue(name: $0.name, value: $0.value ?? "") } ?? []
        contentType = fields["Content-Type"] ?? ""
        startedDateTime = Self.timestamp(started)
        comment = request.options.operationName.map { "operation " + $0 }
        cacheBefore = request.options[StoredResponseStateOption.self].map { state in
            HAR.CacheState(expires: Self.timestamp(state.expires), lastAccess: Self.timestamp(state.lastAccess), eTag: state.eTag)
        }
        self.redaction = redaction
    }

    private let redaction: Redaction

    /// The entry of an exchange whose body ended: whole, or early with `ending` saying how.
    func finished(
        sent: Data, head: ResponseHead, received: Data, ending: (comment: String, kind: TransportError.Kind)?,
        decoded: Bool, timings: HAR.Timings, total: Duration
    ) -> HAR.Entry {
        let body = HAR.text(of: received)
        let version = head.httpVersion ?? "HTTP/1.1"
        // A body the transport decoded had another size on the wire, which is not known here.
        let wireSize = decoded && head.headers["Content-Encoding"] != nil ? -1 : received.count
        let response = HAR.Response(
            status: head.statusCode,
            statusText: head.reasonPhrase,
            httpVersion: version,
            headers: head.headers.map { HAR.NameValue(name: $0.name, value: redaction.value(of: $0)) },
            content: HAR.Content(
                size: received.count, mimeType: head.headers["Content-Type"] ?? "",
                text: received.isEmpty ? nil : body.text, encoding: body.encoding,
                comment: ending?.comment, errorKind: ending?.kind.description
            ),
            redirectURL: head.headers["Location"] ?? "",
            bodySize: wireSize
        )
        return HAR.Entry(
            startedDateTime: startedDateTime, time: Self.milliseconds(total), request: request(sent: sent, version: version),
            response: response, cache: HAR.Cache(beforeRequest: cacheBefore), timings: timings, comment: comment
        )
    }

    /// The entry of an answer the session's cache made, with no exchange: the stored response
    /// as it answered, its age and `ETag` as the state before the request.
    func answeredFromCache(_ response: Requests.Response) -> HAR.Entry {
        var entry = finished(sent: Data(), head: response.head, received: response.data, ending: nil, decoded: false,
                             timings: HAR.Timings(wait: 0, receive: Self.milliseconds(response.duration)), total: response.duration)
        let age = response.headers["Age"].flatMap { Double($0) } ?? 0
        entry.cache.beforeRequest = HAR.CacheState(
            expires: nil, lastAccess: Self.timestamp(Date().addingTimeInterval(-age)), eTag: response.headers["ETag"] ?? ""
        )
        entry.fromCache = response.cacheStatus?.description ?? "hit"
        return entry
    }

    /// The entry of an exchange that failed before its head, as the session saw the failure.
    func failed(sent: Data, error: any Error, kind: TransportError.Kind, timings: HAR.Timings, total: Duration) -> HAR.Entry {
        let response = HAR.Response(
            status: 0, statusText: "", httpVersion: "", headers: [],
            content: HAR.Content(size: 0, mimeType: ""), redirectURL: "", bodySize: 0,
            error: String(describing: error), errorKind: kind.description
        )
        let whole = Self.milliseconds(total)
        return HAR.Entry(
            startedDateTime: startedDateTime, time: whole, request: request(sent: sent, version: "HTTP/1.1"), response: response,
            cache: HAR.Cache(beforeRequest: cacheBefore), timings: timings, comment: comment
        )
    }

    private func request(sent: Data, version: String) -> HAR.Request {
        let body = HAR.text(of: sent)
        return HAR.Request(
            method: method, url: url, httpVersion: version, headers: headers, queryString: queryString,
            postData: sent.isEmpty ? nil : HAR.PostData(mimeType: contentType, text: body.text, encoding: body.encoding),
            bodySize: sent.count
        )
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

// MARK: - Redaction

/// What a recording hides: the values of some headers and query items, and the user and password
/// of a URL. Each hidden value is written as ``Redaction/placeholder``.
struct Redaction: Sendable {
    /// What a hidden value is written as.
    static let placeholder = "[redacted]"

    /// Header names, lowercased.
    let headers: Set<String>
    /// Query item names, as written.
    let queryItems: Set<String>
    /// Whether a URL's user and password are left out.
    let stripsUserInfo: Bool

    func value(of header: HTTPHeader) -> String {
        headers.contains(header.name.lowercased()) ? Self.placeholder : header.value
    }

    /// The URL without its user and password, its redacted query items' values hidden.
    func url(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let hasCredentials = stripsUserInfo && (components.user != nil || components.password != nil)
        let redactsQuery = components.queryItems?.contains { queryItems.contains($0.name) } == true
        guard hasCredentials || redactsQuery else { return url }
        components.user = nil
        components.password = nil
        if redactsQuery {
            components.queryItems = components.queryItems?.map {
                queryItems.contains($0.name) ? URLQueryItem(name: $0.name, value: Self.placeholder) : $0
            }
        }
        return components.url ?? url
    }
}
