#if AsyncHTTPClient
import Foundation
import Requests
import RequestsAsyncHTTPClient
import TransportContract

// MARK: - withSession

/// Runs `body` with a session over a new ``AsyncHTTPClientTransport``, then shuts the
/// transport (and so its clients) down, whether `body` threw or not: AsyncHTTPClient
/// traps in debug builds when a running client is dropped.
///
/// - Parameters:
///   - configuration: The transport's configuration.
///   - body: What to do with the session.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw, else the error of the shutdown.
func withSession<T>(
    _ configuration: AsyncHTTPClientTransport.Configuration,
    _ body: (Session) async throws -> T
) async throws -> T {
    // Shutting the transport down is what the session's shutdown does.
    try await withShutdown(AsyncHTTPClientTransport(configuration: configuration)) { transport in
        try await body(Session(transport: transport))
    }
}
#endif
