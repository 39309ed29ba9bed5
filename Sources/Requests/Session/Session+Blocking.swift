import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Session + blocking

extension Session {
    /// Sends a request and waits for the response, blocking the calling thread: for scripts and
    /// command-line tools that are not async.
    ///
    /// ```swift
    /// let session = Session()
    /// let response = try session.requestBlocking("https://example.com/status")
    /// print(response.statusCode)
    /// ```
    ///
    /// Never call it from inside Swift concurrency (an `async` function, a `Task`): it would hold
    /// one of the few threads the tasks share while waiting for them. It detects a calling task
    /// and throws instead of risking a deadlock. Synchronous code on the main thread has no task
    /// and is not refused (a script's top level runs there); but it blocks the main thread, so a
    /// session whose interceptors or monitors need the main actor would deadlock there.
    ///
    /// - Parameters:
    ///   - url: The URL; a relative one needs a modifier such as ``ServerEnvironment``.
    ///   - method: The HTTP method; `GET` by default.
    ///   - parameters: Parameters to encode, or `nil`.
    ///   - encoding: How to encode them; `URLEncoding.default`.
    ///   - headers: Headers for this request.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the session's ``options``.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError`` as `request` does; ``RequestError/Code/blockingCallInTask`` when
    ///   called from inside a task.
    @available(*, noasync, message: "use request(_:) with await; this blocks a thread the tasks share")
    public func requestBlocking(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) throws -> Response {
        try Self.blocking {
            try await self.request(url, method: method, parameters: parameters, encoding: encoding, headers: headers, timeout: timeout,
                                   interceptors: interceptors, redirectPolicy: redirectPolicy, options: options)
        }
    }

    /// Sends a ready-made request and waits for the response, blocking the calling thread; see
    /// ``requestBlocking(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)``.
    ///
    /// - Parameters:
    ///   - request: The request, or anything that builds one.
    ///   - timeout: The timeout for the whole request, overriding the session's.
    ///   - interceptors: Interceptors for this call only, run inside the session's.
    ///   - redirectPolicy: How redirects are followed in this call, overriding the session's.
    ///   - options: Settings for this call (``RequestOptions``), over the request's own and the
    ///     session's ``options``.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError`` as `request` does; ``RequestError/Code/blockingCallInTask`` when
    ///   called from inside a task.
    @available(*, noasync, message: "use request(_:) with await; this blocks a thread the tasks share")
    public func requestBlocking(
        _ request: any URLRequestConvertible,
        timeout: Duration? = nil,
        interceptors: [any Interceptor] = [],
        redirectPolicy: RedirectPolicy? = nil,
        options: RequestOptions? = nil
    ) throws -> Response {
        try Self.blocking {
            try await self.request(request, timeout: timeout, interceptors: interceptors, redirectPolicy: redirectPolicy, options: options)
        }
    }

    /// Runs `operation` in a task of its own and waits for it on this thread.
    static func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        if withUnsafeCurrentTask(body: { $0 != nil }) {
            throw RequestError(.blockingCallInTask, detail: "requestBlocking waits on the calling thread; inside async code use `try await session.request(...)`")
        }
        let outcome = Guarded<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw RequestError(.cancelled, detail: "the request ended without a result")
        }
        return try result.get()
    }
}
