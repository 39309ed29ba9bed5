import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - RequestError

/// The one error type of the `Requests` module.
///
/// Every error says what failed (``code``) and carries what a person needs to debug it: the request's
/// method and URL, the response when there was one (status, headers, a preview of the body) and the
/// underlying error. Its ``description`` reads as one sentence, for logs.
///
/// Cancelling the calling `Task`, or a download, upload or body with its `cancel()`, throws
/// `CancellationError`, as everywhere in Swift concurrency; ``Code/cancelled`` is for a transfer
/// that the engine reports cancelled while nothing here asked for it (a `URLSession` invalidated
/// under the session, say).
public struct RequestError: Error, CustomStringConvertible, LocalizedError {
    /// What failed.
    public let code: Code
    /// The request's method, when a request had been built.
    public let method: HTTPMethod?
    /// The request's URL, when it had one.
    public let url: URL?
    /// The response, for status, content-type and decoding failures.
    public let response: Response?
    /// More about the failure, such as the refused status or the type that failed to decode.
    public let detail: String
    /// The error that caused this one: a `ParameterEncodingError`, `DecodingError`, or the
    /// transport engine's own error (a `URLError`, a NIO error…).
    public let underlyingError: (any Error)?
    /// For a failure of the transport (``Code/transportFailed``, ``Code/timedOut``,
    /// ``Code/streamFailed``), what kind it was, the same words for every engine; `nil` otherwise.
    public let transportErrorKind: TransportError.Kind?
    /// The tries that failed when a ``RetryPolicy`` sent the request more than once, the last one
    /// included; the response's, for an error about a response. Empty without retries.
    public internal(set) var failedAttempts: [FailedAttempt]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What failed.
    ///   - request: The request involved, if one was built.
    ///   - response: The response involved, if one arrived.
    ///   - detail: More about the failure.
    ///   - underlyingError: The error that caused this one.
    ///   - transportErrorKind: For a transport failure, its kind.
    public init(
        _ code: Code,
        request: URLRequest? = nil,
        response: Response? = nil,
        detail: String = "",
        underlyingError: (any Error)? = nil,
        transportErrorKind: TransportError.Kind? = nil
    ) {
        let method = request?.method ?? (request == nil ? response?.outgoingRequest.method : nil)
        let url = request?.url ?? (request == nil ? response?.outgoingRequest.url : nil)
        self.init(code, method: method, url: url, response: response, detail: detail, underlyingError: underlyingError,
                  transportErrorKind: transportErrorKind)
    }

    /// Creates an error about a request value.
    ///
    /// - Parameters:
    ///   - code: What failed.
    ///   - request: The request involved.
    ///   - response: The response involved, if one arrived.
    ///   - detail: More about the failure.
    ///   - underlyingError: The error that caused this one.
    ///   - transportErrorKind: For a transport failure, its kind.
    public init(
        _ code: Code,
        request: OutgoingRequest,
        response: Response? = nil,
        detail: String = "",
        underlyingError: (any Error)? = nil,
        transportErrorKind: TransportError.Kind? = nil
    ) {
        self.init(code, method: request.method, url: request.url, response: response, detail: detail,
                  underlyingError: underlyingError, transportErrorKind: transportErrorKind)
    }

    /// Creates an error naming a request by its method and URL, for a request that could not be
    /// built.
    package init(
        _ code: Code,
        method: HTTPMethod?,
        url: URL?,
        response: Response? = nil,
        detail: String = "",
        underlyingError: (any Error)? = nil,
        transportErrorKind: TransportError.Kind? = nil
    ) {
        self.transportErrorKind = transportErrorKind
        self.code = code
        self.method = method
        self.url = url
        self.response = response
        self.detail = detail
        self.underlyingError = underlyingError
        self.failedAttempts = response?.failedAttempts ?? []
    }

    /// The response's status code, when there was a response.
    public var statusCode: Int? { response?.statusCode }

    /// The ``description``, so that `localizedDescription` reads as the same sentence.
    public var errorDescription: String? { description }

    /// At most ``bodyPreviewLimit`` bytes of the response body as text, marked with `…` when cut.
    public var bodyPreview: String? {
        guard let data = response?.data, !data.isEmpty else { return nil }
        return Self.preview(of: data)
    }

    /// How many bytes of a response body ``bodyPreview`` shows.
    public static let bodyPreviewLimit = 1024

    /// A readable sentence: what failed, for which request, and why.
    ///
    /// For example `Unacceptable status code 404 for GET http://127.0.0.1:8080/status/404: expected 200..<300; body: "status 404"`.
    public var description: String {
        var text = code.summary
        if let statusCode, code == .unacceptableStatusCode {
            text += " \(statusCode)"
        }
        if let url {
            text += " for "
            if let method {
                text += method.rawValue + " "
            }
            text += url.absoluteString
        }
        if !detail.isEmpty {
            text += ": " + detail
        }
        // A decoding failure's detail already says what the decoder found, in one sentence: the
        // decoder's own dump of it is not repeated (it stays in `underlyingError`).
        if let underlyingError, !(code == .decodingFailed && underlyingError is DecodingError) {
            // An error that only carries the cause over (the encoder's invalid URL, say) says
            // nothing its detail does not: it is not repeated.
            let cause = Self.describe(underlyingError)
            if cause != detail, !cause.hasSuffix(": " + detail) || detail.isEmpty {
                text += " (\(cause))"
            }
        }
        if !failedAttempts.isEmpty {
            text += "; " + FailedAttempt.summary(failedAttempts)
        }
        if let data = response?.data, !data.isEmpty, code != .transportFailed {
            text += "; body: " + HTTPToken.quoted(Self.preview(of: data, limit: Self.descriptionPreviewLimit))
        }
        return text
    }

