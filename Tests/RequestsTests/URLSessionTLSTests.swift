import Foundation
import LoopbackFixture
import Testing
import TransportContract

#if os(Linux)

/// `URLSessionTransport` against TLS servers on loopback: HTTP/2 streams that end when the reader
/// leaves, connections the server closed when idle, and TLS failures classified.
///
/// FoundationNetworking trusts only the system store (`/etc/ssl/certs/ca-certificates.crt`), so
/// each check runs `URLSessionProbe` in a mount namespace of its own (`unshare`) where that file
/// is the system's certificates plus the test CA. Nothing outside the child sees the change.
@Suite(.timeLimit(.minutes(3)))
struct URLSessionTLSTests {
    /// A drip sends 200 events, 50 ms apart: one still running 5 s after the reader left would go
    /// on for 10 s, so the probe's 5 s wait tells a stopped stream from one left running.
    @Test(arguments: ["leave-loop", "cancel-task"])
    func anHTTP2StreamEndsWhenTheReaderLeaves(_ how: String) async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        let result = try await TrustingProbe.run([how, server.url("")])
        #expect(result["version"] == "2", "not over HTTP/2: \(result)")
        #expect(result["ended"] == "true", "the server went on sending after the reader left: \(result)")
        #expect(result["disconnected"] == "true", "\(result)")
        #expect(Int(result["sent"] ?? "") ?? 200 < 200, "\(result)")
    }

    /// Against sse-starlette on hypercorn, which learns that a client left only the ASGI way (an
    /// RST_STREAM or a closed connection), and is asked over a session of its own: every way of
    /// leaving, every way of reading, over HTTP/2 and HTTP/1.1, ends the transfer at the server
    /// within a second (the stream's own timeout is 10 s).
    @Test(arguments: StreamLeaving.allCases, StreamView.allCases)
    func leavingAStreamEndsItAtTheServer(_ how: StreamLeaving, _ view: StreamView) async throws {
        for http1Only in [false, true] {
            let server = try await TLSServer.shared(.serverSentEvents(http1Only: http1Only))
            // The child process and the server are late when the machine is, and this process
            // sees it too: a try that failed while it was a quarter of a second late or more is
            // made again. Each check throws, so that a retried try leaves no recorded issue.
            try await retryingWhenLate(stall: .milliseconds(250)) { _ in
                let result = try await TrustingProbe.run(["leave-stream", how.rawValue, view.rawValue, server.url("")])
                guard result["version"] == (http1Only ? "1.1" : "2") else { throw FixtureError("not the HTTP version asked for: \(result)") }
                guard result["disconnected"] == "true" else { throw FixtureError("the server went on streaming after the reader left: \(result)") }
                let after = Double(result["after"] ?? "") ?? .infinity
                guard after < 1 else { throw FixtureError("the server saw the reader go \(after) s after it left: \(result)") }
            }
        }
    }

    @Test func anHTTP2StreamEndsWhenItsSilenceOutlastsTheIdleLimit() async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        let result = try await TrustingProbe.run(["silence", server.url("")])
        #expect(result["version"] == "2", "not over HTTP/2: \(result)")
        #expect(result["received"] == "1", "\(result)")
        #expect(result["error"] == "timedOut", "\(result)")
        #expect(result["ended"] == "true", "the server kept the silent stream open: \(result)")
        #expect(result["disconnected"] == "true", "\(result)")
    }

    /// The server closes connections idle for 0.3 s without a GOAWAY, and requests are spaced
    /// 0.27 to 0.33 s apart, so that many meet a connection the server has closed or is closing:
    /// every one succeeds, through a session with no retry policy.
    @Test func requestsAfterTheServersIdleCloseAllSucceedOverHTTP2() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.start(.http2(keepAlive: 0.3), certificates: certificates)
        defer { server.stop() }
        let result = try await TrustingProbe.run(["idle-reuse", server.url(""), "30", "0.27"])
        #expect(result["failed"] == "0", "\(result)")
        #expect(result["bodies"] == "hello_over_HTTP/2", "\(result)")
        let connections = Set((result["connections"] ?? "").split(separator: ","))
        #expect(connections.count > 1, "the server closed no connection: the test met no idle close (\(result))")
    }

    @Test(arguments: [
        (TLSServer.Kind.expired, "trusted"), (.wrongHost, "trusted"), (.trusted, "untrusted"),
    ])
    func tlsFailuresAreClassifiedAsTLS(_ kind: TLSServer.Kind, _ trust: String) async throws {
        let server = try await TLSServer.shared(kind)
        let url = server.url("/")
        let result = trust == "trusted"
            ? try await TrustingProbe.run(["get", url])
            : try await TrustingProbe.run(["get", url], trustingTheTestCA: false)
        #expect(result["error"] == "transportFailed", "\(kind): \(result)")
        #expect(result["transport"] == "tls", "\(kind): \(result)")
    }

    @Test func theTrustedServerAnswersInsideTheNamespace() async throws {
        let server = try await TLSServer.shared(.trusted)
        let result = try await TrustingProbe.run(["get", server.url("/hello")])
        #expect(result["status"] == "200", "\(result)")
        #expect(result["body"] == "hello_over_TLS", "\(result)")
    }
}

// MARK: - TrustingProbe

/// Runs `URLSessionProbe` with the test CA in its system trust store.
enum TrustingProbe {
    /// The store FoundationNetworking's libcurl reads on Debian and Ubuntu.
    static let systemStore = "/etc/ssl/certs/ca-certificates.crt"

    /// The system's certificates followed by the test CA, written once beside the certificates.
    static let bundle = Task<String, any Error> {
        let certificates = try await TLSCertificates.shared.value
        var bytes = try Data(contentsOf: URL(fileURLWithPath: systemStore))
        bytes.append(contentsOf: Array("\n".utf8))
        bytes.append(try Data(contentsOf: URL(fileURLWithPath: certificates.path("ca.pem"))))
        let path = certificates.path("system-and-test-ca.pem")
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs the probe and reads its line of `name=value` fields.
    ///
    /// - Parameters:
    ///   - arguments: The probe's arguments.
    ///   - trustingTheTestCA: Whether the child's system store holds the test CA; `false` runs it
    ///     without a namespace, against the system's store alone.
    /// - Returns: The fields.
    /// - Throws: ``FixtureError`` with the probe's standard error when it exits with a failure,
    ///   or when `unshare` cannot make the namespace.
    static func run(_ arguments: [String], trustingTheTestCA: Bool = true) async throws -> [String: String] {
        let probe = try builtExecutable("URLSessionProbe").path
        let output = if trustingTheTestCA {
            try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/unshare"),
                arguments: [
                    "--map-root-user", "--mount", "/bin/sh", "-c",
                    "mount --bind \"$0\" \(systemStore) && exec \"$@\"", try await bundle.value, probe,
                ] + arguments
            )
        } else {
            try await ChildProcess.run(URL(fileURLWithPath: probe), arguments: arguments)
        }
        let text = String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.status == 0 else {
            throw FixtureError("URLSessionProbe \(arguments) exited with \(output.status): \(String(decoding: output.stderr, as: UTF8.self)) \(text)")
        }
        var fields: [String: String] = [:]
        for field in text.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        TestDetail.report(["URLSessionProbe \(arguments.first ?? ""): \(text)"], as: "urlsession-probe-\(arguments.first ?? "run")")
        return fields
    }
}

#endif
