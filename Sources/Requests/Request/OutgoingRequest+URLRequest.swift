import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - OutgoingRequest and URLRequest

extension OutgoingRequest {
    /// The request a `URLRequest` describes: for a `ParameterEncoding` of a third party, which
    /// writes into a `URLRequest`, and for code that has one already.
    ///
    /// `URLRequest` keeps header fields in a dictionary, whose order changes from run to run; they
    /// are taken sorted by name, so the same `URLRequest` gives the same request every time.
    ///
    /// - Parameter urlRequest: The request.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`missingURL`) for a request
    ///   without a URL (a relative one is kept, for a ``ServerEnvironment`` to complete);
    ///   ``RequestError`` (`encodingFailed`) for a body given as an
    ///   `InputStream`, which cannot be carried (give it as ``RequestBody/stream(_:length:)``).
    public init(_ urlRequest: URLRequest) throws {
        guard let url = urlRequest.url else {
            throw ParameterEncodingError(.missingURL, detail: "the URLRequest has no URL")
        }
        let body: RequestBody
        if let data = urlRequest.httpBody {
            body = .data(data)
        } else if urlRequest.httpBodyStream != nil {
            throw RequestError(.encodingFailed, request: urlRequest,
                               detail: "the URLRequest's body is an InputStream, which cannot be carried; give it as RequestBody.stream")
        } else {
            body = .empty
        }
        self.init(
            url: url, method: HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
            headers: HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:]), body: body
        )
    }

    /// The `URLRequest` this request describes, built in one go: for `URLSession`, and for code
    /// that needs one (a request signer, say).
    ///
    /// A repeated field becomes one, its values joined with `", "` (RFC 9110, section 5.3), and
    /// `Cookie` fields one joined with `"; "` (RFC 6265): a `URLRequest` holds one value per name.
    /// A body of bytes becomes `httpBody`; a file or stream body is not in the `URLRequest` (the
    /// engine sends it from ``body``).
    ///
    /// - Parameter timeout: The `timeoutInterval` to set; the session's timeouts do not depend on
    ///   it. Foundation's default (60 seconds) when `nil`.
    /// - Returns: The `URLRequest`.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` naming a method or header field
    ///   that cannot be sent.
    public func urlRequest(timeout: Duration? = nil) throws -> URLRequest {
        try method.validate()
        try headers.validate()
        return unvalidatedURLRequest(timeout: timeout)
    }

    /// ``urlRequest(timeout:)`` without the checks: for a request checked already, or one shown
    /// rather than sent.
    package func unvalidatedURLRequest(timeout: Duration? = nil) -> URLRequest {
        var request = if let timeout {
            URLRequest(url: url, timeoutInterval: timeout.seconds)
        } else {
            URLRequest(url: url)
        }
        // `GET` is a new request's method already; setting it costs FoundationNetworking a pass.
        if method != .get { request.httpMethod = method.rawValue }
        if !headers.isEmpty {
            // `wireFields` joins `Cookie` with "; "; `dictionary` then joins other repeats with ", ".
            request.allHTTPHeaderFields = headers.wireFields.dictionary
        }
        if case .data(let data) = body.storage {
            request.httpBody = data
        }
        return request
    }
}

// MARK: - Encoding into the value

extension OutgoingRequest: EncodingTarget {
    /// The `URLRequest` this request describes, for a `ParameterEncoding` that writes only into
    /// `URLRequest`: ``urlRequest(timeout:)``.
    ///
    /// - Returns: The `URLRequest`.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` naming a method or header field
    ///   that cannot be sent.
    public func asURLRequest() throws -> URLRequest {
        try urlRequest()
    }

    /// The method, which decides where a method-dependent encoding writes.
    public var encodingMethod: HTTPMethod { method }

    /// Appends percent-encoded pairs to the target's query (``RequestTarget/appendQuery(_:)``).
    ///
    /// - Parameter query: The pairs, percent-encoded.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) for text that
    ///   cannot appear in a query.
    public mutating func appendPercentEncodedQuery(_ query: String) throws {
        try target.appendQuery(query)
    }

    /// Sets the body to the bytes, and `Content-Type` unless the request has one.
    ///
    /// - Parameters:
    ///   - body: The bytes.
    ///   - contentType: The `Content-Type` to set when the request has none.
    public mutating func setBody(_ body: Data, defaultContentType contentType: String) {
        if headers["Content-Type"] == nil {
            headers.append(name: "Content-Type", value: contentType)
        }
        self.body = .data(body)
    }

    /// Sets the body to the bytes, and each of `headers` the request does not set, after its own
    /// fields.
    ///
    /// - Parameters:
    ///   - body: The bytes.
    ///   - headers: The fields to add where the request has none of that name.
    public mutating func setBody(_ body: Data, addingMissing headers: HTTPHeaders) {
        for header in headers where self.headers[header.name] == nil {
            self.headers.append(header)
        }
        self.body = .data(body)
    }

    /// Takes the method, URL, header fields and body of a request a `URLRequest`-only encoding
    /// made; the options stay. Fields keep their order where the `URLRequest` kept their values,
    /// and the ones it added come after them, by name.
    ///
    /// - Parameter request: The encoded request.
    /// - Throws: As ``init(_:)``.
    public mutating func replace(with request: URLRequest) throws {
        var encoded = try OutgoingRequest(request)
        let fields = request.allHTTPHeaderFields ?? [:]
        var kept = HTTPHeaders()
        var names = Set<String>()
        // The fields the value had, in its order, where the encoded request has the same joined
        // value: an encoding that did not touch them keeps their order and repeats.
        for name in headers.map({ $0.name.lowercased() }) where !names.contains(name) {
            names.insert(name)
            let ours = headers.values(for: name)
            let theirs = fields.first { HTTPHeaders.namesMatch($0.key, name) }?.value
            let joined = HTTPHeaders.namesMatch(name, "Cookie") ? ours.joined(separator: "; ") : ours.joined(separator: ", ")
            if theirs == joined {
                for field in headers where HTTPHeaders.namesMatch(field.name, name) { kept.append(field) }
            } else if let theirs, let spelling = fields.keys.first(where: { HTTPHeaders.namesMatch($0, name) }) {
                kept.append(name: spelling, value: theirs)
            }
        }
        for field in encoded.headers where !names.contains(field.name.lowercased()) {
            kept.append(field)
        }
        encoded.headers = kept
        encoded.options = options
        if case .empty = encoded.body.storage, request.httpBody == nil, !body.isEmpty, encoded.method == method {
            // A URLRequest does not carry a file or stream body: one the encoding did not replace stays.
            encoded.body = body
        }
        self = encoded
    }
}
