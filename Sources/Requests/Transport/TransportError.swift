import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - TransportError

/// A transport's failure, classified the same way for every engine, with the engine's own error
/// kept beneath.
///
/// ``RequestError/transportErrorKind`` and ``RetryPolicy`` read only the ``kind``, so that a retry
/// policy written once works over `URLSession`, AsyncHTTPClient or a stub:
///
/// ```swift
/// throw TransportError(.connectionLost, detail: "reset by peer", underlyingError: nioError)
/// ```
public struct TransportError: Error, CustomStringConvertible {
    /// What happened, in words every engine can state.
    public let kind: Kind
    /// What the transport adds, such as the host or the TLS reason; may be empty.
    public let detail: String
    /// The engine's own error.
    public let underlyingError: (any Error)?

    /// Creates a classified failure.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - detail: Words of the transport's own; empty by default.
    ///   - underlyingError: The engine's error.
    public init(_ kind: Kind, detail: String = "", underlyingError: (any Error)? = nil) {
        self.kind = kind
        self.detail = detail
        self.underlyingError = underlyingError
    }

    /// The kind, the detail and the engine's error in one sentence.
    public var description: String {
        var text = kind.description
        if !detail.isEmpty { text += ": " + detail }
        if let underlyingError { text += " (\(RequestError.describe(underlyingError)))" }
        return text
    }

    /// Classifies any error a transport threw: a ``TransportError`` keeps its kind, a `URLError`
    /// is read by its code (and libcurl's words), cancellation is ``Kind/cancelled``, anything
    /// else ``Kind/other``.
    ///
    /// - Parameter error: The error.
    /// - Returns: Its kind.
    public static func kind(of error: any Error) -> Kind {
        switch error {
        case let error as TransportError: error.kind
        case let error as URLError: Kind(error)
        case is CancellationError: .cancelled
        default: .other
        }
    }

    /// The engine's error beneath a ``TransportError``, or the error itself.
    static func engineError(_ error: any Error) -> any Error {
        (error as? TransportError)?.underlyingError ?? error
    }
}

// MARK: - Kind

extension TransportError {
    /// What a transport failure was, in words every engine can state.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name, such as `connectionLost`.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// No connection could be made: refused, unreachable, or no network.
        public static let cannotConnect = Kind("cannotConnect")
        /// The connection broke (reset, closed early, a reused connection gone) before the
        /// response was complete.
        public static let connectionLost = Kind("connectionLost")
        /// The host name could not be resolved.
        public static let dnsFailed = Kind("dnsFailed")
        /// The engine gave up waiting.
        public static let timedOut = Kind("timedOut")
        /// The TLS handshake failed: untrusted or expired certificate, wrong host name, a pin
        /// that did not match.
        public static let tls = Kind("tls")
        /// The transfer was cancelled.
        public static let cancelled = Kind("cancelled")
        /// Anything else: a malformed response, an unsupported feature, a local error.
        public static let other = Kind("other")

        /// Every kind, for tools that read a kind back from its ``description``.
        package static let all: [Kind] = [.cannotConnect, .connectionLost, .dnsFailed, .timedOut, .tls, .cancelled, .other]

        /// The kind of a `URLError`, by its code and, for FoundationNetworking's catch-all
        /// `unknown`, by libcurl's words.
        ///
        /// - Parameter error: The error.
        public init(_ error: URLError) {
            switch error.code {
            case .cannotConnectToHost, .notConnectedToInternet, .internationalRoamingOff, .callIsActive,
                 .dataNotAllowed, .resourceUnavailable:
                self = .cannotConnect
            case .networkConnectionLost:
                self = .connectionLost
            case .cannotFindHost, .dnsLookupFailed:
                self = .dnsFailed
            case .timedOut:
                self = .timedOut
            case .secureConnectionFailed where Self.fromLibcurl(error) == .connectionLost:
                self = .connectionLost
            case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
                 .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
                 .clientCertificateRequired:
                self = .tls
            case .cancelled:
                self = .cancelled
            default:
                self = Self.fromLibcurl(error) ?? .other
            }
        }

        /// libcurl's words for failures that FoundationNetworking files under `unknown` or
        /// `badServerResponse`.
        private static func fromLibcurl(_ error: URLError) -> Kind? {
            let text = (error.userInfo[NSLocalizedDescriptionKey] as? String ?? "").lowercased()
            guard !text.isEmpty else { return nil }
            // A connection lost under TLS ("OpenSSL SSL_read: Connection reset by peer",
            // "unexpected eof while reading") is a lost connection, not a TLS failure: test it first.
            let lost = ["empty reply from server", "was not closed cleanly", "connection reset", "recv failure", "transfer closed",
                        "send failure", "connection died", "stream error", "http/2 stream", "unexpected eof"]
            if lost.contains(where: text.contains) {
                return .connectionLost
            }
            let tls = ["certificate", "issuer", "handshake", "ssl_connect", "tls alert", "ssl peer", "self signed", "self-signed"]
            if tls.contains(where: text.contains) {
                return .tls
            }
            if text.contains("could not resolve") {
                return .dnsFailed
            }
            if text.contains("couldn't connect") || text.contains("connection refused") {
                return .cannotConnect
            }
            return nil
        }
    }
}
