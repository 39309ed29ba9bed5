import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Cookies

/// Where a ``Session`` keeps the cookies responses set, and sends them back from.
///
/// ```swift
/// let session = Session(cookies: .inMemory())       // this session's own jar
/// _ = try await session.request("https://example.com/login", method: .post, parameters: form)
/// let profile = try await session.request("https://example.com/profile")   // sends the cookie
/// ```
///
/// The session handles cookies itself, in the pipeline, rather than leaving them to `URLSession`,
/// so that they behave the same on every platform and at every redirect hop: before each trip to
/// the transport it adds the stored cookies that match the URL (RFC 6265 domain, path and `Secure`
/// rules, as `HTTPCookieStorage` applies them) after any `Cookie` header the request carries; after
/// it, it stores those the response sets, and lists them in ``Response/cookies``.
public struct Cookies: @unchecked Sendable {
    // `HTTPCookieStorage` is documented as safe to use from any thread.
    /// The storage, or `nil` when cookies are neither stored nor sent (or for ``fromConfiguration``).
    public let storage: HTTPCookieStorage?
    /// Whether the storage is the one the `URLSessionConfiguration` names.
    let followsConfiguration: Bool

    private init(storage: HTTPCookieStorage?, followsConfiguration: Bool = false) {
        self.storage = storage
        self.followsConfiguration = followsConfiguration
    }

    /// Uses a storage of your own.
    ///
    /// - Parameter storage: The storage.
    /// - Returns: The cookie setting.
    public static func storage(_ storage: HTTPCookieStorage) -> Cookies {
        Cookies(storage: storage)
    }

    /// `HTTPCookieStorage.shared`, which `URLSession` uses by default (and persists on disk).
    public static var shared: Cookies { Cookies(storage: .shared) }

    /// A fresh storage in memory, seen by this setting alone and gone with it.
    ///
    /// - Returns: The cookie setting.
    public static func inMemory() -> Cookies {
        Cookies(storage: URLSessionConfiguration.ephemeral.httpCookieStorage)
    }

    /// No cookies: none stored, none sent (but a `Cookie` header the request sets is sent).
    public static let none = Cookies(storage: nil)

    /// The storage the session's `URLSessionConfiguration` names, when it lets `URLSession` handle
    /// cookies (`HTTPCookieStorage.shared` for `.default`, a private one for `.ephemeral`); none
    /// for a session over another transport.
    public static let fromConfiguration = Cookies(storage: nil, followsConfiguration: true)

    /// The setting with ``fromConfiguration`` resolved against a configuration.
    func resolved(with configuration: URLSessionConfiguration?) -> Cookies {
        guard followsConfiguration else { return self }
        guard let configuration, configuration.httpShouldSetCookies else { return .none }
        return Cookies(storage: configuration.httpCookieStorage)
    }
}

// MARK: - CookieStage

/// The innermost stage: sends stored cookies and stores the ones responses set, at every hop.
struct CookieStage: Interceptor {
    let storage: HTTPCookieStorage

    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        // Most stores hold nothing for most URLs: the filter (which reads the URL's path) runs
        // only on cookies there are.
        if let all = storage.cookies(for: request.url), !all.isEmpty,
           case let stored = Self.sendable(all, to: request.target), !stored.isEmpty {
            // After the caller's own `Cookie` fields; all go out as one field, joined with "; ".
            request.headers.append(name: "Cookie", value: stored.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
        }
        var response = try await next(request)
        guard response.headers.value(for: "Set-Cookie") != nil else { return response }
        let url = response.outgoingRequest.url
        let set = Self.cookies(in: response.headers, for: url)
        if !set.isEmpty {
            storage.setCookies(set, for: url, mainDocumentURL: nil)
            response.cookies = set
        }
        return response
    }

    /// The stored cookies that may go to `url`: RFC 6265 section 5.4's `Secure`, path and expiry
    /// rules, which FoundationNetworking's `cookies(for:)` does not apply (it matches the host only).
    static func sendable(_ cookies: [HTTPCookie], to target: RequestTarget) -> [HTTPCookie] {
        let now = Date()
        let secure = target.scheme.lowercased() == "https"
        let path = target.path.isEmpty ? "/" : (target.path.removingPercentEncoding ?? target.path)
        return cookies.filter { cookie in
            (secure || !cookie.isSecure)
                && (cookie.expiresDate.map { $0 > now } ?? true)
                && pathMatches(cookie.path, path)
        }
    }

    /// RFC 6265 5.1.4: the cookie's path is the request path, or a prefix of it ending at a `/`.
    static func pathMatches(_ cookiePath: String, _ requestPath: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// The cookies a response sets, each `Set-Cookie` field parsed on its own (a transport that
    /// joined repeated fields with ", " leaves the parser to split them again).
    static func cookies(in headers: HTTPHeaders, for url: URL) -> [HTTPCookie] {
        var cookies: [HTTPCookie] = []
        for value in headers.values(for: "Set-Cookie") {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url).map(expiringByMaxAge)
        }
        return cookies
    }

    /// The cookie with `Max-Age` applied as its expiry date (RFC 6265 5.2.2; 0 or less expires
    /// it at once). FoundationNetworking keeps `Max-Age` as a bare property and never expires such
    /// a cookie, so a server could not delete one; Apple's `HTTPCookie` already sets the date.
    static func expiringByMaxAge(_ cookie: HTTPCookie) -> HTTPCookie {
        guard cookie.expiresDate == nil, var properties = cookie.properties,
              let maxAge = (properties[.maximumAge] as? String).flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { return cookie }
        properties[.maximumAge] = nil
        properties[.expires] = maxAge <= 0 ? Date(timeIntervalSince1970: 0) : Date(timeIntervalSinceNow: TimeInterval(maxAge))
        // `HTTPCookie(properties:)` reads `Secure` as text; the parsed cookie may keep it as a Bool.
        properties[.secure] = cookie.isSecure ? "TRUE" : nil
        return HTTPCookie(properties: properties) ?? cookie
    }
}
