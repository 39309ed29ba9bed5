import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Session + stream

extension Session {
    /// Sends a request and returns as soon as the response head has arrived, with the body still
    /// streaming.
    ///
    /// ```swift
    /// let stream = try await session.stream("https://example.com/logs", parameters: ["follow": true])
    /// for try await line in try await stream.validate().body.lines {
    ///     print(line)
    /// }
    /// ```
    ///
    /// The request goes through the same interceptors as ``request(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)``;
    /// they see the head, with an empty ``Response/data``. A retry or a redirect cancels the body
    /// of the response it leaves behind. The timeout covers the whole call, as for `request`:
    /// until the body's end (the reader's own pace counts); each silence of the server, the head
    /// and every chunk the reader waits for, is bounded by the session's ``idleTimeout``. Either
    /// fails the call with ``RequestError/Code/timedOut``. Memory stays bounded when the reader is slower than the network:
    /// the reader's demand drives the transport (see ``URLSessionTransport/streamBufferLimit``).
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: Parameters to encode, or `nil`.
    ///   - encoding: How to encode them; `URLEncoding.default`.
    ///   - headers: Headers for this request.
    ///   - timeout: The time allowed for the whole call, until the body's end; overrides the
    ///     session's timeout.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the session's ``options``.
    /// - Returns: The head and the body.
    /// - Throws: ``RequestError`` (as for `request`), or `CancellationError`.
    public func stream(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> ResponseStream {
        let request = try makeRequest(url, method: method, parameters: parameters, encoding: encoding, headers: headers, options: options)
        return try await stream(built: request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
    }

    /// Sends a ready-made request and returns as soon as the response head has arrived.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one.
    ///   - timeout: The time allowed for the whole call, until the body's end; overrides the
    ///     session's timeout.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the request's own and the session's ``options``.
    /// - Returns: The head and the body.
    /// - Throws: ``RequestError``, or `CancellationError`.
    public func stream(
        _ request: any URLRequestConvertible,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> ResponseStream {
        let request = try makeRequest(request, options: options)
        return try await stream(built: request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
    }

    /// Runs a built request through the pipeline, returning at the head.
    func stream(
        built request: consuming OutgoingRequest,
        timeout: Duration?,
        interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy?,
        eachConnection: Bool = false
    ) async throws -> ResponseStream {
        var head = try await send(request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy, mode: .stream,
                                  eachConnection: eachConnection)
        let body = head.body ?? ResponseBody(head.data)
        head.body = nil
        return ResponseStream(response: head.with(data: Data()), body: body)
    }
}
