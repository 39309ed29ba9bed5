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
    /// `--pretty` with `format`: JSON bodies re-indented.
    var reindent = false
    /// `--sorted`: JSON keys sorted (when re-indenting); `--unsorted` or neither: their order.
    /// Headers are always sorted by name: `URLSession` gives them without their wire order.
    var sorted: Bool?

    /// The printer `options` ask for, for output that is or is not a terminal.
    init(_ options: Options, terminal: Bool) {
        let pretty = Terminal.pretty(options, terminal: terminal)
        self.style = Style(enabled: Terminal.colors(options, terminal: terminal), name: options.style)
        self.terminal = terminal
        self.reindent = pretty == .all || pretty == .format
        self.sorted = options.sorted
    }

    init(style: Style, terminal: Bool) {
        self.style = style
        self.terminal = terminal
    }

    static let binaryNote = "+-----------------------------------------+\n| NOTE: binary data not shown in terminal |\n+-----------------------------------------+\n"

    /// The request line and headers, `Host` first, as they go on the wire: with `added`, the
    /// headers the transport adds where the request has none (its `behavior.addedHeaders`).
    func requestHead(_ request: OutgoingRequest, added: HTTPHeaders = [:]) -> String {
        let target = request.target
        var text = "\(request.method.rawValue) \(target.pathAndQuery) HTTP/1.1\n"
        if !target.host.isEmpty {
            let host = target.host.contains(":") ? "[\(target.host)]" : target.host
            text += style.headerName("Host") + ": " + (target.port.map { "\(host):\($0)" } ?? host) + "\n"
        }
        // As they go out (repeated fields as one, `Cookie` joined with "; "), sorted by name as
        // httpie shows them.
        var headers = (request.allHTTPHeaderFields ?? [:]).map { (key: $0.key, value: $0.value) }
        for header in added where request.headers[header.name] == nil {
            headers.append((header.name, header.value))
        }
        if let body = request.httpBody, !body.isEmpty, request.headers["Content-Length"] == nil {
            headers.append(("Content-Length", "\(body.count)"))
        }
        headers.sort { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in headers {
            text += style.headerName(name) + ": " + value + "\n"
        }
        return text + "\n"
    }

    /// The status line and headers of a response, sorted by name, repeated fields each on its own
    /// line in the server's order.
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

    /// A request body as sent (JSON formatted when `--pretty` formats), with a newline after it
    /// when it has none, since something always follows it.
    func requestBody(_ data: Data, mimeType: String? = nil) -> Data {
        guard !data.isEmpty else { return Data() }
        if terminal, Self.isBinary(data) { return Data(Self.binaryNote.utf8) }
        var output = prettified(data, mimeType: mimeType) ?? data
        if output.last != UInt8(ascii: "\n") { output.append(UInt8(ascii: "\n")) }
        return output
    }

    /// A response body. Formatted or coloured as `--pretty` asks (JSON re-indented in its own key
    /// order, or sorted with `--sorted`), with a newline at the end on a terminal; without
    /// `--pretty`, which is the default when the output is not a terminal, byte for byte as
    /// the server sent it. Binary data is replaced by a note on a terminal.
    ///
    /// - Parameter last: Whether nothing is printed after it; otherwise a newline ends it.
    func responseBody(_ data: Data, mimeType: String?, last: Bool = true) -> Data {
        guard !data.isEmpty else { return Data() }
        if terminal, Self.isBinary(data) { return Data(Self.binaryNote.utf8) }
        var output = prettified(data, mimeType: mimeType) ?? data
        if (terminal || !last) && !Self.isBinary(data), output.last != UInt8(ascii: "\n") {
            output.append(UInt8(ascii: "\n"))
        }
        return output
    }

    /// JSON formatted or coloured, when `--pretty` asks for either; `nil` otherwise.
    private func prettified(_ data: Data, mimeType: String?) -> Data? {
        guard reindent || style.enabled, Self.isJSON(mimeType) else { return nil }
        return JSONFormatter.format(data, style: style, reindent: reindent, sortKeys: sorted == true).map { Data($0.utf8) }
    }

    /// Whether a MIME type is JSON: `application/json`, `text/json` or `…+json`.
    static func isJSON(_ mimeType: String?) -> Bool {
        guard let type = mimeType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || type.hasSuffix("+json") || type == "text/json"
    }

    /// NUL bytes or invalid UTF-8.
    static func isBinary(_ data: Data) -> Bool {
        data.contains(0) || String(validatingUTF8Data: data) == nil
    }

    /// The status's reason phrase: the registry's (``ResponseHead/reasonPhrase(for:)``), or the
    /// platform's words for the status class for a code the registry does not name.
    static func reason(_ code: Int) -> String {
        let phrase = ResponseHead.reasonPhrase(for: code)
        return phrase.isEmpty ? HTTPURLResponse.localizedString(forStatusCode: code).capitalized : phrase
    }
}

extension String {
    /// The text of `data` when it is valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        self = text
    }
}
