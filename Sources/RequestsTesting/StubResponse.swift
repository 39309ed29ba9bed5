import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - StubResponse

/// What a ``StubTransport`` route answers: a status with headers and a body, a body streamed in
/// chunks, or a transport failure.
///
/// ```swift
/// stub.on(.get, "/users/7", respond: try .json(User(id: 7, name: "Ada")))
/// stub.on(.get, "/feed", respond: .stream(lines, every: .milliseconds(50)))
/// stub.on(.get, "/flaky", respond: .status(503), .status(503), .text("ok"))
/// stub.on(.post, "/upload", respond: .failure(.connectionLost))
/// ```
///
/// A body in memory gets a `Content-Length` unless the headers give one; a streamed body has
/// none, as a chunked response has none. As from a server, an answer to `HEAD` keeps its
/// `Content-Length` and has no body, and a 1xx, 204 or 304 answer has neither. Header names and
/// values are sent as given.
public struct StubResponse: Sendable {
    enum Body: Sendable {
        case data(Data)
        case file(URL)
        case chunks([Data], interval: Duration, failure: TransportError?)
    }

    enum Outcome: Sendable {
        case answer(status: Int, headers: HTTPHeaders, body: Body)
        case failure(TransportError)
        /// Made from the request when it comes.
        case computed(@Sendable (RecordedRequest) throws -> StubResponse)
        /// A WebSocket handshake answered with `101`, and the peer's script.
        case webSocket(protocol: String?, headers: HTTPHeaders, script: @Sendable (StubWebSocketPeer) async throws -> Void)
    }

    let outcome: Outcome
    /// How long the head takes to arrive.
    public private(set) var delay: Duration = .zero

    init(_ outcome: Outcome) {
        self.outcome = outcome
    }

    /// The same answer, its head arriving after `delay`: for timeouts and cancellation. A
    /// cancelled call or a timeout of the session's ends the wait at once.
    ///
    /// - Parameter delay: How long the head takes.
    /// - Returns: The delayed answer.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    // MARK: Answers

    /// A status, with headers and a body.
    ///
    /// - Parameters:
    ///   - code: The status code.
    ///   - headers: The response headers.
    ///   - body: The body; empty by default.
    /// - Returns: The answer.
    public static func status(_ code: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> StubResponse {
        StubResponse(.answer(status: code, headers: headers, body: .data(body)))
    }

    /// A body of bytes, `application/octet-stream` unless the headers say otherwise.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - status: The status code; 200 by default.
    ///   - headers: The response headers.
    /// - Returns: The answer.
    public static func data(_ data: Data, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(.answer(status: status, headers: headers.adding("Content-Type", "application/octet-stream"), body: .data(data)))
    }

    /// A text body in UTF-8, `text/plain; charset=utf-8` unless the headers say otherwise.
    ///
    /// - Parameters:
    ///   - text: The body.
    ///   - status: The status code; 200 by default.
    ///   - headers: The response headers.
    /// - Returns: The answer.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(.answer(status: status, headers: headers.adding("Content-Type", "text/plain; charset=utf-8"), body: .data(Data(text.utf8))))
    }

    /// An `Encodable` value as a JSON body, `application/json` unless the headers say otherwise.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - status: The status code; 200 by default.
    ///   - headers: The response headers.
    ///   - encoder: The encoder; by default one that sorts keys, so the bytes are the same in
    ///     every run.
    /// - Returns: The answer.
    /// - Throws: The encoder's error when `value` cannot be encoded.
    public static func json<Value: Encodable>(
        _ value: Value, status: Int = 200, headers: HTTPHeaders = [:], encoder: JSONEncoder? = nil
    ) throws -> StubResponse {
        let data = try (encoder ?? sortedKeysEncoder()).encode(value)
        return StubResponse(.answer(status: status, headers: headers.adding("Content-Type", "application/json"), body: .data(data)))
    }

    /// A file's contents, read when the route answers, typed by the file's extension unless the
    /// headers say otherwise. A file that cannot be read then fails the request, naming it.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - status: The status code; 200 by default.
    ///   - headers: The response headers.
    /// - Returns: The answer.
    public static func file(_ url: URL, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(.answer(status: status, headers: headers.adding("Content-Type", MIMEType.forFileName(url.lastPathComponent)), body: .file(url)))
    }

