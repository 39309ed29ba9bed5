import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Session

/// Sends requests with async/await: encodes parameters, runs modifiers, hands the request to a
/// ``Transport`` and returns a ``Response``.
///
/// ```swift
/// let session = Session()
/// let response = try await session.request("https://api.example.com/search",
///                                          parameters: ["q": "swift", "page": ["size": 20]])
/// let results = try response.validate().decode([Result].self)
/// ```
///
/// One session is safe to share between tasks. Cancelling the calling task cancels the transfer
/// and throws `CancellationError`. The session owns every timeout, whatever the transport: the
/// call's ``timeout`` (the whole call, until its response is complete) and the ``idleTimeout``
/// (each wait on the transport); when one passes it cancels the transfer and throws. Call ``shutdown()`` when done with a
/// session whose transport holds connections or threads.
public final class Session: Sendable {
    /// The engine that sends requests.
    public let transport: any Transport
    /// Headers every request gets unless it sets the same name itself.
    public let headers: HTTPHeaders
    /// The timeout for calls that do not give their own; `nil` for none (``idleTimeout`` still
    /// applies).
    public let timeout: Duration?
    /// The longest the session waits for a response head, or for the next bytes of a body, on
    /// every call (an event stream's own `timeout:` replaces it): 60 seconds unless given (for
    /// `Session(configuration:)`, the configuration's `timeoutIntervalForRequest`); `nil` for none.
    public let idleTimeout: Duration?
    /// Modifiers run in order on every request, before the ``interceptors``.
    public let modifiers: [any RequestModifier]
    /// Interceptors every request passes through, outermost first, after the ``modifiers``.
    public let interceptors: [any Interceptor]
    /// Monitors told about every trip to the transport, every retry and every failure.
    public let monitors: [any EventMonitor]
    /// Whether and how redirects are followed, unless a call says otherwise.
    public let redirectPolicy: RedirectPolicy
    /// Where cookies are kept between requests.
    public let cookies: Cookies
    /// Settings every call of this session starts with (``RequestOptions``); a call's options
    /// replace them key by key.
    public let options: RequestOptions
    /// The HTTP cache the session's `GET` and `HEAD` requests use, or `nil` for none.
    public let cache: HTTPCache?
    /// The stages after the per-call interceptors: redirects, then cookies, then the cache.
    let innerStages: [any Interceptor]
    /// ``interceptors`` and ``innerStages``: the stages of a call without per-call ones.
    let defaultStages: [any Interceptor]
    /// The origins of the ``ServerEnvironment`` stages: where credentials go by default.
    let serverOrigins: [Origin]
    /// The monitors as one, or `nil` when there are none.
    let monitorGroup: (any EventMonitor)?
    /// Set by ``shutdown()``; a call after it fails.
    let isShutDown = Guarded(false)
    #if Tracing
    /// The tracer and metrics backend the process had bootstrapped when the session was made:
    /// where calls report unless their options say otherwise (read once, as AsyncHTTPClient reads
    /// its tracer when its client is configured, so that a call pays nothing to find them).
    let bootstrapped = Telemetry.bootstrapped
    #endif

