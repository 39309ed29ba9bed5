import Foundation

// MARK: - StaleConnection

/// The one resend a transport makes on its own: a request that failed before any byte of its
/// answer on a connection the server had already closed (its keep-alive ran out while the
/// connection waited in the pool), sent again on a new one, as browsers do.
///
/// Every built-in transport asks ``mayResend(_:after:resent:)``, so the rule and its limit are
/// one: the body must be one that can be sent again; a failure the server never processed (an
/// HTTP/2 stream refused, a stream made after `GOAWAY`) goes again whatever the method; a
/// connection lost goes again only under a method ``RetryPolicy/idempotentMethods`` lists
/// (RFC 9110, 9.2.2), since the server may have acted on it. Any other failure is the session's
/// retry policy's to judge.
public enum StaleConnection {
    /// How the request failed on the stale connection.
    public enum Failure: Sendable, Hashable {
        /// The server never processed the request: an HTTP/2 stream refused, or made after the
        /// connection's `GOAWAY`.
        case unprocessed
        /// The connection closed under the request, which went out on a connection idle in the
        /// pool: the server may have processed it.
        case lost
    }

    /// How many times a request is sent again: twice, because a pool that has not yet heard that
    /// a connection closed may hand the same one to the request sent again.
    public static let resendLimit = 2

    /// Whether a request that failed before its head may be sent again on a new connection.
    ///
    /// - Parameters:
    ///   - request: The request as the transport received it.
    ///   - failure: How it failed.
    ///   - resent: How many times it was sent again already.
    /// - Returns: Whether to send it once more.
    public static func mayResend(_ request: TransportRequest, after failure: Failure, resent: Int) -> Bool {
        guard resent < resendLimit, request.body.isReplayable, !request.handle.isCancelled else { return false }
        switch failure {
        case .unprocessed: return true
        case .lost: return RetryPolicy.idempotentMethods.contains(request.method)
        }
    }
}
