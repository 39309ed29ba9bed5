#if AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Requests

// MARK: - CertificatePins

/// Public-key pins per host: the base64 SHA-256 of a server certificate's SubjectPublicKeyInfo,
/// as `openssl` prints it and as HPKP wrote it.
///
/// A connection to a pinned host succeeds only when the certificate the server presents passed
/// the usual checks (trust, dates, host name) **and** its key is one of the host's pins. A
/// mismatch fails the request as ``TransportError/Kind/tls``, naming the host, the pins tried and
/// the key the server presented; there is no fallback. A pinned host asked over plain `http`
/// fails the same way. Pin the key the server itself holds (its certificate's, not its CA's),
/// with a spare key's pin beside it for the day the key is rotated; to pin a CA instead, make it
/// the only trust root in ``AsyncHTTPClientTransport/Configuration/tls``.
///
/// ```swift
/// // openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der |
/// //     openssl dgst -sha256 -binary | base64
/// let pins = try CertificatePins([
///     "api.example.com": ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "<backup pin>"],
///     "*.cdn.example.com": ["…"],
/// ])
/// ```
///
/// A pattern `*.example.com` matches every name below `example.com` (not `example.com` itself);
/// an exact name wins over a pattern. Names are compared without case.
public struct CertificatePins: Sendable, Hashable {
    /// The pins, by lowercased host or `*.` pattern.
    public let pinsByHost: [String: Set<String>]

    /// No pins: every host is checked by trust alone.
    public init() {
        pinsByHost = [:]
    }

    /// Pins keys for hosts.
    ///
    /// - Parameter pins: The base64 SHA-256 SPKI pins of each host name or `*.` pattern.
    /// - Throws: ``PinningError`` naming the host whose pin is not the base64 of 32 bytes, or a
    ///   host with no pins (which would pin it to nothing and fail every request).
    public init(_ pins: [String: [String]]) throws {
        var byHost: [String: Set<String>] = [:]
        for (host, hostPins) in pins {
            let name = host.lowercased()
            guard !hostPins.isEmpty else {
                throw PinningError("the host \(host) has no pins: give at least one, or leave the host out")
            }
            for pin in hostPins {
                guard let bytes = Data(base64Encoded: pin), bytes.count == 32 else {
                    throw PinningError("the pin \"\(pin)\" of \(host) is not the base64 of a SHA-256 digest (32 bytes)")
                }
            }
            byHost[name, default: []].formUnion(hostPins)
        }
        pinsByHost = byHost
    }

    /// Whether no host is pinned.
    public var isEmpty: Bool { pinsByHost.isEmpty }

    /// The pattern (a name or `*.` pattern) that pins a host, if any.
    ///
    /// - Parameter host: The host name.
    /// - Returns: The key of ``pinsByHost`` that applies, the exact name first.
    public func pattern(for host: String) -> String? {
        // Most transports pin nothing: no lowercased copy and no patterns per request then.
        guard !pinsByHost.isEmpty else { return nil }
        let name = host.lowercased()
        if pinsByHost[name] != nil { return name }
        var rest = Substring(name)
        // The longest matching pattern wins: a.b.example.com tries *.b.example.com first.
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            let pattern = "*." + rest
            if pinsByHost[pattern] != nil { return pattern }
        }
        return nil
    }

    /// The pin of a certificate: the base64 SHA-256 of its SubjectPublicKeyInfo.
    ///
    /// - Parameter certificate: The certificate.
    /// - Returns: The pin.
    /// - Throws: NIOSSL's error when the certificate's key cannot be read.
    public static func pin(of certificate: NIOSSLCertificate) throws -> String {
        let spki = try certificate.extractPublicKey().toSPKIBytes()
        return Data(SHA256.hash(spki)).base64EncodedString()
    }
}

// MARK: - PinningError

/// A pin that did not match, or pins that cannot be used; a ``TransportError`` of kind
/// ``TransportError/Kind/tls`` carries it when a connection is refused.
public struct PinningError: Error, CustomStringConvertible, Sendable {
    /// What was wrong: the host, the pins tried and what the server presented.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

// MARK: - PinVerifier

/// Checks each new connection of one pinned client against its pins, after the TLS handshake and
/// before the pool hands the connection to a request.
struct PinVerifier: Sendable {
    /// The host or pattern the client serves.
    let pattern: String
    let pins: Set<String>

    /// Checks a new connection; on failure, closes it.
    ///
    /// - Parameter channel: The connection, its TLS handshake done.
    /// - Returns: A future that fails with ``PinningError`` when the key is not a pin.
    func verify(_ channel: any Channel) -> EventLoopFuture<Void> {
        // On the channel's event loop, where its pipeline and handlers may be read.
        channel.eventLoop.submit {
            try check(channel)
        }.flatMapErrorThrowing { error in
            // AsyncHTTPClient fails the requests that waited for a connection its debug
            // initializer refused, but never closes the channel, which the pool did not take:
            // left open, it would stay connected to the server until the server hung up. It is
            // closed on the next turn of its event loop (the pool's, for this connection), once
            // the pool has heard of the failure: told of the close first, the pool would take it
            // for a connection it still counts as starting.
            channel.eventLoop.execute { channel.close(promise: nil) }
            throw error
        }
    }

    /// The check itself, on the channel's event loop.
    private func check(_ channel: any Channel) throws {
        guard let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLHandler.self) else {
            throw PinningError("\(pattern) is pinned, but the connection has no TLS: pinned hosts are reached over https only")
        }
        guard let certificate = handler.peerCertificate else {
            throw PinningError("\(pattern) is pinned, but the server presented no certificate")
        }
        let presented = try CertificatePins.pin(of: certificate)
        guard pins.contains(presented) else {
            throw PinningError(
                "the certificate of \(pattern) matched none of its pins (tried \(pins.sorted().joined(separator: ", "))); "
                    + "the server's key is \(presented)"
            )
        }
    }
}
#endif
