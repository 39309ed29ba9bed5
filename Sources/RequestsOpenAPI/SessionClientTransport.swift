#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Requests

// MARK: - SessionClientTransport

/// A swift-openapi `ClientTransport` that sends every operation of a generated client through a
/// ``/Requests/Session``: its whole pipeline applies to the client unchanged.
///
/// ```swift
/// let session = Session(interceptors: [RetryPolicy(), BearerAuthentication(refresher)])
/// let client = Client(serverURL: try Servers.Server1.url(), transport: SessionClientTransport(session))
/// let pet = try await client.getPet(path: .init(petID: 7)).ok.body.json
/// ```
///
/// Retry, authentication with single-flight refresh, throttling, monitors and curl logging,
/// redirects, cookies, HAR recording and ``/RequestsTesting/StubTransport`` work for generated
/// operations as for any call of the session, over whichever transport the session has
/// (`URLSessionTransport`, `AsyncHTTPClientTransport`, a stub).
///
/// How an operation maps onto the session:
/// - The request goes to `baseURL` joined with the request's `path`, its query kept byte for byte
///   as the client encoded it; a path or query that cannot appear in a URL fails with
///   ``/Requests/RequestError/Code/invalidURL`` naming the part. `scheme` and `authority` of the
///   `HTTPRequest` are not read: the server is `baseURL`'s.
/// - The header fields keep their order and their repeats, both ways.
/// - A request body streams to the engine as the client produces it; a known length is sent as
///   `Content-Length`. A body the client can iterate several times (`.multiple`, such as JSON
///   the client encoded) is sent again on a retry or a 307/308 redirect; a `.single` one is sent
///   once, and a second attempt fails with ``/Requests/RequestError/Code/encodingFailed`` instead
///   of sending an empty or partial body.
/// - The response body streams back as it arrives: the client's reads pull it from the engine
///   (the transport's back-pressure applies), and dropping it unread cancels the transfer.
/// - No status is validated: the generated client handles every status itself.
/// - The operation's `operationID` becomes the call's ``/Requests/RequestOptions/operationName``,
///   so monitors, ``/Requests/LoggingMonitor`` lines and HAR entries name the operation.
/// - A failure reaches the caller as a ``/Requests/RequestError`` inside the generated client's
///   `ClientError` (its `underlyingError`).
public struct SessionClientTransport: ClientTransport {
    /// The session every operation goes through.
    public let session: Session
    /// The time allowed for each operation, until its response body's end (each silence of the
    /// server meets the session's idle limit); `nil` uses the session's timeout.
    public var timeout: Duration?
    /// Interceptors for this client's operations only, run inside the session's (credentials
    /// of one API, say, when the session serves several).
    public var interceptors: [any Interceptor]
    /// Settings for this client's operations, over the session's ``/Requests/Session/options``.
    public var options: RequestOptions

    /// Creates a transport over a session.
    ///
    /// - Parameters:
    ///   - session: The session every operation goes through.
    ///   - timeout: The time allowed for each operation, until its response body's end; `nil`
    ///     uses the session's.
    ///   - interceptors: Interceptors for this client's operations, run inside the session's.
    ///   - options: Settings for this client's operations, over the session's.
    public init(
        _ session: Session,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        options: RequestOptions = RequestOptions()
    ) {
        self.session = session
        self.timeout = timeout
        self.interceptors = interceptors
        self.options = options
    }

    /// Sends one operation through the session and returns as soon as the response head has
    /// arrived, with the body still streaming.
    ///
    /// - Parameters:
    ///   - request: The operation's request; its `path` holds the path and the query.
    ///   - body: The request body, or `nil`.
    ///   - baseURL: The server's URL, which `path` is appended to.
    ///   - operationID: The operation's identifier, given to the pipeline as
    ///     ``/Requests/RequestOptions/operationName``.
    /// - Returns: The response head and its body (`nil` for a `HEAD` request).
    /// - Throws: ``/Requests/RequestError`` (an invalid path or query, a failed transfer, a body
    ///   that cannot be sent again), or `CancellationError` when the calling task is cancelled.
    public func send(
        _ request: HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        var outgoing = try OutgoingRequest(request, body: body, baseURL: baseURL)
        outgoing.options = options
        outgoing.options.operationName = operationID
        let stream = try await session.stream(outgoing, timeout: timeout, interceptors: interceptors)
        let response = try HTTPResponse(stream)
        guard request.method != .head else {
            stream.cancel()
            return (response, nil)
        }
        return (response, OpenAPIRuntime.HTTPBody(stream, status: response.status))
    }
}
#endif
