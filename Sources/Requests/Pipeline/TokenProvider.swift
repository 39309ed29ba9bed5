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
///
/// A lock, not an actor: asking for the current token, every request's case, then costs no hop to
/// another executor and back.
final class TokenRefresher: Sendable {
    let provider: any TokenProvider
    private let state = Guarded<(refreshing: Task<String, any Error>?, latest: String?)>((nil, nil))

    init(provider: any TokenProvider) {
        self.provider = provider
    }

    /// The token to send: the one being refreshed, if a refresh runs, else the provider's.
    func current() async throws -> String {
        if let refreshing = state.withLock({ $0.refreshing }) {
            return try await refreshing.value
        }
        return try await provider.token()
    }

    /// A token to use instead of `rejected`, refreshing only when no newer one exists.
    func replacement(for rejected: String) async throws -> String {
        enum Step {
            case use(String)
            case wait(Task<String, any Error>)
            case run(Task<String, any Error>)
        }
        let provider = self.provider
        let step = state.withLock { state -> Step in
            if let refreshing = state.refreshing {
                return .wait(refreshing)
            }
            if let latest = state.latest, latest != rejected {
                return .use(latest)
            }
            let task = Task { try await provider.refreshToken(rejected: rejected) }
            state.refreshing = task
            return .run(task)
        }
        switch step {
        case .use(let token):
            return token
        case .wait(let task):
            return try await task.value
        case .run(let task):
            // The caller that started the refresh records its outcome, whether or not it is
            // cancelled while waiting (the task runs on and the others wait for it).
            let result = await task.result
            state.withLock { state in
                if case .success(let token) = result { state.latest = token }
                state.refreshing = nil
            }
            return try result.get()
        }
    }
}
