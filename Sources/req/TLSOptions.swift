import Foundation
import Requests
#if AsyncHTTPClient
import NIOSSL
import RequestsAsyncHTTPClient
#endif

// MARK: - TLSOptions

/// `--verify`, `--cert`/`--cert-key` and `--pin`, which `req` honours when it is built with the
/// package's `AsyncHTTPClient` trait, and refuses, naming that trait, when it is not.
///
/// Built without the trait, `req` sends through `URLSessionTransport`. On Linux,
/// FoundationNetworking's `URLSession` passes no server-trust or client-certificate challenge to
/// any delegate and reads no setting for a CA file, so certificate checks cannot be turned off,
/// another CA cannot be trusted, no client certificate can be sent and nothing can be pinned; on
/// Apple platforms `URLSessionTransport` does not evaluate trust or present an identity yet. Such
/// options are refused rather than ignored: a request that silently skipped `--cert` would fail
/// in a confusing way. Built with the trait (`swift build --traits AsyncHTTPClient --product req`),
/// `req` sends through `AsyncHTTPClientTransport`, whose TLS configuration takes all of them.
enum TLSOptions {
    /// The `--verify` values that mean "check, against the system's trust store".
    static let defaultVerify: Set<String> = ["yes", "true"]
    /// The `--verify` values that mean "do not check".
    static let noVerify: Set<String> = ["no", "false"]

    /// Whether `options` ask for anything beyond the default checks.
    static func asksForMore(_ options: Options) -> Bool {
        let verify = options.verify.map { !defaultVerify.contains($0.lowercased()) } ?? false
        return verify || options.cert != nil || options.certKey != nil || !options.pins.isEmpty
    }

    /// Refuses what this build's transport cannot do.
    ///
    /// - Throws: ``UsageError`` naming the option and the trait that enables it.
    static func check(_ options: Options) throws {
        if options.certKey != nil, options.cert == nil {
            throw UsageError("--cert-key needs --cert (the certificate the key belongs to)")
        }
        for pin in options.pins where pinValue(pin) == nil {
            throw UsageError("--pin takes sha256/BASE64 (the base64 SHA-256 of the certificate's public key), not \"\(pin)\"")
        }
        #if !AsyncHTTPClient
        guard asksForMore(options) else { return }
        let flag: String
        let what: String
        if let verify = options.verify, !defaultVerify.contains(verify.lowercased()) {
            flag = "--verify \(verify)"
            what = noVerify.contains(verify.lowercased())
                ? "turn off certificate checks" : "trust the certificate authorities in \(verify)"
        } else if let cert = options.cert {
            flag = "--cert \(cert)"
            what = "send a client certificate"
        } else {
            flag = "--pin \(options.pins.first ?? "")"
            what = "pin a server's key"
        }
        throw UsageError("\(flag): req's URLSession transport cannot \(what) \(platformReason); "
            + "build req with the AsyncHTTPClient trait for it: swift build --traits AsyncHTTPClient --product req")
        #endif
    }

    /// The base64 digest of a `--pin` value, `sha256/BASE64` (curl's `sha256//BASE64` too).
    static func pinValue(_ pin: String) -> String? {
        for prefix in ["sha256//", "sha256/"] where pin.hasPrefix(prefix) {
            let value = String(pin.dropFirst(prefix.count))
            guard let digest = Data(base64Encoded: value), digest.count == 32 else { return nil }
            return value
        }
        return nil
    }

    #if !AsyncHTTPClient
    private static var platformReason: String {
        #if canImport(FoundationNetworking)
        "on Linux (FoundationNetworking gives no TLS challenge to any delegate)"
        #else
        "yet (URLSessionTransport does not evaluate server trust or present an identity)"
        #endif
    }
    #endif

    /// The transport `req` sends through: `AsyncHTTPClientTransport` configured by the TLS
    /// options when built with the trait, `URLSessionTransport` otherwise.
    ///
    /// - Parameters:
    ///   - options: The command line.
    ///   - host: The URL's host, which `--pin` pins.
    /// - Returns: The transport.
    /// - Throws: ``UsageError`` for a certificate, key or CA file that cannot be read.
    static func transport(_ options: Options, host: String?) throws -> any Transport {
        #if AsyncHTTPClient
        var configuration = AsyncHTTPClientTransport.Configuration()
        if let verify = options.verify, !defaultVerify.contains(verify.lowercased()) {
            if noVerify.contains(verify.lowercased()) {
                configuration.tls.certificateVerification = .none
            } else {
                guard FileManager.default.isReadableFile(atPath: verify) else {
                    throw UsageError("--verify \(verify): no such CA bundle (a PEM file of certificate authorities to trust)")
                }
                configuration.tls.trustRoots = .file(verify)
            }
        }
        if let cert = options.cert {
            let keyFile = options.certKey ?? cert
            do {
                configuration.tls.certificateChain = try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) }
            } catch {
                throw UsageError("--cert \(cert): not a readable PEM certificate (\(error))")
            }
            do {
                configuration.tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
            } catch {
                let flag = options.certKey == nil ? "--cert \(cert) has no private key; give it with --cert-key" : "--cert-key \(keyFile): not a readable PEM private key"
                throw UsageError("\(flag) (\(error))")
            }
        }
        if !options.pins.isEmpty {
            guard let host else { throw UsageError("--pin needs a URL with a host") }
            do {
                configuration.pins = try CertificatePins([host: options.pins.compactMap(pinValue)])
            } catch {
                throw UsageError("--pin: \(error)")
            }
        }
        return AsyncHTTPClientTransport(configuration: configuration)
        #else
        _ = (options, host)
        return URLSessionTransport()
        #endif
    }

    /// What the transport `req` sends through adds to a request that lacks it, for printing.
    static var addedHeaders: HTTPHeaders {
        #if AsyncHTTPClient
        AsyncHTTPClientTransport().behavior.addedHeaders
        #else
        URLSessionTransport.standardBehavior.addedHeaders
        #endif
    }
}
