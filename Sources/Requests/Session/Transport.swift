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

    /// Sends a request whose body is the content of a file, and reports progress while it is sent.
    ///
    /// The default reads the file into memory and calls ``send(_:)``, reporting progress once, at
    /// the end. ``URLSessionTransport`` streams the file from disk instead.
    ///
    /// - Parameters:
    ///   - request: The request, fully built, without a body.
    ///   - fileURL: The file whose bytes are the body.
    ///   - progress: Called with the bytes sent so far and the total.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: As ``send(_:)``, or the error of reading the file.
    func upload(
        _ request: URLRequest,
        fromFile fileURL: URL,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse)

    /// Sends a request and returns once the response head has arrived, with the body as it streams.
    ///
    /// The default calls ``send(_:)`` and delivers the whole body as one chunk.
    /// ``URLSessionTransport`` streams it, holding the network back while the reader is behind.
    ///
    /// - Parameter request: The request, fully built.
    /// - Returns: The response head and the body, which must be read or cancelled.
    /// - Throws: As ``send(_:)``, for failures before the head arrived.
    func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, ResponseBody)
}

extension Transport {
    /// Reads the file into the request's body and sends it with ``send(_:)``.
    ///
    /// - Parameters:
    ///   - request: The request, without a body.
    ///   - fileURL: The file whose bytes are the body.
    ///   - progress: Called once the response has arrived, with the file's size twice.
    /// - Returns: The body and the `HTTPURLResponse`.
    /// - Throws: As ``send(_:)``, or the error of reading the file.
    public func upload(
        _ request: URLRequest,
        fromFile fileURL: URL,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        let body = try Data(contentsOf: fileURL)
        request.httpBody = body
        let result = try await send(request)
        progress(Int64(body.count), Int64(body.count))
        return result
    }

    /// Sends the request with ``send(_:)`` and delivers the whole body as one chunk.
    ///
    /// - Parameter request: The request, fully built.
    /// - Returns: The response head and the body.
    /// - Throws: As ``send(_:)``.
    public func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, ResponseBody) {
        let (data, response) = try await send(request)
        return (response, ResponseBody(data))
    }
}
