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

    init(request: URLRequest, started: Date, redacted: Set<String>) {
        method = request.httpMethod ?? "GET"
        url = request.url?.absoluteString ?? ""
        let fields = HTTPHeaders(request.allHTTPHeaderFields ?? [:]).sorted()
        headers = fields.map { HAR.NameValue(name: $0.name, value: redacted.contains($0.name.lowercased()) ? "[redacted]" : $0.value) }
        queryString = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }?
            .map { HAR.NameValue(name: $0.name, value: $0.value ?? "") } ?? []
        contentType = fields["Content-Type"] ?? ""
        startedDateTime = Self.timestamp(started)
        self.redacted = redacted
    }

    private let redacted: Set<String>

    func finished(sent: Data, head: ResponseHead, received: Data, comment: String?, wait: Duration, total: Duration) -> HAR.Entry {
        let body = HAR.text(of: received)
        let version = head.httpVersion ?? "HTTP/1.1"
        let response = HAR.Response(
            status: head.statusCode,
            statusText: HTTPURLResponse.localizedString(forStatusCode: head.statusCode).capitalized,
            httpVersion: version,
            headers: head.headers.map { HAR.NameValue(name: $0.name, value: redacted.contains($0.name.lowercased()) ? "[redacted]" : $0.value) },
            content: HAR.Content(
                size: received.count, mimeType: head.headers["Content-Type"] ?? "",
                text: received.isEmpty ? nil : body.text, encoding: body.encoding, comment: comment
            ),
            redirectURL: head.headers["Location"] ?? "",
            bodySize: received.count
        )
        let waited = Self.milliseconds(wait)
        let whole = Self.milliseconds(total)
        return HAR.Entry(
            startedDateTime: startedDateTime, time: whole, request: request(sent: sent, version: version), response: response,
            timings: HAR.Timings(wait: waited, receive: max(0, whole - waited))
        )
    }

    func failed(sent: Data, error: any Error, total: Duration) -> HAR.Entry {
        let response = HAR.Response(
            status: 0, statusText: "", httpVersion: "", headers: [],
            content: HAR.Content(size: 0, mimeType: ""), redirectURL: "", bodySize: 0,
            error: String(describing: error), errorKind: TransportError.kind(of: error).description
        )
        let whole = Self.milliseconds(total)
        return HAR.Entry(
            startedDateTime: startedDateTime, time: whole, request: request(sent: sent, version: "HTTP/1.1"), response: response,
            timings: HAR.Timings(wait: whole, receive: 0)
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
