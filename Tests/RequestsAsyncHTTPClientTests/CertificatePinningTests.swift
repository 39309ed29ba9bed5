#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import NIOSSL
import Requests
import RequestsAsyncHTTPClient
import Testing

/// Pins checked on real connections, over HTTP/1.1 and HTTP/2: the right key passes, any other
/// fails as ``TransportError/Kind/tls`` with the host, the pins and the key in the error, and
/// hosts without pins are left alone.
@Suite(.timeLimit(.minutes(2)))
struct CertificatePinningTests {
    /// A pin no test key has.
    static let wrongPin = Data(repeating: 0xAB, count: 32).base64EncodedString()
    static let otherWrongPin = Data(repeating: 0xCD, count: 32).base64EncodedString()

    @Test func opensslAndCertificatePinsAgreeOnThePin() async throws {
        let certificates = try await TLSCertificates.shared.value
        let pin = try CertificatePins.pin(of: try certificates.certificate("server"))
        print("server pin:", pin)
        #expect(pin == certificates.serverPin)
        #expect(Data(base64Encoded: pin)?.count == 32)
    }

    @Test(arguments: [TLSServer.Kind.trusted, TLSServer.http2])
    func theRightPinIsAccepted(kind: TLSServer.Kind) async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(kind)
        let response = try await withSession(try await pinning(["127.0.0.1": [certificates.serverPin]])) { session in
            try await session.request(server.url("/hello"))
        }
        #expect(response.statusCode == 200)
        #expect(response.head.httpVersion == (kind == .trusted ? "HTTP/1.1" : "HTTP/2"))
    }

    @Test(arguments: [TLSServer.Kind.trusted, TLSServer.http2])
    func aWrongPinIsRefusedNamingTheHostThePinsAndTheKey(kind: TLSServer.Kind) async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(kind)
        let pins = ["127.0.0.1": [Self.wrongPin, Self.otherWrongPin]]
        let error = try await failure(of: server.url("/hello"), configuration: try await pinning(pins))
        print("wrong pin (\(kind)):", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.underlyingError is PinningError)
        let text = error.description
        #expect(text.contains("of 127.0.0.1 matched none of its pins"))
        #expect(text.contains(Self.wrongPin) && text.contains(Self.otherWrongPin))
        #expect(text.contains("the server's key is \(certificates.serverPin)"))
    }

    @Test func aBackupPinBesideTheRightOneIsAccepted() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.trusted)
        let pins = ["127.0.0.1": [Self.wrongPin, certificates.serverPin]]
        let response = try await withSession(try await pinning(pins)) { session in
            try await session.request(server.url("/hello"))
        }
        #expect(response.text == "hello over TLS")
    }

    /// No name below a domain reaches 127.0.0.1 without a resolver of the test's own, so the
    /// pattern here is `*.0.0.1`, which ``CertificatePins/pattern(for:)`` matches for `127.0.0.1`
    /// as for any name: the request goes through the pattern's client and its check.
    @Test func aPatternPinIsCheckedForTheHostsBelowIt() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.trusted)
        let pins = try CertificatePins(["*.0.0.1": [certificates.serverPin]])
        #expect(pins.pattern(for: "127.0.0.1") == "*.0.0.1")
        let response = try await withSession(try await pinning(["*.0.0.1": [certificates.serverPin]])) { session in
            try await session.request(server.url("/hello"))
        }
        #expect(response.text == "hello over TLS")

        let error = try await failure(of: server.url("/hello"), configuration: try await pinning(["*.0.0.1": [Self.wrongPin]]))
        print("wrong pattern pin:", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.description.contains("*.0.0.1"))
        #expect(error.description.contains("the server's key is \(certificates.serverPin)"))
    }

    @Test func aPinnedHostOverPlainHTTPIsRefused() async throws {
        let certificates = try await TLSCertificates.shared.value
        let loopback = try LoopbackServer.shared.get()
        let url = loopback.url("/anything")
        let error = try await failure(of: url, configuration: try await pinning(["127.0.0.1": [certificates.serverPin]]))
        print("pinned over http:", error)
        #expect(error.transportErrorKind == .tls)
        #expect(error.description.contains("127.0.0.1 is pinned, but the connection has no TLS"))
    }

    @Test func hostsWithoutPinsOnTheSameTransportAreUnaffected() async throws {
        let server = try await TLSServer.shared(.trusted)
        let loopback = try LoopbackServer.shared.get()
        // The same server under two names: localhost is pinned to a key it does not have.
        try await withSession(try await pinning(["localhost": [Self.wrongPin]])) { session in
            let https = try await session.request(server.url("/hello"))
            #expect(https.text == "hello over TLS")
            let http = try await session.request(loopback.url("/anything"))
            #expect(http.statusCode == 200)
            let error = try await #require(throws: RequestError.self) {
                try await session.request(server.url("/hello", host: "localhost"))
            }
            #expect(error.transportErrorKind == .tls)
            #expect(error.description.contains("of localhost matched none of its pins"))
        }
    }

    @Test func aRightPinDoesNotReplaceTrust() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.shared(.trusted)
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.pins = try CertificatePins(["127.0.0.1": [certificates.serverPin]])
        let error = try await failure(of: server.url("/hello"), configuration: configuration)
        #expect(error.transportErrorKind == .tls)
        #expect(!(error.underlyingError is PinningError))
    }

    /// A connection refused by its pin is closed at once, not left open beside the pool (which
    /// never took it): the server sees each one go. The servers are this test's own, the HTTP/2
    /// one with a keep-alive long enough that it would not close a forgotten connection itself.
    @Test(arguments: [TLSServer.Kind.trusted, .http2(keepAlive: 600)])
    func aConnectionRefusedByItsPinIsClosed(kind: TLSServer.Kind) async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.start(kind, certificates: certificates)
        defer { server.stop() }
        try await withSession(try await pinning(["127.0.0.1": [Self.wrongPin]])) { session in
            for _ in 0..<3 {
                let error = try await #require(throws: RequestError.self) {
                    try await session.request(server.url("/hello"))
                }
                #expect(error.transportErrorKind == .tls)
            }
        }
        // Asked through localhost, which no pin names, on a connection of its own.
        var open: [Int] = []
        let closed = try await withSession(try certificates.trustingTestCA()) { session in
            try await eventually(within: .seconds(30)) {
                let response = try await session.request(server.url("/connections", host: "localhost"))
                open = try response.decode(OpenConnections.self).open
                return open.count == 1
            }
        }
        #expect(closed, "connections still open at the server, the asking one's included: \(open)")
    }

    // MARK: Helpers

    /// The test CA trusted, and these pins.
    private func pinning(_ pins: [String: [String]]) async throws -> AsyncHTTPClientTransport.Configuration {
        var configuration = try await TLSCertificates.shared.value.trustingTestCA()
        configuration.pins = try CertificatePins(pins)
        return configuration
    }

    /// The error of a GET that must fail, from a session made for it.
    private func failure(of url: any URLConvertible, configuration: AsyncHTTPClientTransport.Configuration) async throws -> RequestError {
        try await withSession(configuration) { session in
            try await #require(throws: RequestError.self) {
                try await session.request(url)
            }
        }
    }
}
#endif
