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
    /// The request goes through the same interceptors as ``request(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:)``;
    /// they see the head, with an empty ``Response/data``. A retry or a redirect cancels the body
    /// of the response it leaves behind. The timeout covers the call until the head has arrived;
    /// while the body streams, it bounds each silence instead: a body that sends nothing for that
    /// long fails with ``RequestError/Code/timedOut`` (without a timeout, the transport's idle
    /// timeout applies: for `URLSession`, the request's `timeoutInterval`). Memory stays bounded
    /// when the reader is slower than the network: see ``URLSessionTransport/streamBufferLimit``.
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: Parameters to encode, or `nil`.
    ///   - encoding: How to encode them; `URLEncoding.default`.
    ///   - headers: Headers for this request.
    ///   - timeout: The time allowed until the head arrives, and for each silence in the body;
    ///     overrides the session's timeout.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
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
        redirectPolicy: RedirectPolicy? = nil
    ) async throws -> ResponseStream {
        let request = try makeRequest(url, method: method, parameters: parameters, encoding: encoding, headers: headers)
        return try await stream(built: request, timeout: timeout ?? self.timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
    }

    /// Sends a ready-made request and returns as soon as the response head has arrived.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one.
    ///   - timeout: The time allowed until the head arrives, and for each silence in the body;
    ///     overrides the session's timeout.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    /// - Returns: The head and the body.
    /// - Throws: ``RequestError``, or `CancellationError`.
    public func stream(
        _ request: any URLRequestConvertible,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil
    ) async throws -> ResponseStream {
        let request = try makeRequest(request)
        return try await stream(built: request, timeout: timeout ?? self.timeout, interceptors: interceptors, redirectPolicy: redirectPolicy)
    }

    /// Runs a built request through the pipeline with a streaming transfer.
    func stream(
        built request: consuming URLRequest,
        timeout: Duration?,
        interceptors: [any Interceptor],
        redirectPolicy: RedirectPolicy?
    ) async throws -> ResponseStream {
        let latest = LatestBody()
        do {
            let head = try await send(request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy) { transport, request in
                var request = request
                if let timeout {
                    // The body has no deadline (a stream may last for hours), but a silence longer
                    // than the call's timeout is a dead server: it becomes the transfer's idle timeout.
                    request.timeoutInterval = max(1, timeout.seconds.rounded(.up))
                }
                let (response, body) = try await transport.stream(request)
                latest.replace(with: body)
                return (Data(), response)
            }
            // A stage that answered without the transport (from a cache, say) left its body in `data`.
            let body = latest.take() ?? ResponseBody(head.data)
            return ResponseStream(head: head.with(data: Data()), body: body)
        } catch {
            latest.take()?.cancel()
            throw error
        }
    }
}

// MARK: - LatestBody

/// The body of the newest transfer of one call. Invariant: it holds at most one body; a body it
/// lets go of for a newer one is cancelled, and so is one that arrives after the call ended
/// (a transfer the call's deadline abandoned).
final class LatestBody: Sendable {
    private let state = Guarded<(body: ResponseBody?, closed: Bool)>((nil, false))

    func replace(with newer: ResponseBody) {
        let dropped: ResponseBody? = state.withLock { state in
            if state.closed { return newer }
            defer { state.body = newer }
            return state.body
        }
        dropped?.cancel()
    }

    /// Takes the body and closes the slot.
    func take() -> ResponseBody? {
        state.withLock { state in
            defer { state = (nil, true) }
            return state.body
        }
    }
}