    /// How many bytes of the body ``description`` quotes: a log line's worth (``bodyPreview``
    /// keeps more).
    static let descriptionPreviewLimit = 200

    static func preview(of data: Data, limit: Int = bodyPreviewLimit) -> String {
        guard data.count > limit else {
            return String(decoding: data, as: UTF8.self)
        }
        var end = data.startIndex + limit
        // Do not cut a UTF-8 sequence in half: back up over continuation bytes.
        while end > data.startIndex, data[end] & 0xC0 == 0x80 {
            end -= 1
        }
        return String(decoding: data[data.startIndex..<end], as: UTF8.self) + "…"
    }
}

// MARK: - Code

extension RequestError {
    /// The kinds of ``RequestError``. New kinds may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The name of the code, e.g. `invalidURL`.
        public let description: String
        /// The first words of an error's description.
        let summary: String

        private init(_ name: String, summary: String) {
            self.description = name
            self.summary = summary
        }

        /// The URL could not be parsed or built; ``RequestError/detail`` shows it.
        public static let invalidURL = Code("invalidURL", summary: "Invalid URL")
        /// Parameters, method or headers could not be put into the request; the underlying error is a
        /// `ParameterEncodingError` naming the key path or header.
        public static let encodingFailed = Code("encodingFailed", summary: "Could not encode the request")
        /// A request modifier threw; ``RequestError/detail`` names the modifier.
        public static let modifierFailed = Code("modifierFailed", summary: "A request modifier failed")
        /// An ``Interceptor`` threw an error of its own; ``RequestError/detail`` names the interceptor.
        public static let interceptorFailed = Code("interceptorFailed", summary: "An interceptor failed")
        /// Credentials could not be attached: they are invalid, or refreshing a token failed;
        /// ``RequestError/detail`` says which and the underlying error why.
        public static let authenticationFailed = Code("authenticationFailed", summary: "Authentication failed")
        /// The transfer failed (connection refused or dropped, DNS, TLS…); the underlying error is
        /// usually a `URLError`.
        public static let transportFailed = Code("transportFailed", summary: "Transport failed")
        /// ``Response/validate(statusCodes:contentTypes:)`` refused the status code.
        public static let unacceptableStatusCode = Code("unacceptableStatusCode", summary: "Unacceptable status code")
        /// ``Response/validate(statusCodes:contentTypes:)`` refused the response's `Content-Type`.
        public static let unacceptableContentType = Code("unacceptableContentType", summary: "Unacceptable content type")
        /// The body could not be decoded; the underlying error is the decoder's, and the response is kept.
        public static let decodingFailed = Code("decodingFailed", summary: "Decoding failed")
        /// No complete response arrived within the request's timeout.
        public static let timedOut = Code("timedOut", summary: "Timed out")
        /// The transfer was cancelled by something other than the calling task.
        public static let cancelled = Code("cancelled", summary: "Cancelled")
        /// A streamed body broke off: the connection failed or timed out after the response head
        /// had arrived; the underlying error says why.
        public static let streamFailed = Code("streamFailed", summary: "The response stream failed")
        /// A body, line or event was longer than the limit the caller allowed; ``RequestError/detail``
        /// gives the limit.
        public static let bodyTooLarge = Code("bodyTooLarge", summary: "Response body too large")
        /// A redirect was refused: a loop, a downgrade from https to http, or a `Location` that is not
        /// an http(s) URL; ``RequestError/detail`` lists the chain of URLs.
        public static let redirectRefused = Code("redirectRefused", summary: "Redirect refused")
        /// More redirects than the ``RedirectPolicy`` allows; ``RequestError/detail`` lists the chain.
        public static let tooManyRedirects = Code("tooManyRedirects", summary: "Too many redirects")
        /// A download could not be written to disk; the underlying error is the file system's.
        public static let fileFailed = Code("fileFailed", summary: "Could not write the download")
        /// The session was shut down (``Session/shutdown()``) before the call.
        public static let sessionShutDown = Code("sessionShutDown", summary: "The session is shut down")
        /// A ``CircuitBreaker`` failed the call at once, without a request: its origin's circuit is
        /// open (or half-open, with its one probe under way); ``RequestError/detail`` names the
        /// origin, why the circuit opened and when it probes.
        public static let circuitOpen = Code("circuitOpen", summary: "The circuit is open")
        /// A blocking call was made from inside Swift concurrency, where waiting could deadlock.
        public static let blockingCallInTask = Code("blockingCallInTask", summary: "Blocking call made inside a task")
    }
}
