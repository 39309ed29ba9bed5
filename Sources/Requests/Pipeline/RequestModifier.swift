import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RequestModifier

/// A step that changes a request just before it is sent: add auth, fill in a server, sign, log.
///
/// A modifier is an ``Interceptor`` that only changes the request: a ``Session`` runs its
/// modifiers in order, each on the previous one's output, before its other interceptors.
public protocol RequestModifier: Interceptor {
    /// Changes the request.
    ///
    /// - Parameter request: The request so far; change it in place.
    /// - Throws: Any error; the session wraps it in ``RequestError`` with code
    ///   ``RequestError/Code/modifierFailed`` and does not send the request.
    func modify(_ request: inout OutgoingRequest) async throws

    /// The origin this modifier sends requests to, when it is one: credentials scoped to
    /// ``CredentialScope/sessionServer`` go there. ``ServerEnvironment`` gives its origin; the
    /// default is `nil`.
    var serverOrigin: Origin? { get }
}

extension RequestModifier {
    /// `nil`: this modifier names no server of its own.
    public var serverOrigin: Origin? { nil }

    /// Runs ``modify(_:)``, then the rest of the chain.
    ///
    /// - Parameters:
    ///   - request: The request to change.
    ///   - next: The rest of the chain.
    /// - Returns: The response of the rest of the chain.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/modifierFailed`` naming the
    ///   modifier, `CancellationError`, or what the rest of the chain threw.
    public func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        try await apply(to: &request)
        return try await next(request)
    }

    /// Runs ``modify(_:)``, naming this modifier in what it throws.
    func apply(to request: inout OutgoingRequest) async throws {
        do {
            try await modify(&request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw RequestError(.modifierFailed, request: request, detail: "\(type(of: self))", underlyingError: error)
        }
    }
}

// MARK: - ModifyRequest

/// A ``RequestModifier`` made from a closure.
///
/// ```swift
/// let session = Session(modifiers: [
///     ModifyRequest { request in
///         request.headers.update(name: "Authorization", value: try await tokens.current())
///     },
/// ])
/// ```
public struct ModifyRequest: RequestModifier {
    private let body: @Sendable (inout OutgoingRequest) async throws -> Void

    /// Creates a modifier from a closure that may throw and may suspend.
    ///
    /// - Parameter body: Changes the request in place.
    public init(_ body: @escaping @Sendable (inout OutgoingRequest) async throws -> Void) {
        self.body = body
    }

    /// Runs the closure.
    ///
    /// - Parameter request: The request to change.
    /// - Throws: Whatever the closure throws.
    public func modify(_ request: inout OutgoingRequest) async throws {
        try await body(&request)
    }
}
