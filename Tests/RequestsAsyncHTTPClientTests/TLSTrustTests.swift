#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import NIOSSL
import Requests
import RequestsAsyncHTTPClient
import Testing

/// Server certificates over TLS: trusted through the configuration's roots, and refused as
/// ``TransportError/Kind/tls`` when untrusted, expired or for another host.
@Suite(.timeLimit(.minutes(2)))
struct TLSTrustTests {
    @Test(arguments: ["127.0.0.1", "localhost"])
    func trustingTheTestCAThroughTrustRootsReachesTheServer(host: String) async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.trusted)
        let response = try await withSession(try certificates.trustingTestCA()) { session in
            try await session.request(server.url("/hello", host: host))
        }
        #expect(response.statusCode == 200)
        #expect(response.text == "hello over TLS")
        #expect(response.head.httpVersion == "HTTP/1.1")
    }

    @Test func trustingTheTestCAThroughAdditionalTrustRootsReachesTheServer() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.trusted)
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.tls.additionalTrustRoots = [.certificates(try certificates.certificates("ca"))]
        let response = try await withSession(configuration) { session in
            try await session.request(server.url("/hello"))
        }
        #expect(response.text == "hello over TLS")
    }

    @Test func withoutTheTestCATheServerIsUntrusted() async throws {
        let server = try await TLSServer.shared(.trusted)
        let error = try await failure(of: server.url("/hello"), configuration: AsyncHTTPClientTransport.Configuration())
        print("untrusted:", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.code == .transportFailed)
        #expect(error.description.contains("for GET \(server.url("/hello")): the server's certificate was not accepted"))
    }

    @Test func anExpiredCertificateIsRefused() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.expired)
        let error = try await failure(of: server.url("/hello"), configuration: try certificates.trustingTestCA())
        print("expired:", error)
        #expect(error.transportErrorKind == .tls)
        // BoringSSL reports an expired certificate as it does an untrusted one (NIOSSL does not
        // pass on the verifier's reason), so the words are the same.
        #expect(error.description.contains("for GET \(server.url("/hello")): the server's certificate was not accepted"))
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func aCertificateForAnotherHostIsRefused(host: String) async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.wrongHost)
        let error = try await failure(of: server.url("/hello", host: host), configuration: try certificates.trustingTestCA())
        print("wrong host (\(host)):", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.description.contains("for GET \(server.url("/hello", host: host)): the server's certificate is not for this host"))
    }

    /// The error of a GET that must fail, from a session made for it.
    private func failure(of url: String, configuration: AsyncHTTPClientTransport.Configuration) async throws -> RequestError {
        try await withSession(configuration) { session in
            try await #require(throws: RequestError.self) {
                try await session.request(url)
            }
        }
    }
}
#endif
