#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import NIOSSL
import Requests
import RequestsAsyncHTTPClient
import Testing

/// Mutual TLS: a server that requires a client certificate from its own CA gets one from
/// `tls.certificateChain` and `tls.privateKey`, and refuses connections without one.
@Suite(.timeLimit(.minutes(2)))
struct ClientCertificateTests {
    @Test func theConfiguredClientCertificateIsPresented() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.clientCertificateRequired)
        let configuration = try presenting("client", certificates: certificates)
        let response = try await withSession(configuration) { session in
            try await session.request(server.url("/echo-client")).validate()
        }
        #expect(try response.decode(ClientSubject.self).subject == "requests-test-client")
    }

    /// Over TLS 1.3 the client's side of the handshake is done before the server has read its
    /// (missing) certificate, so the refusal comes as a `certificate_required` alert on a
    /// connection the client took for good: BoringSSL reports the alert (not a failed handshake),
    /// and it is still `.tls`, not a lost connection.
    @Test func withoutAClientCertificateTheServerRefuses() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.start(.clientCertificateRequired, certificates: certificates)
        defer { server.stop() }
        let error = try await withSession(try certificates.trustingTestCA()) { session in
            try await #require(throws: RequestError.self) {
                try await session.request(server.url("/echo-client"))
            }
        }
        print("no client certificate:", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.description.contains("the server requires a client certificate"))
        #expect(try await eventually(within: .seconds(30)) { server.standardError.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") },
                "server's standard error: \(server.standardError)")
    }

    /// The server certificate signed by the test CA, not the client CA the server trusts.
    @Test func aClientCertificateFromAnotherCAIsRefused() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.start(.clientCertificateRequired, certificates: certificates)
        defer { server.stop() }
        let error = try await withSession(try presenting("server", certificates: certificates)) { session in
            try await #require(throws: RequestError.self) {
                try await session.request(server.url("/echo-client"))
            }
        }
        print("client certificate from another CA:", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.description.contains("the server refused the client certificate"))
        #expect(try await eventually(within: .seconds(30)) { server.standardError.contains("CERTIFICATE_VERIFY_FAILED") },
                "server's standard error: \(server.standardError)")
    }

    /// The test CA trusted, and `<name>.pem` with its key presented.
    private func presenting(_ name: String, certificates: TLSCertificates) throws -> AsyncHTTPClientTransport.Configuration {
        var configuration = try certificates.trustingTestCA()
        configuration.tls.certificateChain = try certificates.certificates(name).map { .certificate($0) }
        configuration.tls.privateKey = .privateKey(try certificates.privateKey(name))
        return configuration
    }
}
#endif
