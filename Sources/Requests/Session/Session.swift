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
/// and throws `CancellationError`.
public final class Session: Sendable {
    /// The engine that sends requests.
    public let transport: any Transport
    /// Headers every request gets unless it sets the same name itself.
    public let headers: HTTPHeaders
    /// The timeout for requests that do not give their own; `nil` leaves the transport's
    /// (for `URLSession`, the configuration's `timeoutIntervalForRequest`).
    public let timeout: Duration?
    /// Modifiers run in order on every request just before it is sent.
    public let modifiers: [any RequestModifier]

    /// Creates a session over `URLSession`.
    ///
    /// - Parameters:
    ///   - configuration: The `URLSession` configuration; `.default` unless given.
    ///   - headers: Headers for every request; a request's own headers win.
    ///   - timeout: The default timeout for a whole request, or `nil` for the configuration's.
    ///   - modifiers: Modifiers run in order on every request.
    public convenience init(
        configuration: URLSessionConfiguration = .default,
        headers: HTTPHeaders = [:],
        timeout: Duration? = nil,
        modifiers: [any RequestModifier] = []
    ) {
        self.init(
            transport: URLSessionTransport(configuration: configuration),
            headers: headers, timeout: timeout, modifiers: modifiers
        )
    }

    /// Creates a session over any transport.
    ///
    /// - Parameters:
    ///   - transport: The engine that sends requests.
    ///   - headers: Headers for every request; a request's own headers win.
    ///   - timeout: The default timeout for a whole request, or `nil` for the transport's.
    ///   - modifiers: Modifiers run in order on every request.
    public init(
        transport: any Transport,
        headers: HTTPHeaders = [:],
        timeout: Duration? = nil,
        modifiers: [any RequestModifier] = []
    ) {
        self.transport = transport
        self.headers = headers
        self.timeout = timeout
        self.modifiers = modifiers
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
    /// - Returns: The response, whatever its status; call ``Response/validate(statusCodes:contentTypes:)`` to check it.
    /// - Throws: ``RequestError`` (invalid URL, encoding, modifier, transport, timeout), or `CancellationError`
    ///   when the calling task is cancelled.
    public func request(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil
    ) async throws -> Response {
        let request = try build { () throws -> URLRequest in
            var request = URLRequest(url: try url.asURL())
            try method.validate()
            request.httpMethod = method.rawValue
            var merged = self.headers
            for header in headers ?? [] {
                merged.update(header)
            }
            if !merged.isEmpty {
                try request.setHeaders(merged)
            }
            return try encoding.encode(request, with: parameters)
        }
        return try await send(request, timeout: timeout ?? self.timeout)
    }

    /// Sends a ready-made request and returns the response.
    ///
    /// The session's ``headers`` are added where the request does not set them; then the modifiers run.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError``, or `CancellationError` when the calling task is cancelled.
    public func request(_ request: any URLRequestConvertible, timeout: Duration? = nil) async throws -> Response {
        let request = try build { () throws -> URLRequest in
            var request = try request.asURLRequest()
            var missing = HTTPHeaders()
            for header in headers where request.value(forHTTPHeaderField: header.name) == nil {
                missing.add(header)
            }
            try request.setHeaders(missing)
            return request
        }
        return try await send(request, timeout: timeout ?? self.timeout)
    }

    // MARK: Pipeline

    /// Runs the encoding stage, turning its errors into ``RequestError``.
    private func build(_ body: () throws -> URLRequest) throws -> URLRequest {
        do {
            return try body()
        } catch let error as ParameterEncodingError where error.code == .invalidURL {
            throw RequestError(.invalidURL, detail: error.detail, underlyingError: error)
        } catch {
            throw RequestError(.encodingFailed, underlyingError: error)
        }
    }

    /// Runs the modifiers, then the transport, and times the transfer.
    private func send(_ request: URLRequest, timeout: Duration?) async throws -> Response {
        var request = request
        for modifier in modifiers {
            try Task.checkCancellation()
            do {
                try await modifier.modify(&request)
            } catch {
                if Task.isCancelled { throw CancellationError() }
                throw RequestError(.modifierFailed, request: request, detail: "\(type(of: modifier))", underlyingError: error)
            }
        }
        try Task.checkCancellation()
        if let timeout {
            // The session enforces the deadline itself. URLSession's own timer must not fire first;
            // on Linux it truncates to whole seconds, so a 0.8 s interval would fire at once.
            request.timeoutInterval = max(request.timeoutInterval, timeout.seconds.rounded(.up))
        }
        let start = ContinuousClock.now
        let (data, httpResponse): (Data, HTTPURLResponse)
        do {
            if let timeout {
                (data, httpResponse) = try await transfer(request, within: timeout)
            } else {
                (data, httpResponse) = try await transport.send(request)
            }
        } catch {
            throw Self.transportError(error, request: request, timeout: timeout)
        }
        return Response(request: request, httpResponse: httpResponse, data: data, start: start, duration: .now - start)
    }

    /// Races the transport against the timeout; the loser is cancelled.
    private func transfer(_ request: URLRequest, within timeout: Duration) async throws -> (Data, HTTPURLResponse) {
        let transport = self.transport
        return try await withThrowingTaskGroup(of: Transfer.self) { group in
            group.addTask { Transfer(result: try await transport.send(request)) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return Transfer(result: nil)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first.result else {
                throw URLError(.timedOut)
            }
            return result
        }
    }

    /// Maps what a transport threw to the error callers see.
    private static func transportError(_ error: any Error, request: URLRequest, timeout: Duration?) -> any Error {
        if Task.isCancelled {
            return CancellationError()
        }
        if let error = error as? RequestError {
            return error
        }
        let code: RequestError.Code
        var detail = ""
        switch (error as? URLError)?.code {
        case .timedOut?:
            code = .timedOut
            detail = timeout.map { "no complete response within \($0)" } ?? "no complete response in time"
        case .cancelled?:
            code = .cancelled
        default:
            code = error is CancellationError ? .cancelled : .transportFailed
        }
        return RequestError(code, request: request, detail: detail, underlyingError: error)
    }
}

/// What the first finisher of a timed transfer returned: the response, or `nil` for the timer.
private struct Transfer: Sendable {
    let result: (Data, HTTPURLResponse)?
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