    /// Creates a session over `URLSession`.
    ///
    /// - Parameters:
    ///   - configuration: The `URLSession` configuration; `.default` unless given.
    ///   - headers: Headers for every request; a request's own headers win.
    ///   - timeout: The default timeout for a whole call, retries included, or `nil` for none.
    ///   - modifiers: Modifiers run in order on every request, first.
    ///   - interceptors: Interceptors every request passes through, outermost first, after the modifiers.
    ///   - monitors: Monitors told about every call.
    ///   - redirectPolicy: Whether and how redirects are followed; up to 10 by default.
    ///   - cookies: Where cookies are kept; in memory, for this session alone, by default (as for
    ///     ``init(transport:headers:timeout:idleTimeout:modifiers:interceptors:monitors:redirectPolicy:cookies:cache:options:)``);
    ///     ``Cookies/fromConfiguration`` uses `configuration`'s storage. The session sends and
    ///     stores them itself; `URLSession` is told not to.
    ///   - cache: The ``HTTPCache`` for `GET` and `HEAD` requests, or `nil` (the default) for
    ///     none. `URLSession`'s own cache is turned off either way: the session caches, or nothing does.
    ///   - options: Settings every call starts with (``RequestOptions``); none set by default.
    public convenience init(
        configuration: URLSessionConfiguration = .default,
        headers: HTTPHeaders = [:],
        timeout: Duration? = nil,
        modifiers: [any RequestModifier] = [],
        interceptors: [any Interceptor] = [],
        monitors: [any EventMonitor] = [],
        redirectPolicy: RedirectPolicy = .default,
        cookies: Cookies = .inMemory(),
        cache: HTTPCache? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        let cookies = cookies.resolved(with: configuration)
        let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let idle = configuration.timeoutIntervalForRequest
        self.init(
            transport: URLSessionTransport(configuration: configuration),
            headers: headers, timeout: timeout, idleTimeout: idle > 0 && idle.isFinite ? .seconds(idle) : nil,
            modifiers: modifiers, interceptors: interceptors, monitors: monitors,
            redirectPolicy: redirectPolicy, cookies: cookies, cache: cache, options: options
        )
    }

    /// Creates a session over any transport.
    ///
    /// - Parameters:
    ///   - transport: The engine that sends requests.
    ///   - headers: Headers for every request; a request's own headers win.
    ///   - timeout: The default timeout for a whole call, retries included, or `nil` for none.
    ///   - idleTimeout: The longest wait for a head or the next bytes of a body, on every call;
    ///     60 seconds by default, `nil` for none.
    ///   - modifiers: Modifiers run in order on every request, first.
    ///   - interceptors: Interceptors every request passes through, outermost first, after the modifiers.
    ///   - monitors: Monitors told about every call.
    ///   - redirectPolicy: Whether and how redirects are followed; up to 10 by default.
    ///   - cookies: Where cookies are kept; in memory, for this session alone, by default.
    ///   - cache: The ``HTTPCache`` for `GET` and `HEAD` requests, or `nil` (the default) for none.
    ///   - options: Settings every call starts with (``RequestOptions``); none set by default.
    public init(
        transport: any Transport,
        headers: HTTPHeaders = [:],
        timeout: Duration? = nil,
        idleTimeout: Duration? = .seconds(60),
        modifiers: [any RequestModifier] = [],
        interceptors: [any Interceptor] = [],
        monitors: [any EventMonitor] = [],
        redirectPolicy: RedirectPolicy = .default,
        cookies: Cookies = .inMemory(),
        cache: HTTPCache? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.options = options
        self.transport = transport
        self.headers = headers
        self.timeout = timeout
        self.idleTimeout = idleTimeout
        self.modifiers = modifiers
        self.interceptors = interceptors
        self.monitors = monitors
        self.redirectPolicy = redirectPolicy
        self.cookies = cookies.resolved(with: nil)
        self.cache = cache
        self.innerStages = Self.innerStages(redirectPolicy, self.cookies, cache)
        self.defaultStages = interceptors + innerStages
        let stages: [any Interceptor] = modifiers + interceptors
        self.serverOrigins = stages.compactMap { ($0 as? any RequestModifier)?.serverOrigin }
        self.monitorGroup = monitors.isEmpty ? nil : MonitorGroup(monitors: monitors)
    }

    // MARK: Sending requests

