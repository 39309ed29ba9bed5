#if WebSocket
import Foundation
import LoopbackFixture
import NIOSSL
import Requests
import RequestsAsyncHTTPClient
import Testing

/// wss against Python's websockets over TLS, with the transport's own TLS settings: the private
/// test CA as the only trust root, and SPKI pins.
@Suite struct SecureTests {
    func transport(pins: [String: [String]] = [:]) async throws -> AsyncHTTPClientTransport {
        let certificates = try await TLSCertificates.shared.value
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificates.path("ca.pem")))
        configuration.pins = try CertificatePins(pins)
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    func wss(_ path: String) async throws -> String {
        let server = try await TLSServer.shared(.webSocket)
        return "wss://localhost:\(server.port)\(path)"
    }

    @Test func wssWithThePrivateCAEchoes() async throws {
        let transport = try await transport()
        let socket = try await Session(transport: transport).webSocket(try await wss("/echo"))
        try await socket.send("over TLS")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("over TLS"))
        try await socket.close()
        try await transport.shutdown()
    }

    @Test func anUntrustedServerFailsTheHandshakeAsTLS() async throws {
        let transport = AsyncHTTPClientTransport()
        let error = await #expect(throws: RequestError.self) {
            _ = try await Session(transport: transport).webSocket(try await wss("/echo"))
        }
        #expect(error?.transportErrorKind == .tls, "\(String(describing: error))")
        try await transport.shutdown()
    }

    @Test func theRightPinPassesAndAWrongOneIsRefusedBeforeTheRequestGoesOut() async throws {
        let certificates = try await TLSCertificates.shared.value
        let pinned = try await transport(pins: ["localhost": [certificates.serverPin]])
        let socket = try await Session(transport: pinned).webSocket(try await wss("/echo"))
        try await socket.close()
        try await pinned.shutdown()

        let wrong = try await transport(pins: ["localhost": [Data(repeating: 0xAB, count: 32).base64EncodedString()]])
        let error = await #expect(throws: RequestError.self) {
            _ = try await Session(transport: wrong).webSocket(try await wss("/echo"))
        }
        #expect(error?.underlyingError is PinningError, "\(String(describing: error))")
        try await wrong.shutdown()
    }
}
#endif
