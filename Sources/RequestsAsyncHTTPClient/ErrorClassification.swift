#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import Requests

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Classification

extension AsyncHTTPClientTransport {
    /// Classifies an error of AsyncHTTPClient, SwiftNIO or NIOSSL the way the transport contract
    /// does, keeping the engine's error beneath.
    ///
    /// AsyncHTTPClient's `HTTPClientError.cancelled` is ``TransportError/Kind/cancelled``, not a
    /// `CancellationError`: the transport stops its own requests without asking the engine's
    /// opinion, so an engine that reports one cancelled did it on its own (as it does to the
    /// requests under way when the transport shuts down), and the caller, whose task was not
    /// cancelled, gets a ``RequestError`` saying so. An exchange, which knows whether its request
    /// was stopped on purpose, tells a connection that closed under it from these
    /// (``classify(_:stopped:)``).
    ///
    /// - Parameter error: The engine's error.
    /// - Returns: A ``TransportError``; `CancellationError` stays what it is.
    public static func classify(_ error: any Error) -> any Error {
        switch error {
        case is CancellationError, is TransportError:
            return error
        default:
            let (kind, detail) = kindAndDetail(of: error)
            return TransportError(kind, detail: detail, underlyingError: error)
        }
    }

    /// Classifies an engine error of one exchange, which knows what ``classify(_:)`` cannot:
    /// whether the request was stopped on purpose.
    ///
    /// AsyncHTTPClient says `HTTPClientError.cancelled` not only of requests stopped on purpose
    /// (the exchange's task cancelled, the transport shut down under it) but also of one it ends
    /// itself because the connection the pool handed it is closing: an HTTP/2 connection the
    /// server closed when idle, found closed just as the request's stream was to be opened. That
    /// one is a lost connection, which an idempotent request may be sent again after.
    ///
    /// - Parameters:
    ///   - error: The engine's error.
    ///   - stopped: Whether the request was stopped on purpose: cancelled, or its transport shut
    ///     down.
    /// - Returns: What ``classify(_:)`` returns, except a lost connection for AsyncHTTPClient's
    ///   `cancelled` of a request that was not stopped on purpose.
    static func classify(_ error: any Error, stopped: Bool) -> any Error {
        if !stopped, let engineError = error as? HTTPClientError, engineError == .cancelled {
            return TransportError(.connectionLost, detail: "the connection closed under the request", underlyingError: error)
        }
        return classify(error)
    }

    /// The kind of an engine error, and words for what it means where NIO's own are terse.
    static func kindAndDetail(of error: any Error) -> (TransportError.Kind, String) {
        switch error {
        case let error as HTTPClientError:
            return kind(of: error)
        case let error as NIOConnectionError:
            // No address at all is a name that did not resolve; otherwise every address refused.
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return (.dnsFailed, "\(error.host) could not be resolved")
            }
            if let first = error.connectionErrors.first {
                let (kind, _) = kindAndDetail(of: first.error)
                return (kind == .other ? .cannotConnect : kind, "could not connect to \(error.host):\(error.port)")
            }
            return (.cannotConnect, "could not connect to \(error.host):\(error.port)")
        case is SocketAddressError:
            return (.dnsFailed, "the host name could not be resolved")
        case let error as IOError:
            return kind(ofErrno: error.errnoCode)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return (.timedOut, "connecting took too long")
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof:
                return (.connectionLost, "the connection closed")
            default: return (.other, "")
            }
        case let error as NIOSSLError:
            if case .uncleanShutdown = error { return (.connectionLost, "the server closed TLS without a close_notify") }
            return (.tls, tlsReason(error) ?? "the TLS handshake failed")
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            // NIOSSL's own words name no host for an IP address ("Couldn't find <none>").
            return (.tls, "the server's certificate is not for this host")
        case is BoringSSLError, is NIOSSLExtraError:
            return (.tls, tlsReason(error) ?? "")
        case is PinningError:
            return (.tls, "")
        case let error as NIOHTTPDecompression.DecompressionError:
            if error == .limit { return (.other, "the decompressed body passed the decompression limit") }
            return (.other, "the body could not be decompressed")
        case let error as HTTPParserError:
            if error == .invalidEOFState { return (.connectionLost, "the connection closed before the response was complete") }
            return (.other, "the response is not valid HTTP")
        case is NIOHTTP2Errors.StreamClosed, is NIOHTTP2Errors.IOOnClosedConnection, is NIOHTTP2Errors.NoSuchStream:
            return (.connectionLost, "the HTTP/2 stream closed")
        default:
            return (.other, "")
        }
    }

    /// Words for the TLS failures a caller can act on, which BoringSSL names only in its error
    /// text: an untrusted server certificate, and a client certificate the server wants or refuses
    /// (the alerts the server sends).
    private static func tlsReason(_ error: any Error) -> String? {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the server's certificate was not accepted: not issued by a trusted root (tls.trustRoots), expired, or not yet valid"
        }
        if text.contains("TLSV1_ALERT_CERTIFICATE_REQUIRED") {
            return "the server requires a client certificate (tls.certificateChain and tls.privateKey)"
        }
        let refusals = ["TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_UNKNOWN", "TLSV1_ALERT_ACCESS_DENIED"]
        if refusals.contains(where: text.contains) {
            return "the server refused the client certificate"
        }
        return nil
    }

    private static func kind(of error: HTTPClientError) -> (TransportError.Kind, String) {
        switch error {
        case .remoteConnectionClosed: (.connectionLost, "the server closed the connection")
        case .connectTimeout, .tlsHandshakeTimeout, .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
            (.timedOut, "connecting took too long")
        case .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout: (.timedOut, "")
        case .cancelled: (.cancelled, "the engine cancelled the request, as it does when the transport shuts down under it")
        case .alreadyShutdown: (.other, "the transport was shut down")
        case .invalidProxyResponse, .proxyAuthenticationRequired: (.cannotConnect, "the proxy refused the tunnel")
        default: (.other, "")
        }
    }

    private static func kind(ofErrno code: Int32) -> (TransportError.Kind, String) {
        switch code {
        case ECONNREFUSED: (.cannotConnect, "the connection was refused")
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL: (.cannotConnect, "the host is unreachable")
        case ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN: (.connectionLost, "the connection was reset")
        case ETIMEDOUT: (.timedOut, "")
        default: (.other, "")
        }
    }
}
#endif
