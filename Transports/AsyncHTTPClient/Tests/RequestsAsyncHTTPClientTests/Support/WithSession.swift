import Foundation
import Requests
import RequestsAsyncHTTPClient

// MARK: - withSession

/// Runs `body` with a session over a new ``AsyncHTTPClientTransport``, then shuts the session
/// (and so the transport and its clients) down, whether `body` threw or not: AsyncHTTPClient
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
    let session = Session(transport: AsyncHTTPClientTransport(configuration: configuration))
    let result: T
    do {
        result = try await body(session)
    } catch {
        try? await session.shutdown()
        throw error
    }
    try await session.shutdown()
    return result
}
