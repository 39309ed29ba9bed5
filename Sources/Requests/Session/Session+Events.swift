import Foundation

// MARK: - Session + events

extension Session {
    /// An event stream that reconnects: the request's server-sent events, connecting again
    /// whenever the connection ends, as the HTML standard's `EventSource` does.
    ///
    /// ```swift
    /// for try await event in session.events("https://example.com/feed") {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// The request goes out as built here on every connection, with `Accept: text/event-stream`
    /// unless `headers` set `Accept`, and `Last-Event-ID` once the stream has given an event ID;
    /// a `POST` with a body works too. See ``EventSource`` for what ends the stream.
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: Parameters to encode, or `nil`.
    ///   - encoding: How to encode them; `URLEncoding.default`.
    ///   - headers: Headers for every connection.
    ///   - timeout: The longest silence of each connection, its head included: a stream that
    ///     sends nothing, not even a comment, for that long is connected again. An event stream has
    ///     no end, so this is its idle limit, in place of the session's ``idleTimeout``, and there is
    ///     no deadline (the session's `timeout` does not apply either).
    ///   - interceptors: Interceptors for these connections only, run inside the session's.
    ///   - redirectPolicy: How each connection follows redirects, overriding the session's.
    ///   - options: Settings for these connections (``RequestOptions``), over the session's ``options``.
    ///   - reconnection: When and how often to connect again; ``EventSource/Reconnection/default``.
    /// - Returns: The stream; nothing is sent until it is iterated.
    public func events(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil,
        reconnection: EventSource.Reconnection = .default
    ) -> EventSource {
        var headers = headers ?? [:]
        if headers["Accept"] == nil { headers.update(name: "Accept", value: "text/event-stream") }
        let request = Result {
            try makeRequest(url, method: method, parameters: parameters, encoding: encoding, headers: headers, options: options)
        }
        return EventSource(session: self, request: request, timeout: timeout, interceptors: interceptors,
                           redirectPolicy: redirectPolicy, reconnection: reconnection)
    }

    /// An event stream that reconnects, for a ready-made request.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one; `Accept: text/event-stream` is
    ///     added unless it sets `Accept`.
    ///   - timeout: The longest silence of each connection, its head included, in place of the
    ///     session's ``idleTimeout``; an event stream has no deadline.
    ///   - interceptors: Interceptors for these connections only, run inside the session's.
    ///   - redirectPolicy: How each connection follows redirects, overriding the session's.
    ///   - options: Settings for these connections (``RequestOptions``), over the request's own
    ///     and the session's ``options``.
    ///   - reconnection: When and how often to connect again.
    /// - Returns: The stream; nothing is sent until it is iterated.
    public func events(
        _ request: any URLRequestConvertible,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil,
        reconnection: EventSource.Reconnection = .default
    ) -> EventSource {
        let built = Result { () throws -> OutgoingRequest in
            var request = try makeRequest(request, options: options)
            if request.headers["Accept"] == nil { request.headers.update(name: "Accept", value: "text/event-stream") }
            return request
        }
        return EventSource(session: self, request: built, timeout: timeout, interceptors: interceptors,
                           redirectPolicy: redirectPolicy, reconnection: reconnection)
    }
}
