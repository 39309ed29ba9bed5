#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import NIOSSL
import RequestsAsyncHTTPClient

// MARK: - TLSCertificates and NIOSSL

/// The test certificates as NIOSSL reads them, and the transport configurations the tests use.
extension TLSCertificates {
    /// The certificates of `<name>.pem`.
    func certificates(_ name: String) throws -> [NIOSSLCertificate] {
        try NIOSSLCertificate.fromPEMFile(path("\(name).pem"))
    }

    /// The one certificate of `<name>.pem`.
    func certificate(_ name: String) throws -> NIOSSLCertificate {
        let all = try certificates(name)
        guard let first = all.first, all.count == 1 else {
            throw FixtureError("\(name).pem holds \(all.count) certificates, not one")
        }
        return first
    }

    /// The private key of `<name>.key`.
    func privateKey(_ name: String) throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(file: path("\(name).key"), format: .pem)
    }

    /// A transport configuration that trusts the test CA alone (`tls.trustRoots`).
    func trustingTestCA() throws -> AsyncHTTPClientTransport.Configuration {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.tls.trustRoots = .certificates(try certificates("ca"))
        return configuration
    }
}
#endif
