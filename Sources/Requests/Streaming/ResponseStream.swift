import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ResponseStream

/// A response whose head has arrived and whose body is still streaming.
///
/// ```swift
/// let stream = try await session.stream("https://example.com/events").validate()
/// for try await event in stream.body.events {
///     print(event.type, event.data)
/// }
/// ```
///
/// Read ``body`` once, as chunks, ``ResponseBody/lines`` or ``ResponseBody/events``; or
/// ``collect(upTo:)`` it into a ``Response``. Dropping an unread stream cancels the transfer.
public struct ResponseStream: Sendable {
    /// The response as far as it came: status, headers, the request as sent and the redirects;
    /// its ``Response/data`` is empty (the body is ``body``). Its ``Response/head`` is the
    /// ``ResponseHead`` alone.
    public let response: Response
    /// The body, as it arrives.
    public let body: ResponseBody

    /// Creates a stream; transports and tests use this.
    ///
    /// - Parameters:
    ///   - response: The response, with an empty body.
    ///   - body: The body.
    public init(response: Response, body: ResponseBody) {
        self.response = response
        self.body = body
    }

    /// The HTTP status code, e.g. `200`.
    public var statusCode: Int { response.statusCode }
    /// The response headers; lookups ignore case.
    public var headers: HTTPHeaders { response.headers }
    /// The media type from `Content-Type`, lowercased and without parameters.
    public var mimeType: String? { response.mimeType }
    /// The final URL, after redirects.
    public var url: URL? { response.url }
    /// The length `Content-Length` announces, when it does.
    public var expectedLength: Int64? {
        response.headers.value(for: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Returns the stream when its status code and content type are acceptable, before any of the
    /// body is read.
    ///
    /// When they are not, the first 64 KiB of the body (an error document, usually) are read into
    /// the error's response, and the rest of the transfer is cancelled.
    ///
    /// - Parameters:
    ///   - statusCodes: The acceptable status codes; `200..<300` by default.
    ///   - contentTypes: Acceptable media types, such as `text/event-stream`; `nil` accepts any.
    /// - Returns: `self`, so calls chain.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/unacceptableStatusCode`` or
    ///   ``RequestError/Code/unacceptableContentType``, keeping the head and the start of the body.
    @discardableResult
    public func validate(
        statusCodes: some Sequence<Int> = 200..<300,
        contentTypes: [String]? = nil
    ) async throws -> ResponseStream {
        if statusCodes.contains(statusCode) {
            guard let contentTypes else { return self }
            if let contentType = response.contentType, contentTypes.contains(where: contentType.matches) {
                return self
            }
            if response.contentType == nil, expectedLength == 0 { return self }
        }
        let preview = await withBodyPrefix(64 << 10)
        try preview.validate(statusCodes: statusCodes, contentTypes: contentTypes)
        return self
    }

    /// Reads the whole body into a ``Response``.
    ///
    /// - Parameter limit: The most bytes to accept; 64 MiB unless given.
    /// - Returns: The response, with its body.
    /// - Throws: ``RequestError`` (``RequestError/Code/bodyTooLarge``, ``RequestError/Code/streamFailed``),
    ///   or `CancellationError`.
    public func collect(upTo limit: Int = 64 << 20) async throws -> Response {
        let data: Data
        do {
            data = try await body.collect(upTo: limit)
        } catch let error as RequestError where error.code == .bodyTooLarge {
            throw RequestError(.bodyTooLarge, request: response.request, detail: error.detail)
        }
        return response.with(data: data)
    }

    /// Cancels the transfer.
    public func cancel() {
        body.cancel()
    }

    /// The head with the first `limit` bytes of the body, for an error; the rest is cancelled.
    func withBodyPrefix(_ limit: Int) async -> Response {
        var data = Data()
        var chunks = body.makeAsyncIterator()
        while data.count < limit, let chunk = try? await chunks.next() {
            data.append(chunk.prefix(limit - data.count))
        }
        body.cancel()
        return response.with(data: data)
    }
}

extension Response {
    /// This response with another body, keeping everything else.
    func with(data: Data) -> Response {
        var copy = Response(request: outgoingRequest, head: head, data: data, start: start, duration: .now - start)
        copy.failedAttempts = failedAttempts
        copy.redirects = redirects
        copy.cookies = cookies
        copy.fileURL = fileURL
        copy.cacheStatus = cacheStatus
        return copy
    }
}
