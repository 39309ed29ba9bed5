import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Interceptor

/// A stage of the request pipeline: it receives the request and the rest of the chain, and returns
/// the response.
///
/// An interceptor may change the request, call `next` zero times (answer from a cache), once, or
/// several times (retry), look at or replace the response, and throw. A ``Session`` runs its
/// interceptors outermost first, then the per-call ones, then the transport:
///
/// ```swift
/// struct Tracing: Interceptor {
///     func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
///         request.headers.append(name: "X-Request-ID", value: UUID().uuidString)
///         let response = try await next(request)
///         print(response.statusCode, response.duration)
///         return response
///     }
/// }
/// let session = Session(interceptors: [Throttle(maxConcurrent: 8), RetryPolicy(), Tracing()])
/// ```
///
/// Errors an interceptor throws reach the caller as ``RequestError`` with code
/// ``RequestError/Code/interceptorFailed`` naming the interceptor; a `RequestError` or
/// `CancellationError` passes through as it is. The request parameter is `consuming` so that
/// changing it does not copy it; a conformance may declare it plainly, as `_ request: OutgoingRequest`.
public protocol Interceptor: Sendable {
    /// The rest of the chain, as seen from an interceptor.
    typealias Next = InterceptorNext

    /// Handles one request.
    ///
    /// - Parameters:
    ///   - request: The request as the outer stages left it.
    ///   - next: The rest of the chain; call it to send a request on, as often as needed.
    /// - Returns: The response for the caller.
    /// - Throws: Whatever `next` threw, or the interceptor's own error.
    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response
}

// MARK: - InterceptorNext

/// The stages after an interceptor: the inner interceptors and the transport.
///
/// Call it like a function, `try await next(request)`. It also carries the ``context`` shared by
/// every stage of one call: its deadline, the attempts made so far, the session's monitors.
public struct InterceptorNext: Sendable {
    let chain: InterceptorChain
    let index: Int

    /// What every stage of this call shares.
    public var context: RequestContext { chain.context }

    /// Sends the request through the rest of the chain.
    ///
    /// - Parameter request: The request to send on.
    /// - Returns: The response from the inner stages.
    /// - Throws: ``RequestError`` from the inner stages or the transport, or `CancellationError`.
    public func callAsFunction(_ request: consuming OutgoingRequest) async throws -> Response {
        try await chain.run(request, from: index)
    }
}

extension InterceptorNext {
    /// Whether the call reads its body whole before the stages see the response.
    var collectsBody: Bool { chain.mode == .collect }

    /// The rest of the chain for one more trip running beside this one's (a hedge), with a clock
    /// of its own on the call's deadline: one clock holds one wait at a time.
    func sibling() -> InterceptorNext {
        InterceptorNext(chain: chain.sibling(), index: index)
    }

    /// Ends the clock of a ``sibling()`` once its trip is over.
    func endSibling() {
        chain.clock.end()
    }
}
