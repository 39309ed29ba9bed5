import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RedirectPolicy

/// Whether and how a ``Session`` follows redirects (301, 302, 303, 307, 308 with a `Location`).
///
/// ```swift
/// let session = Session(redirectPolicy: .follow(max: 5))
/// let raw = try await session.request(url, redirectPolicy: .doNotFollow)        // the 3xx itself
/// let sameSite = RedirectPolicy.custom { redirect in
///     redirect.isCrossOrigin ? nil : redirect.next                                // stop at other sites
/// }
/// ```
///
/// When following, as browsers and curl do:
/// - 301 and 302 turn `POST` into `GET`, 303 turns every method but `HEAD` into `GET`; the body and
///   its `Content-*` headers are dropped then. 307 and 308 keep the method and the body.
/// - A hop to another origin (scheme, host or port) removes the `Authorization`,
///   `Proxy-Authorization` and `Cookie` headers the request carried; they stay removed for the
///   rest of the chain. Cookies from the session's cookie storage are still sent where they belong.
/// - A hop from https to http is refused unless `allowsInsecure` is set.
/// - A hop to a URL already visited with the same method is a loop, and refused; so is a chain
///   longer than `max`. Both errors list the chain.
///
/// The response records the URLs that redirected in ``Response/redirects``. Redirects are followed
/// inside the interceptors: a ``RetryPolicy`` or an authenticator sees the final response, and the
/// monitors see every hop.
public struct RedirectPolicy: Sendable {
    /// The most redirects followed in one call.
    public let maxRedirects: Int
    /// Whether a redirect from https to http is followed.
    public let allowsInsecure: Bool
    let decide: (@Sendable (Redirect) async throws -> OutgoingRequest?)?

    private init(maxRedirects: Int, allowsInsecure: Bool, decide: (@Sendable (Redirect) async throws -> OutgoingRequest?)?) {
        self.maxRedirects = max(0, maxRedirects)
        self.allowsInsecure = allowsInsecure
        self.decide = decide
    }

    /// Follows up to `max` redirects (10 by default).
    ///
    /// - Parameters:
    ///   - max: The most redirects to follow; one more is an error.
    ///   - allowsInsecure: Whether to follow a redirect from https to http.
    /// - Returns: The policy.
    public static func follow(max: Int = 10, allowsInsecure: Bool = false) -> RedirectPolicy {
        RedirectPolicy(maxRedirects: max, allowsInsecure: allowsInsecure, decide: nil)
    }

    /// Follows no redirect: the 3xx response is returned as it is.
    public static let doNotFollow = RedirectPolicy(maxRedirects: 0, allowsInsecure: false, decide: nil)

    /// The default: ``follow(max:allowsInsecure:)`` with 10 redirects.
    public static let `default` = RedirectPolicy.follow()

    /// Asks a closure at each hop, after the standard rules above made the next request.
    ///
    /// - Parameters:
    ///   - max: The most redirects to follow; one more is an error.
    ///   - allowsInsecure: Whether a redirect from https to http reaches the closure at all.
    ///   - decide: Returns the request to send next (``Redirect/next``, changed or not), or `nil`
    ///     to stop and return the 3xx response; throwing ends the call with that error.
    /// - Returns: The policy.
    public static func custom(
        max: Int = 10,
        allowsInsecure: Bool = false,
        _ decide: @escaping @Sendable (Redirect) async throws -> OutgoingRequest?
    ) -> RedirectPolicy {
        RedirectPolicy(maxRedirects: max, allowsInsecure: allowsInsecure, decide: decide)
    }

    /// Whether this policy follows anything.
    var follows: Bool { maxRedirects > 0 }
}

// MARK: - Redirect

/// One hop of a redirect chain, as a ``RedirectPolicy/custom(max:allowsInsecure:_:)`` closure sees it.
public struct Redirect: Sendable {
    /// The 3xx response.
    public let response: Response
    /// The request the policy's rules would send next.
    public let next: OutgoingRequest
    /// The URLs requested so far in this call, the one that answered `response` last.
    public let chain: [URL]

    /// Whether the next request goes to another origin than the one that redirected.
    public var isCrossOrigin: Bool {
        guard let from = response.outgoingRequest.target.origin, let to = next.target.origin else { return true }
        return from != to
    }
}
