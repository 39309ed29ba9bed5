import Foundation

// MARK: - TLSCertificates

/// The TLS tests' certificates, made once per test process by `make_certificates.sh` (the
/// `openssl` command line) into a new temporary directory, which is removed when the process
/// exits. Nothing of them is committed.
///
/// The files, each certificate beside its key: `ca` (the test CA), `server` (127.0.0.1 and
/// localhost, by the CA), `expired` (the same names, valid in January 2020 only), `wrong-host`
/// (other.example only), `client-ca` (a second CA) and `client` (CN `requests-test-client`, by
/// the client CA).
public struct TLSCertificates: Sendable {
    /// The directory holding the files.
    public let directory: URL
    /// The base64 SHA-256 of `server.pem`'s SubjectPublicKeyInfo, as openssl computes it.
    public let serverPin: String

    /// The certificates of this process, made on first use.
    public static let shared = Task { try await TLSCertificates.make() }

    /// Runs `make_certificates.sh` into a new temporary directory.
    ///
    /// - Returns: The certificates.
    /// - Throws: ``FixtureError`` with openssl's output when the script fails.
    public static func make() async throws -> TLSCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("requests-tls-\(UUID().uuidString)", isDirectory: true)
        ExitCleanup.removeAtExit(directory)
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [FixtureFiles.url("make_certificates.sh").path, directory.path],
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
    ///
    /// - Parameter name: The file's name.
    /// - Returns: Its path.
    public func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }
}

// MARK: - FixtureFiles

/// The scripts beside this file (`Tests/Fixtures/`).
public enum FixtureFiles {
    /// The URL of a file in `Tests/Fixtures/`.
    ///
    /// - Parameter name: The file's name, such as `h2_server.py`.
    /// - Returns: Its URL.
    public static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)
    }
}

// MARK: - FixtureError

/// A fixture that could not be set up: what failed and what the tool said.
public struct FixtureError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// - Parameter description: What went wrong.
    public init(_ description: String) {
        self.description = description
    }
}
