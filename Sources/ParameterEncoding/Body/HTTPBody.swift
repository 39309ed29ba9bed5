import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - HTTPBody

/// A request body as a value: the bytes to send and the headers that describe them.
///
/// ```swift
/// let request = try JSONBody(User(name: "Arthur")).applied(to: URLRequest(url: url, method: .post))
/// // or, with the Requests module:
/// try await session.request(url, method: .post, body: FormBody(["greeting": "Hello, "]))
/// ```
///
/// Bodies in this module: ``EmptyBody``, ``DataBody``, ``JSONBody``, ``FormBody``, ``MultipartFormBody``.
public protocol HTTPBody: Sendable {
    /// Whether there is nothing to send; an empty body leaves the request untouched.
    var isEmpty: Bool { get }
    /// Headers the body needs, such as its `Content-Type`; a request's own headers win.
    var additionalHeaders: HTTPHeaders { get }

    /// Returns the bytes to send.
    ///
    /// - Returns: The body.
    /// - Throws: Whatever encoding the body fails with, e.g. ``ParameterEncodingError`` or an
    ///   `EncodingError` naming the coding path.
    func encode() throws -> Data

    /// Returns the bytes to send together with the headers that describe them.
    ///
    /// The default returns ``encode()`` and ``additionalHeaders``. A body whose headers depend
    /// on its bytes, such as a multipart boundary chosen to avoid the content, returns both at once.
    ///
    /// - Returns: The body and its headers.
    /// - Throws: What ``encode()`` throws.
    func encodedWithHeaders() throws -> (body: Data, headers: HTTPHeaders)
}

extension HTTPBody {
    /// A body is not empty unless it says so.
    public var isEmpty: Bool { false }
    /// No headers unless the body names some.
    public var additionalHeaders: HTTPHeaders { HTTPHeaders() }

    /// ``encode()`` and ``additionalHeaders``.
    ///
    /// - Returns: The body and its headers.
    /// - Throws: What ``encode()`` throws.
    public func encodedWithHeaders() throws -> (body: Data, headers: HTTPHeaders) {
        (try encode(), additionalHeaders)
    }

    /// Returns `request` with this body and, where the request does not set them already, the
    /// body's ``additionalHeaders``. An empty body returns the request unchanged.
    ///
    /// - Parameter request: The request to carry the body.
    /// - Returns: The request with the body.
    /// - Throws: What ``encode()`` throws, or ``ParameterEncodingError`` with code
    ///   ``ParameterEncodingError/Code/invalidHeader`` for a header HTTP does not allow.
    public func applied(to request: consuming URLRequest) throws -> URLRequest {
        var request = request
        try apply(to: &request)
        return request
    }

    /// Puts this body into `target`, with the body's ``additionalHeaders`` where the target does
    /// not set them already: ``applied(to:)`` for any ``EncodingTarget``. An empty body changes
    /// nothing.
    ///
    /// - Parameter target: The request to carry the body.
    /// - Throws: What ``encode()`` throws, or ``ParameterEncodingError`` with code
    ///   ``ParameterEncodingError/Code/invalidHeader`` for a header HTTP does not allow.
    public func apply<Target: EncodingTarget>(to target: inout Target) throws {
        guard !isEmpty else { return }
        let (data, headers) = try encodedWithHeaders()
        try headers.validate()
        target.setBody(data, addingMissing: headers)
    }
}

// MARK: - EmptyBody

/// No body at all: the request is sent without one, and without a `Content-Type`.
public struct EmptyBody: HTTPBody {
    /// Creates an empty body.
    public init() {}

    /// Always `true`.
    public var isEmpty: Bool { true }

    /// Returns no bytes.
    ///
    /// - Returns: Empty data.
    public func encode() -> Data { Data() }
}

// MARK: - DataBody

/// Bytes sent as they are, with whatever headers the caller gives.
///
/// ```swift
/// DataBody(pngData, additionalHeaders: ["Content-Type": "image/png"])
/// ```
public struct DataBody: HTTPBody {
    /// The bytes to send.
    public let data: Data
    /// Headers sent with the bytes, such as their `Content-Type`.
    public let additionalHeaders: HTTPHeaders

    /// Creates a body from bytes.
    ///
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - additionalHeaders: Headers for them; none by default (URLSession then sends none).
    public init(_ data: Data, additionalHeaders: HTTPHeaders = HTTPHeaders()) {
        self.data = data
        self.additionalHeaders = additionalHeaders
    }

    /// Whether `data` is empty.
    public var isEmpty: Bool { data.isEmpty }

    /// Returns ``data``.
    ///
    /// - Returns: The bytes.
    public func encode() -> Data { data }
}
