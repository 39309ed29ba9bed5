import Foundation

// MARK: - TLSOptions

/// `--verify` and `--cert`/`--cert-key`, which `req` can only honour where its transport can.
///
/// `req` sends through `URLSessionTransport`. On Linux, FoundationNetworking's `URLSession` passes
/// no server-trust or client-certificate challenge to any delegate and reads no setting for a CA
/// file (its `URLSessionCertificateAuthorityInfoFile` is read on Android only), so certificate
/// checks cannot be turned off, another CA cannot be trusted, and no client certificate can be
/// sent; the system's trust store (`update-ca-certificates`) is what it uses. On Apple platforms
/// these need the transport's delegate to evaluate trust and to present a `SecIdentity`, which
/// `URLSessionTransport` does not offer yet. Until then such options are refused, saying so,
/// rather than ignored: a request that silently skipped `--cert` would fail in a confusing way.
enum TLSOptions {
    /// The `--verify` values that mean "check, against the system's trust store".
    static let defaultVerify: Set<String> = ["yes", "true"]

    /// Refuses what the transport cannot do.
    ///
    /// - Throws: ``UsageError`` naming the option and why it cannot be honoured.
    static func check(_ options: Options) throws {
        if let verify = options.verify, !defaultVerify.contains(verify.lowercased()) {
            if ["no", "false"].contains(verify.lowercased()) {
                throw UsageError("--verify \(verify): req's URLSession transport cannot turn off certificate checks \(platformReason)")
            }
            throw UsageError("--verify \(verify): req's URLSession transport cannot trust the certificate authorities in \(verify) "
                + "\(platformReason); add them to the system's trust store instead")
        }
        if let cert = options.cert ?? options.certKey {
            let flag = options.cert != nil ? "--cert" : "--cert-key"
            throw UsageError("\(flag) \(cert): req's URLSession transport cannot send a client certificate \(platformReason)")
        }
    }

    private static var platformReason: String {
        #if canImport(FoundationNetworking)
        "on Linux (FoundationNetworking gives no TLS challenge to any delegate)"
        #else
        "yet (URLSessionTransport does not evaluate server trust or present an identity)"
        #endif
    }
}
