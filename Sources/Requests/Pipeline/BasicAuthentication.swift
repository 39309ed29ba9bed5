import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - BasicAuthentication

/// An ``Interceptor`` that sends a user name and password with HTTP Basic authentication
/// (RFC 7617, UTF-8) to the origins in its ``scope``.
///
/// ```swift
/// let session = Session(modifiers: [ServerEnvironment(host: "api.example.com")],
///                       interceptors: [try BasicAuthentication(username: "arthur", password: "42")])
/// ```
///
/// A request that already has an `Authorization` header is sent as it is.
public struct BasicAuthentication: Interceptor {
    /// The user name.
    public let username: String
    /// Where the credentials may go.
    public let scope: CredentialScope
    /// `Basic <base64 of user:password>`.
    private let headerValue: String

    /// Creates the interceptor.
    ///
    /// - Parameters:
    ///   - username: The user name; it may not contain `:` or control characters.
    ///   - password: The password; it may not contain control characters.
    ///   - scope: Where the credentials may go; the session's server by default.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/authenticationFailed`` naming what
    ///   Basic authentication cannot carry.
    public init(username: String, password: String, scope: CredentialScope = .sessionServer) throws {
        if username.contains(":") {
            throw RequestError(.authenticationFailed, detail: "the user name \"\(username)\" contains \":\", which Basic authentication (RFC 7617) cannot carry")
        }
        for (part, text) in [("user name", username), ("password", password)]
        where text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw RequestError(.authenticationFailed, detail: "the \(part) contains a control character, which Basic authentication (RFC 7617) forbids")
        }
        self.username = username
        self.scope = scope
        self.headerValue = "Basic " + Data((username + ":" + password).utf8).base64EncodedString()
    }

    /// Adds the `Authorization` header when the request's origin is in scope.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/authenticationFailed`` when the scope
    ///   has no origins; what the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        if request.headers["Authorization"] == nil,
           try scope.allows(request, context: next.context, owner: Self.self) {
            request.headers.append(name: "Authorization", value: headerValue)
        }
        return try await next(request)
    }
}
