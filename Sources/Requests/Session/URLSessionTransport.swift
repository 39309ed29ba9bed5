import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLSessionTransport

/// A ``Transport`` backed by `URLSession`, on Apple platforms and on Linux (FoundationNetworking).
///
/// It uses `URLSession.data(for:)`, which cancels its `URLSessionTask` when the calling task is
/// cancelled. Redirects are followed as the session's configuration says.
public struct URLSessionTransport: Transport {
    /// The session that carries the requests.
    public let session: URLSession

    /// Creates a transport with its own `URLSession`.
    ///
    /// - Parameter configuration: The session configuration; `.default` unless given.
    public init(configuration: URLSessionConfiguration = .default) {
        self.session = URLSession(configuration: configuration)
    }

    /// Creates a transport over an existing session.
    ///
    /// - Parameter session: The session to use.
    public init(session: URLSession) {
        self.session = session
    }

    /// Sends a request with `URLSession.data(for:)`.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: The session's `URLError`; `URLError(.badServerResponse)` for a response that is not HTTP.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let httpResponse = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "the response is not HTTP"])
        }
        return (data, httpResponse)
    }
}
