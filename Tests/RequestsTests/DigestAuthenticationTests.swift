import Foundation
import LoopbackFixture
import Testing

@testable import Requests

/// HTTP Digest authentication (RFC 7616): MD5 against RFC 1321's vectors and openssl, the
/// answer against RFC 7616's worked example, challenges parsed as servers write them, and the
/// interceptor against the loopback server, which checks every answer with python's hashlib (and
/// which curl's `--digest` satisfies too).
@Suite struct DigestAuthenticationTests {
    // MARK: MD5

    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func md5MatchesRFC1321(message: String, digest: String) {
        #expect(hex(MD5.hash(Array(message.utf8))) == digest)
    }

    /// Lengths about the padding's edges (56 and 64 bytes), where an off-by-one would show.
    @Test(arguments: [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000])
    func md5AgreesWithOpenSSLAroundBlockEdges(length: Int) async throws {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: ["openssl", "dgst", "-md5", "-binary"], input: .pipe(Data(message))
        )
        #expect(output.status == 0)
        #expect(MD5.hash(message) == [UInt8](output.stdout))
    }

    // MARK: The answer

    /// RFC 7616 section 3.9.1: the same challenge with SHA-256 and with MD5, in one header value.
    @Test func theAnswerMatchesRFC7616sExample() throws {
        let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
        let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        let header = """
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="\(nonce)", opaque="\(opaque)", \
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="\(nonce)", opaque="\(opaque)"
            """
        let challenges = DigestChallenge.parse([header])
        #expect(challenges.map(\.algorithm) == ["SHA-256", "MD5"])
        #expect(challenges.allSatisfy { $0.realm == "http-auth@example.org" && $0.nonce == nonce && $0.opaque == opaque })
        #expect(challenges.first?.qop == ["auth", "auth-int"])
        #expect(DigestAuthentication.strongest(challenges)?.algorithm == "SHA-256")

        let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        for (challenge, response) in zip(challenges, ["753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
                                                      "8ca523f5e9506fed4657c9700eebdbec"]) {
            let value = try #require(challenge.authorization(
                username: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html", cnonce: cnonce, count: 1
            ))
            #expect(value.contains("response=\"\(response)\""), "\(value)")
            #expect(value.hasPrefix("Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/dir/index.html\""))
            #expect(value.contains("nc=00000001, cnonce=\"\(cnonce)\", qop=auth"))
            #expect(value.contains("opaque=\"\(opaque)\""))
        }
    }

    @Test func challengesAreParsedAmongOtherSchemesAndQuotedCommas() {
        let challenges = DigestChallenge.parse([
            #"Basic realm="x", Digest realm="a, \"b\"", nonce="n1", stale=TRUE, userhash=true, Bearer"#,
            "Digest nonce=n2, algorithm=SHA-512-256",
        ])
        #expect(challenges.map(\.realm) == [#"a, "b""#, ""])
        #expect(challenges.map(\.nonce) == ["n1", "n2"])
        #expect(challenges.first?.stale == true)
        #expect(challenges.first?.userhash == true)
        // An algorithm this library does not implement is not answered.
        #expect(challenges.last?.isAnswerable == false)
        #expect(DigestAuthentication.strongest(challenges)?.nonce == "n1")
    }

    @Test func authIntAloneIsNotAnswered() {
        let challenge = DigestChallenge.parse([#"Digest realm="r", nonce="n", qop="auth-int""#])
        #expect(challenge.first?.isAnswerable == false)
    }

    // MARK: Against the loopback server

    private func session() throws -> (Session, LoopbackServer) {
        let server = try LoopbackServer.shared.get()
        let origin = try #require(Origin(server.url("/")))
        return (Session(interceptors: [try DigestAuthentication(username: "user", password: "pass", scope: .origins([origin]))]), server)
    }

    private struct Answer: Decodable {
        var authenticated: Bool
        var nc: String?
        var algorithm: String?
        var challenges: Int?
    }

    @Test(arguments: [("auth", "MD5"), ("auth", "MD5-sess"), ("auth", "SHA-256"), ("auth", "SHA-256-sess"), ("none", "MD5"), ("auth", "both")])
    func eachAlgorithmIsAnswered(qop: String, algorithm: String) async throws {
        let (session, server) = try session()
        let response = try await session.request(server.url("/digest-auth/\(qop)/user/pass/\(algorithm)?q=a%20b")).validate()
        let answer = try response.decode(Answer.self)
        #expect(answer.authenticated)
        // Offered both, SHA-256 is chosen.
        #expect(answer.algorithm == (algorithm == "both" ? "SHA-256" : algorithm))
        #expect(response.failedAttempts.isEmpty)
    }

    @Test func laterRequestsAnswerTheKeptChallengeAtOnceCountingTheNonceUp() async throws {
        let server = try LoopbackServer.shared.get()
        let user = "keeper-\(UUID().uuidString.prefix(6))"
        let origin = try #require(Origin(server.url("/")))
        let digest = Session(interceptors: [try DigestAuthentication(username: user, password: "pw", scope: .origins([origin]))])
        let first = try await digest.request(server.url("/digest-auth/auth/\(user)/pw/SHA-256")).validate().decode(Answer.self)
        let second = try await digest.request(server.url("/digest-auth/auth/\(user)/pw/SHA-256")).validate().decode(Answer.self)
        #expect(first.nc == "00000001")
        #expect(second.nc == "00000002")
        // One 401 in all: the second request needed none.
        #expect(first.challenges == 1 && second.challenges == 1, "\(first) \(second)")
    }

    @Test func aStaleNonceIsAnsweredAgainWithTheNewOne() async throws {
        let user = "stale-\(UUID().uuidString.prefix(6))"
        let server = try LoopbackServer.shared.get()
        let origin = try #require(Origin(server.url("/")))
        let digest = Session(interceptors: [try DigestAuthentication(username: user, password: "pw", scope: .origins([origin]))])
        let url = server.url("/digest-auth/auth/\(user)/pw/MD5?stale_after=1")
        _ = try await digest.request(url).validate()
        // The kept nonce has signed one request: the server calls it stale, and the new one works.
        let second = try await digest.request(url).validate().decode(Answer.self)
        #expect(second.authenticated)
        #expect(second.nc == "00000001")
        #expect(second.challenges == 2)
    }

    @Test func wrongCredentialsGetTheSecond401AsItIs() async throws {
        let user = "wrong-\(UUID().uuidString.prefix(6))"
        let server = try LoopbackServer.shared.get()
        let origin = try #require(Origin(server.url("/")))
        let digest = Session(interceptors: [try DigestAuthentication(username: user, password: "nope", scope: .origins([origin]))])
        let response = try await digest.request(server.url("/digest-auth/auth/\(user)/pw/MD5"))
        #expect(response.statusCode == 401)
        // The first 401 and the answer's: no loop.
        #expect(try response.decode(Answer.self).challenges == 2)
    }

    @Test func anOriginOutOfScopeGetsNoAnswer() async throws {
        let server = try LoopbackServer.shared.get()
        let digest = Session(interceptors: [
            try DigestAuthentication(username: "user", password: "pass", scope: .origins([Origin(scheme: "http", host: "example.org")])),
        ])
        let response = try await digest.request(server.url("/digest-auth/auth/user/pass/MD5"))
        #expect(response.statusCode == 401)
    }

    @Test func controlCharactersAreRefused() {
        #expect(throws: RequestError.self) { try DigestAuthentication(username: "a\nb", password: "p", scope: .anyOrigin) }
    }
}