    /// A body streamed in chunks: the first at once, each next one `interval` later, and the
    /// reader pulls them one by one. With `failure`, the body fails after the last chunk, as a
    /// connection lost mid-body does.
    ///
    /// - Parameters:
    ///   - chunks: The chunks, in order.
    ///   - interval: The wait before each chunk after the first; none by default.
    ///   - failure: The kind of transport failure that ends the body instead of its end; none
    ///     by default.
    ///   - status: The status code; 200 by default.
    ///   - headers: The response headers (no `Content-Length` is added).
    /// - Returns: The answer.
    public static func stream(
        _ chunks: [Data], every interval: Duration = .zero, failingWith failure: TransportError.Kind? = nil,
        status: Int = 200, headers: HTTPHeaders = [:]
    ) -> StubResponse {
        let error = failure.map { TransportError($0, detail: "stubbed failure after \(chunks.count) chunks") }
        return StubResponse(.answer(status: status, headers: headers, body: .chunks(chunks, interval: interval, failure: error)))
    }

    /// A WebSocket: a handshake of ``/Requests/Session/webSocket(_:protocols:headers:timeout:interceptors:redirectPolicy:options:configuration:)``
    /// is answered `101 Switching Protocols`, and `script` plays the server's side with a
    /// ``StubWebSocketPeer``. Any other request to the route gets `426 Upgrade Required`.
    ///
    /// ```swift
    /// stub.on(.get, "/prices", respond: .webSocket { peer in
    ///     try await peer.send(.text(#"{"symbol":"ACME","price":12.5}"#))
    ///     peer.close(.goingAway, reason: "market closed")
    /// })
    /// ```
    ///
    /// - Parameters:
    ///   - protocol: The subprotocol the server chooses; the client's first offer when `nil`.
    ///   - headers: More fields of the `101` answer.
    ///   - script: The server's side; the connection closes with 1000 when it returns.
    /// - Returns: The answer.
    public static func webSocket(
        protocol: String? = nil, headers: HTTPHeaders = [:], _ script: @escaping @Sendable (StubWebSocketPeer) async throws -> Void
    ) -> StubResponse {
        StubResponse(.webSocket(protocol: `protocol`, headers: headers, script: script))
    }

    /// An answer made from the request when it comes: to echo what was sent, or to answer by
    /// an identifier in the path. An error `make` throws fails the request with that error as
    /// the transport's.
    ///
    /// ```swift
    /// stub.on(.post, "/echo", respond: .computed { request in .data(request.body) })
    /// ```
    ///
    /// - Parameter make: Makes the answer; it may not itself be `computed`.
    /// - Returns: The answer.
    public static func computed(_ make: @escaping @Sendable (RecordedRequest) throws -> StubResponse) -> StubResponse {
        StubResponse(.computed(make))
    }

    // MARK: Failures

    /// A transport failure before the head, of the kind the transport contract names: the
    /// session, its retry policy and its errors read it as they read a real engine's.
    ///
    /// - Parameters:
    ///   - kind: The kind, such as ``/Requests/TransportError/Kind/cannotConnect`` or
    ///     ``/Requests/TransportError/Kind/connectionLost``.
    ///   - detail: Words for the error's description; by default "stubbed failure".
    /// - Returns: The failure.
    public static func failure(_ kind: TransportError.Kind, detail: String = "stubbed failure") -> StubResponse {
        StubResponse(.failure(TransportError(kind, detail: detail)))
    }

    /// A refused connection (``/Requests/TransportError/Kind/cannotConnect``).
    public static var refused: StubResponse { .failure(.cannotConnect, detail: "stubbed: connection refused") }
    /// A connection reset before any answer (``/Requests/TransportError/Kind/connectionLost``).
    public static var reset: StubResponse { .failure(.connectionLost, detail: "stubbed: connection reset by peer") }
    /// An engine that timed out on its own (``/Requests/TransportError/Kind/timedOut``).
    public static var timedOut: StubResponse { .failure(.timedOut, detail: "stubbed: timed out") }
    /// A host name that did not resolve (``/Requests/TransportError/Kind/dnsFailed``).
    public static var dnsFailure: StubResponse { .failure(.dnsFailed, detail: "stubbed: host not found") }
    /// A failed TLS handshake (``/Requests/TransportError/Kind/tls``).
    public static var tlsFailure: StubResponse { .failure(.tls, detail: "stubbed: certificate not trusted") }

    /// Whether a response with `status` may carry a body and a `Content-Length`: not 1xx, 204
    /// or 304 (RFC 9110, sections 8.6 and 15).
    static func mayHaveBody(status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }

    static func sortedKeysEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension HTTPHeaders {
    /// These headers with `name: value` added when no field of that name is present.
    func adding(_ name: String, _ value: String) -> HTTPHeaders {
        guard self[name] == nil else { return self }
        var headers = self
        headers.add(name: name, value: value)
        return headers
    }
}
