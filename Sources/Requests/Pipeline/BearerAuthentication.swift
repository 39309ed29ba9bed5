import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - BearerAuthentication

/// An ``Interceptor`` that sends a bearer token from your ``TokenProvider`` to the origins in its
/// ``scope``, and on a 401 refreshes it once and sends the request once more.
///
/// ```swift
/// let session = Session(modifiers: [ServerEnvironment(host: "api.example.com")],
///                       interceptors: [RetryPolicy(), BearerAuthentication(provider: tokens)])
/// ```
///
/// Refreshing is single-flight: however many requests are refused at the same time, the provider
/// refreshes once and all of them are sent again with the new token. When the refresh fails, each
/// of them fails with ``RequestError/Code/authenticationFailed`` saying why. A request that already
/// has an `Authorization` header is sent as it is. Under a ``RetryBudget`` stage, the try with the
/// new token is a retry: when the budget is spent, the 401 is returned without a refresh, its
/// ``Response/failedAttempts`` saying so.
public struct BearerAuthentication: Interceptor {
    /// Where the token may go.
    public let scope: CredentialScope
    private let refresher: TokenRefresher

    /// Creates the interceptor.
    ///
    /// - Parameters:
    ///   - provider: Gives and refreshes tokens.
    ///   - scope: Where the token may go; the session's server by default.
    public init(provider: some TokenProvider, scope: CredentialScope = .sessionServer) {
        self.scope = scope
        self.refresher = TokenRefresher(provider: provider)
    }

    /// Sends the request with the token; after a 401, with a refreshed one.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response; a second 401 is returned as it is.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/authenticationFailed`` when no token
    ///   could be had or the refresh failed (keeping the 401 response); what the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        guard request.headers["Authorization"] == nil,
              try scope.allows(request, context: next.context, owner: Self.self)
        else {
            return try await next(request)
        }
        let token: String
        do {
            token = try await refresher.current()
        } catch {
            throw Self.failure(error, request: request, detail: "could not get a token from \(type(of: refresher.provider))")
        }
        request.headers.append(name: "Authorization", value: "Bearer " + token)
        let response = try await next(copy request)
        guard response.statusCode == 401 else {
            return response
        }
        // The try with a fresh token is a retry: a spent budget keeps the 401 (and the refresh).
        if let refusal = request.options.retryBudget?.refusal(for: request, context: next.context) {
            var refused = response
            refused.failedAttempts.append(FailedAttempt(number: next.context.attemptCount, reason: "status 401 (not retried: \(refusal))",
                                                        statusCode: 401, duration: response.duration))
            return refused
        }
        let fresh: String
        do {
            fresh = try await refresher.replacement(for: token)
        } catch {
            throw Self.failure(error, response: response, detail: "refreshing the token after a 401 failed")
        }
        request.headers.update(name: "Authorization", value: "Bearer " + fresh)
        return try await next(request)
    }

    private static func failure(_ error: any Error, request: OutgoingRequest? = nil, response: Response? = nil, detail: String) -> any Error {
        if error is CancellationError || Task.isCancelled {
            return CancellationError()
        }
        let request = request ?? response?.outgoingRequest
        return RequestError(.authenticationFailed, method: request?.method, url: request?.url, response: response, detail: detail,
                            underlyingError: error)
    }
}
