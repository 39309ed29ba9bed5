import Foundation
import TestScheduling
import Testing

/// `--download` to standard output when it is piped, download names from `Content-Type`;
/// `--auth-type`, `--session` keeping `--auth`, and the TLS options refused with a reason.
@Suite(.backgroundPriority) struct ReqDownloadAndAuthTests {
    private func url(_ path: String) throws -> String {
        "127.0.0.1:\(try server().port)\(path)"
    }

    @Test func aPipedDownloadGoesToStandardOutputByteForByte() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await req(["--download", try url("/bytes/3000")], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Data((0..<3000).map { UInt8($0 % 256) }))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aDownloadsNameTakesItsExtensionFromContentType() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = try await reqWithoutOutput(["-d", try url("/json")], in: directory)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stderr.contains("Saved to json.json"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("json.json").path))
        _ = try await reqWithoutOutput(["-d", try url("/range/10?filename=kept.dat")], in: directory)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("kept.dat").path))
    }

    @Test func authTypeBearerAndTheBearerShorthand() async throws {
        let realm = "req-\(UUID().uuidString.prefix(6))"
        for arguments in [["-A", "bearer", "-a", "\(realm)-0"], ["--auth-type=bearer", "--auth=\(realm)-0"], ["--bearer", "\(realm)-0"]] {
            #expect(try await req(["--check-status"] + arguments + [try url("/bearer/\(realm)")]).status == 0, "\(arguments)")
        }
        #expect(try await req(["--check-status", "-A", "basic", "-a", "user:pass", try url("/basic-auth/user/pass")]).status == 0)
        let missing = try await req(["-A", "bearer", try url("/")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("--auth-type needs --auth"))
        let noPassword = try await req(["-a", "user", try url("/")])
        #expect(noPassword.status == 1)
        #expect(noPassword.stderr.contains("--auth takes USER:PASS"))
    }

    @Test func aSessionKeepsAuthForLaterRuns() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["REQ_CONFIG_DIR": directory.path]
        let first = try await req(["--check-status", "--session", "s", "-a", "user:pass", try url("/basic-auth/user/pass")], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await req(["--check-status", "--session", "s", try url("/basic-auth/user/pass")], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        let other = try await req(["--check-status", try url("/basic-auth/user/pass")], environment: environment)
        #expect(other.status == 4)
        // The command line's --auth wins over the stored one, and replaces it.
        #expect(try await req(["--check-status", "--session", "s", "-a", "user:wrong", try url("/basic-auth/user/pass")], environment: environment).status == 4)
        #expect(try await req(["--check-status", "--session", "s", try url("/basic-auth/user/pass")], environment: environment).status == 4)
    }

    #if !AsyncHTTPClient
    @Test(arguments: [
        (["--verify", "no"], "--verify no: req's URLSession transport cannot turn off certificate checks"),
        (["--verify", "/etc/ca.pem"], "--verify /etc/ca.pem: req's URLSession transport cannot trust the certificate authorities in /etc/ca.pem"),
        (["--cert", "client.pem"], "--cert client.pem: req's URLSession transport cannot send a client certificate"),
        (["--pin", "sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="], "--pin sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=: req's URLSession transport cannot pin a server's key"),
    ])
    func tlsOptionsTheTransportCannotHonourAreRefusedNamingTheTrait(arguments: [String], message: String) async throws {
        let run = try await req(arguments + [try url("/anything")])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.contains("build req with the AsyncHTTPClient trait for it: swift build --traits AsyncHTTPClient --product req"), "\(run.stderr)")
        #expect(try await req(["--verify", "yes", try url("/status/200")]).status == 0)
    }
    #endif

    @Test(arguments: [
        (["--cert-key", "key.pem"], "--cert-key needs --cert"),
        (["--pin", "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="], "--pin takes sha256/BASE64"),
        (["--pin", "sha256/c2hvcnQ="], "--pin takes sha256/BASE64"),
    ])
    func tlsOptionsThatMakeNoSenseAreRefusedInEveryBuild(arguments: [String], message: String) async throws {
        let run = try await req(arguments + [try url("/anything")])
        #expect(run.status == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
