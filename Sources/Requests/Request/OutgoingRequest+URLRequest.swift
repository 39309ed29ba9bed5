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
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidURL`) for a request
    ///   without an absolute URL; ``RequestError`` (`encodingFailed`) for a body given as an
    ///   `InputStream`, which cannot be carried (give it as ``RequestBody/stream(_:length:)``).
    public init(_ urlRequest: URLRequest) throws {
        guard let url = urlRequest.url, url.scheme != nil, url.host != nil else {
            throw ParameterEncodingError(.invalidURL, detail: "the URLRequest has no absolute URL (\(urlRequest.url?.absoluteString ?? "none"))")
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
