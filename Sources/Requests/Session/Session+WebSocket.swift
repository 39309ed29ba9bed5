import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Session + webSocket

extension Session {
    /// Opens a WebSocket: the handshake is a call through the whole pipeline, and the connection
    /// the engine upgrades is returned as a ``WebSocket``.
    ///
    /// ```swift
    /// let socket = try await session.webSocket("wss://chat.example.com/rooms/7", protocols: ["chat.v2"])
    /// try await socket.send(json: ["say": "hello"])
    /// for try await message in socket.messages {
    ///     print(try message.decode([String: String].self))
    /// }
    /// ```
    ///
    /// The handshake is a `GET` (a `ws` URL is sent as `http`, `wss` as `https`; a relative one
    /// takes the base of a ``ServerEnvironment``) with the session's header fields, modifiers and
    /// interceptors: cookies are sent and stored, a ``BearerAuthentication`` refreshes after a
    /// `401` and tries again, a ``RetryPolicy`` retries connection failures and `503`s, redirects
    /// are followed as the call's policy says (RFC 6455 §4.1 allows it), monitors and tracing see
    /// it. The cache never answers it. The engine must support WebSockets
    /// (`AsyncHTTPClientTransport` with the package trait `WebSocket`); another throws
    /// ``RequestError/Code/transportFailed`` naming the trait.
    ///
    /// - Parameters:
    ///   - url: A `ws`, `wss`, `http` or `https` URL, or a relative one.
    ///   - protocols: The subprotocols to offer, in order of preference.
    ///   - headers: Header fields for the handshake.
    ///   - timeout: The time allowed for the handshake, retries and redirects included; the
    ///     session's timeout when `nil`. The open connection has no deadline.
    ///   - interceptors: Interceptors for the handshake only, run inside the session's.
    ///   - redirectPolicy: How the handshake follows redirects, overriding the session's.
    ///   - options: Settings for the handshake's call (``RequestOptions``), over the session's.
    ///   - configuration: The connection's limits, timers and compression.
    /// - Returns: The open connection.
    /// - Throws: ``RequestError``: ``RequestError/Code/unacceptableStatusCode`` when the
    ///   server answered other than `101` (the response, its first KiB shown, is in the error),
    ///   the transport's failure, ``RequestError/Code/timedOut`` past the handshake timeout;
    ///   ``WebSocketError`` when the server chose a subprotocol that was not offered;
    ///   `CancellationError`.
    public func webSocket(
        _ url: any URLConvertible,
        protocols: [String] = [],
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil,
        configuration: WebSocketOptions = WebSocketOptions()
    ) async throws -> WebSocket {
        let upgrade = WebSocketUpgrade(protocols: protocols, options: configuration)
        var callOptions = options ?? RequestOptions()
        callOptions.webSocketUpgrade = upgrade
        callOptions.cachePolicy = .disabled
        var request = try makeRequest(
            HTTPSchemeURL(url), method: .get, parameters: nil, encoding: URLEncoding.default, headers: headers, options: callOptions
        )
        if !protocols.isEmpty {
            request.headers.update(name: "Sec-WebSocket-Protocol", value: protocols.joined(separator: ", "))
        }
        let stream: ResponseStream
        do {
            stream = try await self.stream(built: request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
        } catch {
            if let connection = upgrade.take() { await connection.close(code: .goingAway, reason: "") }
            throw error
        }
        // Taken first: a connection delivered with any other status is closed, not left open.
        let delivered = upgrade.take()
        guard stream.response.statusCode == 101, let connection = delivered else {
            if let delivered { await delivered.close(code: .protocolError, reason: "") }
            let body = (try? await stream.body.collect(upTo: 64 << 10)) ?? Data()
            throw RequestError(
                .unacceptableStatusCode, response: stream.response.with(data: body),
                detail: "the WebSocket handshake expected 101 Switching Protocols"
            )
        }
        let socket = WebSocket(response: stream.response, connection: connection)
        if let chosen = socket.subprotocol, !protocols.contains(chosen) {
            await connection.close(code: .protocolError, reason: "subprotocol not offered")
            throw WebSocketError(
                WebSocketClosure(code: .protocolError, byPeer: false),
                detail: "the server chose the subprotocol \"\(chosen)\", which was not offered (\(protocols))"
            )
        }
        return socket
    }

    /// Opens a WebSocket for the length of `body`, and closes it when `body` returns (1000) or
    /// throws or is cancelled (1001).
    ///
    /// ```swift
    /// try await session.withWebSocket("wss://chat.example.com/rooms/7") { socket in
    ///     try await socket.send("hello")
    ///     for try await message in socket.messages { print(message) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - url: A `ws`, `wss`, `http` or `https` URL, or a relative one.
    ///   - protocols: The subprotocols to offer.
    ///   - headers: Header fields for the handshake.
    ///   - timeout: The time allowed for the handshake.
    ///   - interceptors: Interceptors for the handshake only.
    ///   - redirectPolicy: How the handshake follows redirects.
    ///   - options: Settings for the handshake's call (``RequestOptions``).
    ///   - configuration: The connection's limits, timers and compression.
    ///   - body: What to do with the open connection.
    /// - Returns: What `body` returns.
    /// - Throws: What ``webSocket(_:protocols:headers:timeout:interceptors:redirectPolicy:options:configuration:)``
    ///   throws, or what `body` throws.
    public func withWebSocket<Value: Sendable>(
        _ url: any URLConvertible,
        protocols: [String] = [],
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil,
        configuration: WebSocketOptions = WebSocketOptions(),
        _ body: (WebSocket) async throws -> Value
    ) async throws -> Value {
        let socket = try await webSocket(
            url, protocols: protocols, headers: headers, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy,
            options: options, configuration: configuration
        )
        do {
            let value = try await body(socket)
            try await socket.close(.normalClosure)
            return value
        } catch {
            _ = try? await socket.close(.goingAway)
            throw error
        }
    }
}

/// A URL whose `ws` or `wss` scheme is sent as `http` or `https`: the handshake is HTTP.
struct HTTPSchemeURL: URLConvertible {
    let url: any URLConvertible

    init(_ url: any URLConvertible) { self.url = url }

    func asURL() throws -> URL {
        let url = try url.asURL()
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        parts.scheme = scheme == "ws" ? "http" : "https"
        return parts.url ?? url
    }
}
