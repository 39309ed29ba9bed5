import Foundation

// MARK: - TokenProvider

/// Where ``BearerAuthentication`` gets its tokens: you write it, over your keychain, your OAuth
/// client, your refresh endpoint.
///
/// ```swift
/// actor OAuthTokens: TokenProvider {
///     private var access: String
///     private let refresh: String
///     func token() async throws -> String { access }
///     func refreshToken(rejected: String) async throws -> String {
///         access = try await authServer.exchange(refresh)   // not through the authenticated session
///         return access
///     }
/// }
/// ```
public protocol TokenProvider: Sendable {
    /// The token to send now.
    ///
    /// - Returns: The current access token, without the `Bearer ` prefix.
    /// - Throws: Any error; the request then fails with ``RequestError/Code/authenticationFailed``.
    func token() async throws -> String

    /// Gets a new token after the server refused one with a 401. ``BearerAuthentication`` calls it
    /// once however many requests were refused at the same time; afterwards ``token()`` should
    /// return the new token.
    ///
    /// - Parameter rejected: The token the server refused.
    /// - Returns: The new access token.
    /// - Throws: Any error; every request waiting for the refresh then fails with
    ///   ``RequestError/Code/authenticationFailed``, naming this error.
    func refreshToken(rejected: String) async throws -> String
}

// MARK: - TokenRefresher

/// Hands out tokens and runs at most one refresh at a time for one ``BearerAuthentication``.
///
/// Invariant: `refreshing` is set exactly while a refresh runs; every caller that asks for a token
/// or a refresh meanwhile waits for that one task. `latest` is the token the last successful refresh
/// produced: a request refused with an older token gets it without another refresh.
actor TokenRefresher {
    let provider: any TokenProvider
    private var refreshing: Task<String, any Error>?
    private var latest: String?

    init(provider: any TokenProvider) {
        self.provider = provider
    }

    /// The token to send: the one being refreshed, if a refresh runs, else the provider's.
    func current() async throws -> String {
        if let refreshing {
            return try await refreshing.value
        }
        return try await provider.token()
    }

    /// A token to use instead of `rejected`, refreshing only when no newer one exists.
    func replacement(for rejected: String) async throws -> String {
        if let refreshing {
            return try await refreshing.value
        }
        if let latest, latest != rejected {
            return latest
        }
        let provider = self.provider
        let task = Task { try await provider.refreshToken(rejected: rejected) }
        refreshing = task
        defer { refreshing = nil }
        let token = try await task.value
        latest = token
        return token
    }
}
