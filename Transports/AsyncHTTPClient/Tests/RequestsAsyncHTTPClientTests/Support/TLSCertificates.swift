import Foundation
import LoopbackFixture
import NIOSSL
import RequestsAsyncHTTPClient

// MARK: - TLSCertificates

/// The TLS tests' certificates, made once per test process by `Fixtures/make_certificates.sh`
/// (the `openssl` command line) into a new temporary directory, which is removed when the process
/// exits. Nothing of them is committed.
///
/// The files, each certificate beside its key: `ca` (the test CA), `server` (127.0.0.1 and
/// localhost, by the CA), `expired` (the same names, valid in January 2020 only), `wrong-host`
/// (other.example only), `client-ca` (a second CA) and `client` (CN `requests-test-client`, by
/// the client CA).
struct TLSCertificates: Sendable {
    /// The directory holding the files.
    let directory: URL
    /// The pin of `server.pem` as openssl computes it (the recipe in ``CertificatePins``'s
    /// documentation).
    let serverPin: String

    /// The certificates of this process, made on first use.
    static let shared = Task { try await TLSCertificates.make() }

    /// Runs `make_certificates.sh` into a new temporary directory.
    ///
    /// - Returns: The certificates.
    /// - Throws: ``FixtureError`` with openssl's output when the script fails.
    static func make() async throws -> TLSCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("requests-ahc-tls-\(UUID().uuidString)", isDirectory: true)
        ExitCleanup.removeAtExit(directory)
        let script = Fixtures.url("make_certificates.sh")
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [script.path, directory.path],
            mergingStandardError: true
        )
        guard output.status == 0 else {
            let text = String(decoding: output.stdout, as: UTF8.self)
            throw FixtureError("make_certificates.sh failed with status \(output.status): \(text)")
        }
        let pinFile = directory.appendingPathComponent("server.pin")
        let pin = try String(contentsOf: pinFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return TLSCertificates(directory: directory, serverPin: pin)
    }

    /// The path of a file in ``directory``, such as `server.pem`.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

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

// MARK: - Fixtures

/// The `Fixtures/` folder beside this file's folder.
enum Fixtures {
    /// The URL of a file in `Fixtures/`.
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
            .appendingPathComponent(name)
    }
}

// MARK: - FixtureError

/// A fixture that could not be set up: what failed and what the tool said.
struct FixtureError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
