import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - RecordedRequest

/// One request as a test double received it: the request value and the whole body.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The request as the pipeline built it: method, target, header fields in order, options.
    public let request: OutgoingRequest
    /// The whole body: the bytes, the file's contents, or every chunk of a streamed body.
    public let body: Data

    /// The method.
    public var method: HTTPMethod { request.method }
    /// The URL.
    public var url: URL { request.url }
    /// The header fields in the order they were sent; a name may repeat.
    public var headers: HTTPHeaders { request.headers }
    /// The request as a `URLRequest`, made when asked for (repeated fields joined; its
    /// `httpBody` is `nil` for a file or stream body).
    public var urlRequest: URLRequest { request.unvalidatedURLRequest() }

    /// Records a request that is already whole.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The body's bytes.
    public init(_ request: OutgoingRequest, body: Data) {
        self.request = request
        self.body = body
    }

    /// Records a request described by a `URLRequest`.
    ///
    /// - Parameters:
    ///   - urlRequest: The method, URL and headers (taken sorted by name: a `URLRequest` keeps
    ///     no order).
    ///   - body: The body's bytes.
    /// - Throws: `URLError(.badURL)` when the request has no URL.
    public init(_ urlRequest: URLRequest, body: Data) throws {
        guard urlRequest.url != nil, let request = try? OutgoingRequest(urlRequest) else { throw URLError(.badURL) }
        self.init(request, body: body)
    }

    /// Reads a transport request's body whole, as sending it would, reporting progress.
    ///
    /// Reading stops with `CancellationError` when the calling task or the request's handle is
    /// cancelled (a timeout of the session's), so an upload that never ends cannot outlast them.
    ///
    /// - Parameter request: The request a transport received.
    /// - Throws: The body's error (a file that cannot be read, a stream that failed),
    ///   `CancellationError`, or `URLError(.badURL)` when the request has no URL.
    public init(reading request: TransportRequest) async throws {
        let body = request.body
        let progress = request.progress
        let reader = Task {
            var data = Data()
            let chunks = body.chunks()
            while let chunk = try await chunks.next() {
                try Task.checkCancellation()
                data.append(chunk)
                progress?(Int64(data.count), body.length)
            }
            if data.isEmpty { progress?(0, body.length) }
            return data
        }
        request.handle.onCancel { reader.cancel() }
        let data = try await withTaskCancellationHandler {
            try await reader.value
        } onCancel: {
            reader.cancel()
        }
        self.init(request.request, body: data)
    }

    /// The query items, in the order of the URL.
    public var queryItems: [URLQueryItem] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    /// The body as UTF-8 text (invalid bytes become U+FFFD).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The method and the URL, as a log line starts.
    public var description: String { "\(method.rawValue) \(url.absoluteString)" }
}