    /// Builds a request from a URL, method, parameters and headers, sends it and returns the response.
    ///
    /// Headers are applied in this order, later ones winning: the session's ``headers``, then
    /// `headers`, then the `Content-Type` the encoding sets when none is set; then the modifiers run.
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: Parameters to encode, or `nil`.
    ///   - encoding: How to encode them; `URLEncoding.default` (query for GET, HEAD, DELETE, form body otherwise).
    ///   - headers: Headers for this request.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the session's ``options``.
    /// - Returns: The response, whatever its status; call ``Response/validate(statusCodes:contentTypes:)`` to check it.
    /// - Throws: ``RequestError`` (invalid URL, encoding, modifier, transport, timeout), or `CancellationError`
    ///   when the calling task is cancelled.
    @discardableResult
    public func request(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> Response {
        let request = try makeRequest(url, method: method, parameters: parameters, encoding: encoding, headers: headers, options: options)
        return try await send(consume request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
    }

    /// Sends a request whose body is a value: ``/ParameterEncoding/JSONBody``,
    /// ``/ParameterEncoding/FormBody``, ``/ParameterEncoding/DataBody``,
    /// ``/ParameterEncoding/EmptyBody`` or any other ``/ParameterEncoding/HTTPBody``.
    ///
    /// Headers are applied in this order, later ones winning: the session's ``headers``, then
    /// `headers`, then the body's ``/ParameterEncoding/HTTPBody/additionalHeaders`` where neither
    /// set them; then the modifiers run.
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default, as on every entry point but `upload`: a body
    ///     goes with `method: .post` (or `.put`, `.patch`); a `GET` or `HEAD` with a body that is
    ///     not empty is refused, as URLSession refuses it on Apple platforms.
    ///   - body: The body.
    ///   - headers: Headers for this request.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the session's ``options``.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError`` (``RequestError/Code/encodingFailed`` when the body cannot be
    ///   encoded, or is not empty on a `GET` or `HEAD`), or `CancellationError` when the calling
    ///   task is cancelled.
    @discardableResult
    public func request(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        body: some HTTPBody,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> Response {
        if method == .get || method == .head, !body.isEmpty {
            throw RequestError(
                .encodingFailed, method: method, url: try? url.asURL(),
                detail: "a \(method.rawValue) request has no body: pass method: .post (or .put, .patch) with body:"
            )
        }
        return try await request(url, method: method, parameters: nil, encoding: BodyEncoding(body: body), headers: headers,
                                 timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy, options: options)
    }

    /// Sends a request whose parameters are an `Encodable` value, written by `encoder`.
    ///
    /// ```swift
    /// struct Search: Encodable { let q: String; let page: Int }
    /// try await session.request(url, parameters: Search(q: "swift", page: 2), encoder: URLEncodedFormParameterEncoder.default)
    /// ```
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: The value to encode.
    ///   - encoder: How to encode it: ``/ParameterEncoding/URLEncodedFormParameterEncoder`` (query
    ///     or form body) or ``/ParameterEncoding/JSONParameterEncoder``.
    ///   - headers: Headers for this request.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the session's ``options``.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError`` (``RequestError/Code/encodingFailed`` wrapping the encoder's
    ///   error), or `CancellationError` when the calling task is cancelled.
    @discardableResult
    public func request<Parameters: Encodable & Sendable>(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters,
        encoder: any ParameterEncoder,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> Response {
        let encoding = EncoderEncoding(value: parameters, encoder: encoder)
        return try await request(url, method: method, parameters: nil, encoding: encoding, headers: headers, timeout: timeout,
                                 interceptors: interceptors, redirectPolicy: redirectPolicy, options: options)
    }

    /// Sends a request with several parameter sets: some in the query string, one in the body.
    ///
    /// ```swift
    /// try await session.request(url, method: .post,
    ///                           parameters: [.query(["page": 2]), .body(["name": "John"], encoding: JSONEncoding.default)])
    /// ```
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: The sets; see ``/ParameterEncoding/ParameterSet/encode(_:into:)->_`` for how
    ///     they merge.
    ///   - headers: Headers for this request.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the session's ``options``.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError`` (``RequestError/Code/encodingFailed`` for two different body
    ///   encodings), or `CancellationError` when the calling task is cancelled.
    @discardableResult
    public func request(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: [ParameterSet],
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> Response {
        try await request(url, method: method, parameters: nil, encoding: SetsEncoding(sets: parameters), headers: headers, timeout: timeout,
                          interceptors: interceptors, redirectPolicy: redirectPolicy, options: options)
    }

    /// Sends a ready-made request and returns the response.
    ///
    /// The session's ``headers`` are added where the request does not set them; then the modifiers run.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the request's own (an ``OutgoingRequest``'s) and the session's ``options``.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError``, or `CancellationError` when the calling task is cancelled.
    @discardableResult
    public func request(
        _ request: any URLRequestConvertible,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) async throws -> Response {
        let request = try makeRequest(request, options: options)
        return try await send(consume request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
    }

    // MARK: Lifecycle

    /// Shuts the session down: calls after this fail with ``RequestError/Code/sessionShutDown``,
    /// and the transport closes its connections (``Transport/shutdown()``). Calls under way are
    /// left to finish or fail as the transport decides. Calling it again does nothing.
    ///
    /// - Throws: The transport's error when it could not shut down cleanly.
    public func shutdown() async throws {
        let first = isShutDown.withLock { shut in
            defer { shut = true }
            return !shut
        }
        if first {
            try await transport.shutdown()
        }
    }

    /// Throws when the session was shut down.
    func checkOpen(_ request: OutgoingRequest) throws {
        if isShutDown.withLock({ $0 }) {
            throw RequestError(.sessionShutDown, request: request, detail: "shutdown() was called on this session")
        }
    }

    // MARK: Pipeline

    /// Builds a request from its parts, the session's headers first.
    func makeRequest(
        _ url: any URLConvertible,
        method: HTTPMethod,
        parameters: Parameters?,
        encoding: any ParameterEncoding,
        headers: HTTPHeaders?,
        options: RequestOptions? = nil
    ) throws -> OutgoingRequest {
        let resolved = try build(nil) { try url.asURL() }
        return try build((method, resolved)) { () throws -> OutgoingRequest in
            var request = OutgoingRequest(
                url: resolved, method: method, headers: self.headers.overridden(by: headers ?? [:]),
                options: options.map(self.options.merging) ?? self.options
            )
            try encoding.encode(parameters, into: &request)
            return request
        }
    }

    func makeRequest(_ request: any URLRequestConvertible, options: RequestOptions? = nil) throws -> OutgoingRequest {
        try build(nil) { () throws -> OutgoingRequest in
            var request = try (request as? OutgoingRequest) ?? OutgoingRequest(request.asURLRequest())
            // The request's own fields replace the session's of the same name; its own options
            // the session's, and the call's both.
            request.headers = headers.overridden(by: request.headers)
            var merged = self.options.merging(request.options)
            if let options { merged = merged.merging(options) }
            request.options = merged
            return request
        }
    }

    static func innerStages(_ policy: RedirectPolicy, _ cookies: Cookies, _ cache: HTTPCache?) -> [any Interceptor] {
        var stages: [any Interceptor] = []
        if policy.follows {
            stages.append(RedirectFollower(policy: policy))
        }
        if let storage = cookies.storage {
            stages.append(CookieStage(storage: storage))
        }
        if let cache {
            stages.append(CacheStage(cache: cache))
        }
        return stages
    }

    /// Runs a building step, turning its errors into ``RequestError``; `context` is the method and
    /// URL the error should name, when they are known.
    func build<T>(_ context: (method: HTTPMethod, url: URL)?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RequestError {
            throw error
        } catch let error as ParameterEncodingError where error.code == .invalidURL {
            throw RequestError(.invalidURL, method: context?.method, url: context?.url, detail: error.detail, underlyingError: error)
        } catch {
            throw RequestError(.encodingFailed, method: context?.method, url: context?.url, underlyingError: error)
        }
    }
}
