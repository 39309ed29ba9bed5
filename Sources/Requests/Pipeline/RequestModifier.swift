import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RequestModifier

/// A step that changes a request just before it is sent: add auth, fill in a server, sign, log.
///
/// A ``Session`` runs its modifiers in order, each on the previous one's output.
public protocol RequestModifier: Sendable {
    /// Changes the request.
    ///
    /// - Parameter request: The request so far; change it in place.
    /// - Throws: Any error; the session wraps it in ``RequestError`` with code
    ///   ``RequestError/Code/modifierFailed`` and does not send the request.
    func modify(_ request: inout URLRequest) async throws
}

// MARK: - ModifyRequest

/// A ``RequestModifier`` made from a closure.
///
/// ```swift
/// let session = Session(modifiers: [
///     ModifyRequest { request in
///         request.setValue(try await tokens.current(), forHTTPHeaderField: "Authorization")
///     },
/// ])
/// ```
public struct ModifyRequest: RequestModifier {
    private let body: @Sendable (inout URLRequest) async throws -> Void

    /// Creates a modifier from a closure that may throw and may suspend.
    ///
    /// - Parameter body: Changes the request in place.
    public init(_ body: @escaping @Sendable (inout URLRequest) async throws -> Void) {
        self.body = body
    }

    /// Runs the closure.
    ///
    /// - Parameter request: The request to change.
    /// - Throws: Whatever the closure throws.
    public func modify(_ request: inout URLRequest) async throws {
        try await body(&request)
    }
}
