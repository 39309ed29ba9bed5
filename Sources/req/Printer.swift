import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Printer

/// Writes requests and responses the way httpie shows them: a start line, the headers sorted by
/// name, a blank line, the body.
struct Printer {
    let style: Style
    /// Whether standard output is a terminal: binary bodies are not dumped there.
    let terminal: Bool

    static let binaryNote = "+-----------------------------------------+\n| NOTE: binary data not shown in terminal |\n+-----------------------------------------+\n"

    /// The request line and headers, `Host` first, as they go on the wire: with `added`, the
    /// headers the transport adds where the request has none (its `behavior.addedHeaders`).
    func requestHead(_ request: URLRequest, added: HTTPHeaders = [:]) -> String {
        let url = request.url
        let components = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var text = "\(request.httpMethod ?? "GET") \(target) HTTP/1.1\n"
        if let host = url?.host {
            text += style.headerName("Host") + ": " + (url?.port.map { "\(host):\($0)" } ?? host) + "\n"
        }
        var headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for header in added where request.value(forHTTPHeaderField: header.name) == nil {
            headers.append((header.name, header.value))
        }
        headers.sort { $0.key.lowercased() < $1.key.lowercased() }
        if let body = request.httpBody, !body.isEmpty, request.value(forHTTPHeaderField: "Content-Length") == nil {
            headers.append(("Content-Length", "\(body.count)"))
            headers.sort { $0.key.lowercased() < $1.key.lowercased() }
        }
        for (name, value) in headers {
            text += style.headerName(name) + ": " + value + "\n"
        }
        return text + "\n"
    }

    /// The status line and headers of a response, repeated fields each on its own line.
    func responseHead(_ head: ResponseHead) -> String {
        let status = "\(head.httpVersion ?? "HTTP/1.1") \(head.statusCode) \(Self.reason(head.statusCode))"
        var text = style.status(status, code: head.statusCode) + "\n"
        // Sorted by name, stable: repeated fields keep the server's order.
        let headers = head.headers.enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element.name.lowercased(), rhs.element.name.lowercased())
            return left == right ? lhs.offset < rhs.offset : left < right
        }
        for (_, header) in headers {
            text += style.headerName(header.name) + ": " + header.value + "\n"
        }
        return text + "\n"
    }

    /// A request body exactly as sent, with a newline after it when it has none.
    func requestBody(_ data: Data) -> Data {
        guard !data.isEmpty else { return Data() }
        if terminal, Self.isBinary(data) { return Data(Self.binaryNote.utf8) }
        var output = data
        if output.last != UInt8(ascii: "\n") { output.append(UInt8(ascii: "\n")) }
        return output
    }

    /// A response body: JSON pretty-printed (coloured on a terminal), text as it is, binary
    /// data raw when piped and replaced by a note on a terminal.
    func responseBody(_ data: Data, mimeType: String?) -> Data {
        guard !data.isEmpty else { return Data() }
        if terminal, Self.isBinary(data) { return Data(Self.binaryNote.utf8) }
        let looksJSON = mimeType.map { $0 == "application/json" || $0.hasSuffix("+json") || $0 == "text/json" } ?? false
        if looksJSON, let pretty = JSONFormatter.format(data, style: style) {
            return Data((pretty + "\n").utf8)
        }
        if Self.isBinary(data) { return data }
        var output = data
        if output.last != UInt8(ascii: "\n") { output.append(UInt8(ascii: "\n")) }
        return output
    }

    /// NUL bytes or invalid UTF-8.
    static func isBinary(_ data: Data) -> Bool {
        data.contains(0) || String(validatingUTF8Data: data) == nil
    }

    static func reason(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: HTTPURLResponse.localizedString(forStatusCode: code).capitalized
        }
    }
}

extension String {
    /// The text of `data` when it is valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        self = text
    }
}
