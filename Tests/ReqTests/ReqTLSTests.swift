#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import TestScheduling
import Testing

/// `req` built with the AsyncHTTPClient trait: `--verify`, `--cert`/`--cert-key` and `--pin`
/// against the loopback TLS servers (certificates made by `make_certificates.sh` at test time,
/// signed by a CA no system store holds), the real HTTP version in `-v`, and `Accept:` removing
/// the default header, each as a subprocess.
@Suite(.backgroundPriority) struct ReqTLSTests {
    private func certificates() async throws -> TLSCertificates {
        try await TLSCertificates.shared.value
    }

    @Test func anUntrustedCAIsRefusedThenAcceptedWithVerifyPath() async throws {
        let server = try await TLSServer.shared(.trusted)
        let refused = try await req([server.url("/hello")])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("req: error: "), "\(refused.stderr)")
        #expect(refused.stderr.lowercased().contains("certificate"), "\(refused.stderr)")

        let accepted = try await req(["--verify", try await certificates().path("ca.pem"), server.url("/hello")])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.output == "hello over TLS")
    }

    @Test func verifyNoAcceptsAnyCertificate() async throws {
        for kind in [TLSServer.Kind.trusted, .expired, .wrongHost] {
            let server = try await TLSServer.shared(kind)
            #expect(try await req([server.url("/hello")]).status == 1, "\(kind) accepted without --verify no")
            let run = try await req(["--verify", "no", server.url("/hello")])
            #expect(run.status == 0, "\(kind): \(run.stderr)")
            #expect(run.output == "hello over TLS", "\(kind)")
        }
    }

    @Test func aMissingCABundleIsAUsageError() async throws {
        let run = try await req(["--verify", "/nonexistent/ca.pem", "https://127.0.0.1:1/"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("--verify /nonexistent/ca.pem: no such CA bundle"), "\(run.stderr)")
    }

    @Test func aServerRequiringAClientCertificateGetsOneWithCert() async throws {
        let server = try await TLSServer.shared(.clientCertificateRequired)
        let certificates = try await certificates()
        let ca = certificates.path("ca.pem")
        let without = try await req(["--verify", ca, server.url("/echo-client")])
        #expect(without.status == 1, "\(without.output)")

        let with = try await req(["--verify", ca, "--cert", certificates.path("client.pem"), "--cert-key", certificates.path("client.key"),
                                  server.url("/echo-client")])
        #expect(with.status == 0, "\(with.stderr)")
        #expect(with.output.contains("requests-test-client"), "\(with.output)")

        // One file holding both the certificate and its key, as httpie's --cert takes it.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let both = directory.appendingPathComponent("client-and-key.pem")
        let joined = try Data(contentsOf: URL(fileURLWithPath: certificates.path("client.pem")))
            + Data(contentsOf: URL(fileURLWithPath: certificates.path("client.key")))
        try joined.write(to: both)
        let single = try await req(["--verify", ca, "--cert", both.path, server.url("/echo-client")])
        #expect(single.status == 0, "\(single.stderr)")
        #expect(single.output.contains("requests-test-client"), "\(single.output)")

        let keyless = try await req(["--verify", ca, "--cert", certificates.path("client.pem"), server.url("/echo-client")])
        #expect(keyless.status == 1)
        #expect(keyless.stderr.contains("has no private key; give it with --cert-key"), "\(keyless.stderr)")
    }

    @Test func aWrongPinIsRefusedNamingThePinsAndTheRightOneAccepted() async throws {
        let server = try await TLSServer.shared(.trusted)
        let certificates = try await certificates()
        let ca = certificates.path("ca.pem")
        let wrong = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let refused = try await req(["--verify", ca, "--pin", "sha256/\(wrong)", server.url("/hello")])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains(wrong), "the pins are not named: \(refused.stderr)")
        #expect(refused.stderr.contains(certificates.serverPin), "the server's key is not named: \(refused.stderr)")

        let accepted = try await req(["--verify", ca, "--pin", "sha256/\(wrong)", "--pin", "sha256//\(certificates.serverPin)", server.url("/hello")])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.output == "hello over TLS")
    }

    @Test func verboseShowsHTTP2OverTLS() async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        let run = try await req(["-v", "--verify", try await certificates().path("ca.pem"), server.url("/hello")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.output.contains("HTTP/2 200 OK"), "\(run.output)")
        #expect(run.output.contains("hello over HTTP/2"), "\(run.output)")
    }

    @Test func anEmptyAcceptRemovesTheDefaultHeader() async throws {
        let port = try server().port
        let run = try await req(["--check-status", "127.0.0.1:\(port)/anything", "Accept:"])
        #expect(run.status == 0, "\(run.stderr)")
        let echo = try JSONDecoder().decode(Echo.self, from: run.stdout)
        #expect(echo.header("Accept") == nil, "\(echo.headers)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        // Without the item, req's default is sent.
        let plain = try JSONDecoder().decode(Echo.self, from: try await req(["127.0.0.1:\(port)/anything"]).stdout)
        #expect(plain.header("Accept") == "*/*")
    }
}
#endif
