import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RedirectFollower

/// The innermost stage but the cookies: follows redirects as a ``RedirectPolicy`` says.
struct RedirectFollower: Interceptor {
    let policy: RedirectPolicy

    /// Headers that carry credentials, removed on a hop to another origin.
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]
    /// Headers that describe the body, removed when the body is.
    static let bodyHeaders = ["Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location", "Transfer-Encoding"]

    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        guard policy.follows else { return try await next(request) }
        // What the caller asked for, which an error about the chain names (not a hop in between).
        let asked = (method: request.method, url: request.url)
        var current = request
        var chain: [URL] = []
        // Each request sent, with how many cookies the chain had set by then: coming back to one
        // with no cookie set since is a loop; after a cookie was set (a login flow), it is not.
        var visited: [String: Int] = [:]
        var cookies: [HTTPCookie] = []
        while true {
            var response = try await next(current)
            if !cookies.isEmpty {
                response.cookies = cookies + response.cookies
            }
            guard let target = try redirectTarget(of: response) else {
                response.redirects = chain
                return response
            }
            cookies = response.cookies
            let from = current.url
            chain.append(from)
            visited[Self.key(current.method, from)] = cookies.count
            let hop = try nextRequest(after: current, response: response, to: target, chain: chain)
            guard chain.count <= policy.maxRedirects else {
                throw RequestError(.tooManyRedirects, method: asked.method, url: asked.url, response: response,
                                   detail: "more than \(policy.maxRedirects): " + Self.describe(chain + [target]))
            }
            if let cookiesThen = visited[Self.key(hop.method, target)], cookiesThen == cookies.count {
                throw RequestError(.redirectRefused, method: asked.method, url: asked.url, response: response,
                                   detail: "a loop: " + Self.describe(chain + [target]))
            }
            if let decide = policy.decide {
                guard let decided = try await decide(Redirect(response: response, next: hop, chain: chain)) else {
                    response.redirects = Array(chain.dropLast())
                    return response
                }
                current = decided
            } else {
                current = hop
            }
        }
    }

    /// Where a response redirects to, or `nil` when it is not a redirect to follow.
    private func redirectTarget(of response: Response) throws -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
              let location = response.headers.value(for: "Location") else { return nil }
        let base = response.outgoingRequest.url
        guard let target = URL(string: location, relativeTo: base)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = target.host, !host.isEmpty else {
            throw RequestError(.redirectRefused, response: response,
                               detail: "Location \(HTTPToken.quoted(location)) is not an http(s) URL")
        }
        if base.scheme?.lowercased() == "https", scheme == "http", !policy.allowsInsecure {
            throw RequestError(.redirectRefused, response: response,
                               detail: "from https to http (\(target.absoluteString)); RedirectPolicy.follow(allowsInsecure: true) allows it")
        }
        return target
    }

    /// The request for the next hop, by the method, body and credential rules.
    private func nextRequest(after request: OutgoingRequest, response: Response, to target: URL, chain: [URL]) throws -> OutgoingRequest {
        var next = request
        next.target = RequestTarget(target)
        let method = request.method
        let status = response.statusCode
        if (status == 303 && method != .head && method != .get) || ((status == 301 || status == 302) && method == .post) {
            next.method = .get
            next.body = .empty
            for name in Self.bodyHeaders {
                next.headers.remove(name: name)
            }
        }
        if request.target.origin != next.target.origin {
            for name in Self.credentialHeaders {
                next.headers.remove(name: name)
            }
        }
        return next
    }

    private static func key(_ method: HTTPMethod, _ url: URL) -> String {
        method.rawValue.uppercased() + " " + url.absoluteString
    }

    private static func describe(_ chain: [URL]) -> String {
        chain.map(\.absoluteString).joined(separator: " -> ")
    }

}
