import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Transport

/// The engine that moves one request over the network: it sends the request and its body, and
/// returns the response head as soon as it arrives, with the body still streaming.
///
/// ``URLSessionTransport`` is the default; conform your own type to plug in another engine, or an
/// in-memory one for tests. Everything else (redirects, cookies, authentication, retries, every
/// timeout) is the ``Session``'s pipeline, the same for every engine. A conforming transport:
///
/// - returns a 3xx response as it is, without following its `Location`;
/// - stores no cookies and adds no `Cookie` header of its own;
/// - answers no authentication challenge: a 401 or 407 is returned as a response;
/// - retries nothing, except a request that failed on a reused idle connection before any byte
///   of its response arrived, which it may send again on a new one, as browsers do, as far as
///   ``StaleConnection/mayResend(_:after:resent:)`` allows;
/// - enforces no timeout of its own that could fire before the session's (the session bounds the
///   wait for the head and every silence of the body, and cancels the transfer when one passes);
/// - stops the transfer at once when the calling task is cancelled, when the request's
///   ``TransportRequest/handle`` is cancelled (a timeout of the session's), and when the returned
///   body is cancelled, dropped, or read no further;
/// - says in ``behavior`` whether it decodes `Content-Encoding` and which headers it adds.
///
/// Errors are classified with ``TransportError``: throw one whose ``TransportError/kind`` says
/// what happened, with the engine's own error as ``TransportError/underlyingError``. Before the
/// head, throw from ``send(_:)``; after it, from the body's ``ResponseBodySource/next()``. A
/// `URLError` or `CancellationError` thrown as it is is classified for you.
public protocol Transport: Sendable {
    /// What the engine does to requests and responses on its own.
    var behavior: TransportBehavior { get }

    /// Sends a request and returns once the response head has arrived.
    ///
    /// - Parameter request: The request as the pipeline built it, and its body.
    /// - Returns: The response head and the body, which the caller reads, cancels or drops.
    /// - Throws: ``TransportError`` (or a `URLError`) for a failure before the head arrived;
    ///   `CancellationError` when the calling task was cancelled.
    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody)

    /// Closes connections and releases the engine's resources; ``Session/shutdown()`` calls it.
    ///
    /// The default does nothing, for engines that need no shutdown.
    ///
    /// - Throws: The engine's error when it could not shut down cleanly.
    func shutdown() async throws
}

extension Transport {
    /// A transport that says nothing decodes no `Content-Encoding` and adds no headers.
    public var behavior: TransportBehavior { TransportBehavior() }

    /// Does nothing: this transport holds nothing that needs closing.
    public func shutdown() async throws {}
}

// MARK: - TransportRequest

/// One request as a transport receives it: the request value (method, target, header fields in
/// order, body), and how to report on it.
public struct TransportRequest: Sendable {
    /// The request: method, target, header fields in the order to send them (checked already),
    /// and the body.
    public let request: OutgoingRequest
    /// Called as the body is sent, with the bytes sent so far and the body's length when known.
    /// A transport calls it at least once, when the whole body has been sent.
    public let progress: (@Sendable (_ sent: Int64, _ total: Int64?) -> Void)?
    /// Cancelled by the session when one of its timeouts passes before the head arrived; the
    /// transport stops the transfer then, as on task cancellation.
    public let handle: TransferHandle
    /// Whether the caller reads the response body whole before it looks at the head (a
    /// `request` call; `stream` and `download` calls read it as it comes). A transport may then
    /// read a small body before it returns the head, and return it in memory
    /// (a ``ResponseBody`` made from `Data`), which the session takes without a wait per chunk;
    /// a silence in that body then counts as a wait for the head. A transport may ignore it.
    public let readsBodyWhole: Bool

    /// Creates a request for a transport.
    ///
    /// - Parameters:
    ///   - request: The request value.
    ///   - progress: Called as the body is sent.
    ///   - handle: The handle the session cancels; a new one by default.
    ///   - readsBodyWhole: Whether the caller reads the response body whole; `false` by default.
    public init(
        _ request: OutgoingRequest,
        progress: (@Sendable (_ sent: Int64, _ total: Int64?) -> Void)? = nil,
        handle: TransferHandle = TransferHandle(),
        readsBodyWhole: Bool = false
    ) {
        self.request = request
        self.progress = progress
        self.handle = handle
        self.readsBodyWhole = readsBodyWhole
    }

    /// The request's URL.
    public var url: URL { request.url }
    /// The request's method.
    public var method: HTTPMethod { request.method }
    /// The request's header fields, in the order to send them; a name may repeat.
    public var headers: HTTPHeaders { request.headers }
    /// The body to send.
    public var body: RequestBody { request.body }

    /// The request as a `URLRequest`, built in one go, for an engine that takes one: repeated
    /// fields joined (`Cookie` with `; `), bytes as `httpBody`, a file or stream body left to
    /// ``body``. Its `timeoutInterval` is Foundation's default and not the session's.
    public var urlRequest: URLRequest {
        request.unvalidatedURLRequest()
    }
}

// MARK: - TransportBehavior

/// What a transport does on its own, for the stages and tools that need to know it.
public struct TransportBehavior: Sendable, Hashable {
    /// Whether the transport asks for compressed bodies and decodes `Content-Encoding` itself, so
    /// that the body read is not the bytes on the wire (downloads then ask for `identity`).
    public var decodesContentEncoding: Bool
    /// Headers the transport adds to every request when the request does not set them, as far as
    /// they are known in advance (for `req -v` and logs).
    public var addedHeaders: HTTPHeaders

    /// Describes a transport.
    ///
    /// - Parameters:
    ///   - decodesContentEncoding: Whether the transport decodes `Content-Encoding`.
    ///   - addedHeaders: Headers it adds where the request has none.
    public init(decodesContentEncoding: Bool = false, addedHeaders: HTTPHeaders = [:]) {
        self.decodesContentEncoding = decodesContentEncoding
        self.addedHeaders = addedHeaders
    }
}
