import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - CredentialScope

/// Where an authentication interceptor may send credentials, so that a token never leaks to a
/// third-party URL requested through the same session.
///
/// ```swift
/// BearerAuthentication(provider: tokens)                                   // the session's server
/// BearerAuthentication(provider: tokens, scope: .origins([try Origin("https://api.example.com")]))
/// BearerAuthentication(provider: tokens, scope: .anyOrigin)                // everywhere: say so
/// ```
public struct CredentialScope: Sendable, Hashable {
    private enum Kind: Sendable, Hashable {
        case sessionServer
        case origins(Set<Origin>)
        case any
    }

    private let kind: Kind

    /// The origins of the session's ``ServerEnvironment`` stages (the default). A session without
    /// one has nowhere to send credentials, and its requests fail with
    /// ``RequestError/Code/authenticationFailed`` instead of going out without them unnoticed.
    public static let sessionServer = CredentialScope(kind: .sessionServer)

    /// Every origin: credentials go wherever the session sends requests.
    public static let anyOrigin = CredentialScope(kind: .any)

    /// These origins only.
    ///
    /// - Parameter origins: The origins that may receive credentials.
    /// - Returns: The scope.
    public static func origins(_ origins: some Sequence<Origin>) -> CredentialScope {
        CredentialScope(kind: .origins(Set(origins)))
    }

    /// Whether credentials may go to the request's URL.
    ///
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - context: The call's context, for the session's server origins.
    ///   - owner: The interceptor's type, named in the error.
    /// - Returns: `true` when the URL's origin is in scope.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/authenticationFailed`` when the scope
    ///   is ``sessionServer`` and the session has no ``ServerEnvironment``.
    func allows(_ request: OutgoingRequest, context: RequestContext, owner: Any.Type) throws -> Bool {
        switch kind {
        case .any:
            return true
        case .origins(let origins):
            return request.target.origin.map(origins.contains) ?? false
        case .sessionServer:
            guard !context.serverOrigins.isEmpty else {
                throw RequestError(
                    .authenticationFailed, request: request,
                    detail: "\(owner) has no origin to send credentials to: the session has no ServerEnvironment; "
                        + "pass scope: .origins([...]) or .anyOrigin"
                )
            }
            return request.target.origin.map(context.serverOrigins.contains) ?? false
        }
    }
}
