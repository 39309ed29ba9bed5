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
/// Invariant: `waiters` is set exactly while a refresh runs, and holds every caller that asked
/// for a token or a refresh meanwhile; they are resumed, unlocked, with that refresh's outcome.
/// `latest` is the token the last successful refresh produced: a request refused with an older
/// token gets it without another refresh. The refresh's task is started after the lock, by the
/// caller that found none running.
///
/// A lock, not an actor: asking for the current token, every request's case, then costs no hop to
/// another executor and back.
final class TokenRefresher: Sendable {
    typealias Waiter = CheckedContinuation<String?, any Error>

    let provider: any TokenProvider
    private let state = Guarded<(waiters: [Waiter]?, latest: String?)>((nil, nil))

    init(provider: any TokenProvider) {
        self.provider = provider
    }

    /// The token to send: the one being refreshed, if a refresh runs, else the provider's.
    func current() async throws -> String {
        if let refreshed = try await refreshUnderWay() {
            return refreshed
        }
        return try await provider.token()
    }

    /// A token to use instead of `rejected`, refreshing only when no newer one exists.
    func replacement(for rejected: String) async throws -> String {
        enum Step {
            case use(String)
            case wait
            case run
        }
        let step = state.withLock { state -> Step in
            if state.waiters != nil { return .wait }
            if let latest = state.latest, latest != rejected { return .use(latest) }
            state.waiters = []
            return .run
        }
        switch step {
        case .use(let token):
            return token
        case .wait:
            // The refresh may have ended meanwhile: decide again.
            if let refreshed = try await refreshUnderWay() { return refreshed }
            return try await replacement(for: rejected)
        case .run:
            // A task of its own, so that the refresh runs on, for those who wait, when this
            // caller is cancelled.
            let provider = self.provider
            let result = await Task { try await provider.refreshToken(rejected: rejected) }.result
            let waiters = state.withLock { state -> [Waiter] in
                if case .success(let token) = result { state.latest = token }
                defer { state.waiters = nil }
                return state.waiters ?? []
            }
            for waiter in waiters {
                waiter.resume(with: result.map { Optional($0) })
            }
            return try result.get()
        }
    }

    /// Waits for the refresh under way: its token, or `nil` when none runs.
    private func refreshUnderWay() async throws -> String? {
        guard state.withLock({ $0.waiters != nil }) else { return nil }
        return try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let joined = state.withLock { state -> Bool in
                guard state.waiters != nil else { return false }
                state.waiters?.append(waiter)
                return true
            }
            if !joined { waiter.resume(returning: nil) }
        }
    }
}
