import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - DigestAuthentication

/// An ``Interceptor`` that answers HTTP Digest challenges (RFC 7616) with a user name and
/// password, for the origins in its ``scope``.
///
/// ```swift
/// let session = Session(interceptors: [
///     try DigestAuthentication(username: "Mufasa", password: "Circle of Life", scope: .origins([origin]))
/// ])
/// ```
///
/// A request goes out without credentials; on a 401 whose `WWW-Authenticate` holds a `Digest`
/// challenge, it is sent once more with the answer (SHA-256 preferred over MD5 when both are
/// offered; `-sess` variants, `qop=auth`, `userhash`, `opaque` and RFC 2069 servers without `qop`
/// are understood). The last challenge per origin is kept, so later requests to it carry an
/// answer at once, counting the nonce up (`nc`); a 401 marked `stale` gets one more answer with
/// the new nonce. A second 401 is returned as it is, and so is a challenge this library cannot
/// answer (`qop=auth-int` alone, or an algorithm such as `SHA-512-256`). A request that already
/// has an `Authorization` header is sent as it is.
public struct DigestAuthentication: Interceptor {
    /// The user name.
    public let username: String
    /// Where the credentials may go.
    public let scope: CredentialScope
    private let password: String
    /// The last challenge answered per origin, and how many requests its nonce has signed.
    private let challenges = Guarded<[Origin: (challenge: DigestChallenge, count: Int)]>([:])

    /// Creates the interceptor.
    ///
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    ///   - scope: Where the credentials may go; the session's server by default.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/authenticationFailed`` for a user
    ///   name or password with a control character, which no header can carry.
    public init(username: String, password: String, scope: CredentialScope = .sessionServer) throws {
        for (part, text) in [("user name", username), ("password", password)]
        where text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw RequestError(.authenticationFailed, detail: "the \(part) contains a control character, which Digest authentication (RFC 7616) cannot carry")
        }
        self.username = username
        self.password = password
        self.scope = scope
    }

    /// Sends the request, answering the origin's last challenge when there is one, and answers a
    /// new challenge once.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response; a 401 that could not be answered, or came again, as it is.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/authenticationFailed`` when the scope
    ///   has no origins; what the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        guard request.headers["Authorization"] == nil,
              try scope.allows(request, context: next.context, owner: Self.self),
              let origin = request.target.origin else {
            return try await next(request)
        }
        let method = request.method.rawValue
        let target = request.target.pathAndQuery
        var response = try await next(signed(copy request, origin: origin, method: method, target: target, fresh: nil))
        // A first answer to a new challenge, then one more only when the server says that
        // answer's nonce was merely old (the credentials were right).
        var answered = 0
        while response.statusCode == 401, answered < 2,
              let challenge = Self.strongest(DigestChallenge.parse(response.headers.values(for: "WWW-Authenticate"))),
              answered == 0 || challenge.stale {
            response = try await next(signed(copy request, origin: origin, method: method, target: target, fresh: challenge))
            answered += 1
        }
        return response
    }

    /// `request` with the answer to `fresh`, or to the origin's kept challenge; as it is without
    /// either.
    private func signed(_ request: OutgoingRequest, origin: Origin, method: String, target: String, fresh: DigestChallenge?) -> OutgoingRequest {
        let use = challenges.withLock { kept -> (DigestChallenge, Int)? in
            if let fresh {
                kept[origin] = (fresh, 1)
                return (fresh, 1)
            }
            guard var entry = kept[origin] else { return nil }
            entry.count += 1
            kept[origin] = entry
            return (entry.challenge, entry.count)
        }
        guard let (challenge, count) = use,
              let value = challenge.authorization(username: username, password: password, method: method, uri: target,
                                                  cnonce: Self.clientNonce(), count: count) else {
            return request
        }
        var request = request
        request.headers.update(name: "Authorization", value: value)
        return request
    }

    /// The challenge to answer: SHA-256 before MD5, the server's order otherwise.
    static func strongest(_ challenges: [DigestChallenge]) -> DigestChallenge? {
        let answerable = challenges.filter(\.isAnswerable)
        return answerable.first { $0.algorithm.uppercased().hasPrefix("SHA-256") } ?? answerable.first
    }

    private static func clientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
