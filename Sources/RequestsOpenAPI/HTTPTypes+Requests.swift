#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Requests

// MARK: - Request

extension OutgoingRequest {
    /// The request value for a generated client's request: `baseURL` joined with the request's
    /// path and query (never re-encoded), the fields in order with their repeats, and the body.
    ///
    /// - Throws: ``/Requests/RequestError`` (`invalidURL`) when the request has no path, or when
    ///   the joined path or the query cannot appear in a URL.
    init(_ request: HTTPRequest, body: OpenAPIRuntime.HTTPBody?, baseURL: URL) throws {
        let method = HTTPMethod(rawValue: request.method.rawValue)
        guard let path = request.path else {
            throw RequestError(.invalidURL, method: method, url: baseURL, detail: "the \(request.method) request of the generated client has no path")
        }
        var target = RequestTarget(baseURL)
        let (pathPart, query) = Self.split(path)
        do {
            // The base's path ends where the operation's begins: "/v1/" and "/pets" make "/v1/pets".
            var base = target.path
            if base.hasSuffix("/") { base.removeLast() }
            try target.setPath(base + pathPart)
            try target.setQuery(query)
            try target.setFragment(nil)
        } catch {
            throw RequestError(.invalidURL, method: method, url: baseURL,
                               detail: "the path \(path) of the generated client's request cannot be joined to \(baseURL.absoluteString)",
                               underlyingError: error)
        }
        var headers = HTTPHeaders()
        for field in request.headerFields {
            headers.append(name: field.name.rawName, value: field.value)
        }
        self.init(target, method: method, headers: headers, body: body.map(RequestBody.init) ?? .empty)
    }

    /// A request path split at its first `?` into the path and the query.
    private static func split(_ path: String) -> (path: String, query: String?) {
        guard let mark = path.firstIndex(of: "?") else { return (path, nil) }
        return (String(path[..<mark]), String(path[path.index(after: mark)...]))
    }
}

extension RequestBody {
    /// A generated client's body, streamed: made anew for every send when the client can iterate
    /// it several times, sent once otherwise.
    init(_ body: OpenAPIRuntime.HTTPBody) {
        let length: Int64? = if case .known(let count) = body.length { count } else { nil }
        // A body known to be empty has nothing to send twice.
        if length == 0 {
            self = .empty
            return
        }
        switch body.iterationBehavior {
        case .multiple:
            self = .stream(length: length) { body.map { Data($0) } }
        case .single:
            self = .stream(body.map { Data($0) }, length: length)
        }
    }
}

// MARK: - Response

extension HTTPResponse {
    /// The head of a streamed response, its fields in the order the transport gave them.
    ///
    /// - Throws: ``/Requests/RequestError`` (`transportFailed`) for what no HTTP message can
    ///   carry, and `HTTPResponse` would change: a status code outside 0...999, a field name that
    ///   is not a token, a value with a control character or DEL.
    init(_ stream: ResponseStream) throws {
        func refuse(_ detail: String) -> RequestError {
            stream.cancel()
            return RequestError(.transportFailed, response: stream.response, detail: detail)
        }
        let status = stream.statusCode
        guard (0...999).contains(status) else {
            throw refuse("the transport answered status \(status), which HTTP has no place for")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(stream.headers.count)
        for header in stream.headers {
            guard let name = HTTPField.Name(header.name) else {
                throw refuse("the response field name \"\(header.name)\" is not an HTTP token")
            }
            // Whitespace around a value is not part of it (RFC 9110 §5.5); what is left must be
            // a valid value as it is, or HTTPField would change it.
            let value = header.value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard HTTPField.isValidValue(value) else {
                throw refuse("the value of the response field \(header.name) holds a control character or DEL")
            }
            fields.append(HTTPField(name: name, value: value))
        }
        self.init(status: Status(code: status, reasonPhrase: stream.response.head.reasonPhrase), headerFields: fields)
    }
}

extension OpenAPIRuntime.HTTPBody {
    /// A response body that streams as the client reads it, pulled from the engine. Its length
    /// is known when `Content-Length` gives the bytes that arrive: not for a body the engine
    /// decoded (`Content-Encoding`), nor for one a status forbids.
    convenience init(_ stream: ResponseStream, status: HTTPResponse.Status) {
        var length = OpenAPIRuntime.HTTPBody.Length.unknown
        let encoded = stream.headers.value(for: "Content-Encoding").map { $0.lowercased() != "identity" } ?? false
        if let expected = stream.expectedLength, !encoded, status.code != 204, status.code != 304 {
            length = .known(expected)
        }
        self.init(stream.body.map { ByteChunk($0) }, length: length, iterationBehavior: .single)
    }
}

#endif
