#if Tracing
import Foundation
import Tracing

// MARK: - HTTPAttributes

/// The attribute values OpenTelemetry's HTTP client conventions ask for, made from the pipeline's
/// own values: the same for spans and metrics.
enum HTTPAttributes {
    /// `url.full`: the URL as sent, credentials and the values of `redacted` query items shown
    /// as `REDACTED`, without a fragment (which is never sent).
    static func fullURL(_ target: RequestTarget, redacting redacted: Set<String>) -> String {
        var text = target.scheme + "://"
        if target.user != nil || target.password != nil {
            text += "REDACTED:REDACTED@"
        }
        let host = target.host
        text += host.contains(":") ? "[\(host)]" : host
        if let port = target.port {
            text += ":\(port)"
        }
        text += target.path
        if let query = target.query {
            text += "?" + redactedQuery(query, redacted)
        }
        return text
    }

    /// A query with the values of the named items replaced by `REDACTED`.
    static func redactedQuery(_ query: String, _ redacted: Set<String>) -> String {
        guard !redacted.isEmpty, !query.isEmpty else { return query }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let decoded = String(name).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(name)
            return redacted.contains(decoded) ? "\(name)=REDACTED" : String(item)
        }.joined(separator: "&")
    }

    /// `server.port`: the URL's port, or its scheme's default.
    static func port(_ target: RequestTarget) -> Int? {
        if let port = target.port { return port }
        switch target.scheme.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }

    /// `network.protocol.version`: `1.1`, `2`, … from a head's `HTTP/1.1`, `HTTP/2.0`.
    static func protocolVersion(_ head: ResponseHead) -> String? {
        guard var version = head.httpVersion else { return nil }
        if version.uppercased().hasPrefix("HTTP/") { version.removeFirst(5) }
        if version.hasSuffix(".0"), version != "1.0" { version.removeLast(2) }
        return version.isEmpty ? nil : version
    }

    /// `error.type` of a failed call or trip: the transport's failure kind (`connectionRefused`,
    /// `timedOut`), the pipeline's error code, or `cancelled`.
    static func errorType(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        if let error = error as? RequestError {
            return error.transportErrorKind.map { "\($0)" } ?? error.code.description
        }
        return String(describing: type(of: error))
    }

    /// The methods the conventions know; any other is `_OTHER`.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]

    /// A span's name: the method, or `HTTP` for one the conventions do not know.
    static func spanName(_ method: HTTPMethod) -> String {
        knownMethods.contains(method.rawValue) ? method.rawValue : "HTTP"
    }

    /// `http.request.method`: the method, or `_OTHER` for one the conventions do not know.
    static func method(_ method: HTTPMethod) -> String {
        knownMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
    }

    /// The attributes of a request: method, `url.full`, `server.address`, `server.port`.
    static func request(_ request: OutgoingRequest, redacting redacted: Set<String>, into attributes: inout SpanAttributes) {
        let target = request.target
        attributes.set("http.request.method", value: .string(method(request.method)))
        if method(request.method) == "_OTHER" {
            attributes.set("http.request.method_original", value: .string(request.method.rawValue))
        }
        attributes.set("url.full", value: .string(fullURL(target, redacting: redacted)))
        attributes.set("server.address", value: .string(target.host))
        if let port = port(target) {
            attributes.set("server.port", value: .int64(Int64(port)))
        }
    }

    /// The attributes of a response: status, protocol version, and `error.type` for a status
    /// of 400 or more.
    static func response(_ head: ResponseHead, into attributes: inout SpanAttributes) {
        attributes.set("http.response.status_code", value: .int64(Int64(head.statusCode)))
        if let version = protocolVersion(head) {
            attributes.set("network.protocol.version", value: .string(version))
        }
        if head.statusCode >= 400 {
            attributes.set("error.type", value: .string(String(head.statusCode)))
        }
    }
}
#endif
