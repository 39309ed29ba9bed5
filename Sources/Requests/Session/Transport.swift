import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Transport

/// The engine that moves a request over the network and returns the complete response.
///
/// ``URLSessionTransport`` is the default. Conform your own type to plug in another engine, or an
/// in-memory one for tests. A transport should stop promptly and throw when its task is cancelled.
public protocol Transport: Sendable {
    /// Sends a request and returns the whole body and the response metadata.
    ///
    /// - Parameter request: The request, fully built.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: A transport error, usually a `URLError`; `CancellationError` or `URLError.cancelled`
    ///   when the task was cancelled.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}
