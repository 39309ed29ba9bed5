import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TransportContract
import RequestsTesting
import LoopbackFixture
@testable import Requests

/// A token provider whose tokens live on the loopback server's `/bearer/<realm>` endpoints.
/// It refreshes through plain `URLSession`, never through the authenticated session.
private final class ServerTokens: TokenProvider {
    let realm: String
    let server: LoopbackServer
    let failing: Bool
    let stored: Guarded<String>
    let refreshCalls = Guarded(0)

    init(realm: String, server: LoopbackServer, initial: String, failing: Bool = false) {
        self.realm = realm
        self.server = server
        self.failing = failing
        self.stored = Guarded(initial)
    }

    func token() async throws -> String {
        stored.withLock { $0 }
    }

    func refreshToken(rejected: String) async throws -> String {
        refreshCalls.withLock { $0 += 1 }
        let url = server.url("/bearer/\(realm)/rotate?delay=0.2" + (failing ? "&fail=1" : ""))
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw RefreshRefused(body: String(decoding: data, as: UTF8.self))
        }
        struct Answer: Decodable { let token: String }
        let token = try JSONDecoder().decode(Answer.self, from: data).token
        stored.withLock { $0 = token }
        return token
    }

    struct RefreshRefused: Error, CustomStringConvertible {
        let body: String
        var description: String { "the token endpoint said \"\(body)\"" }
    }
}

/// What `/bearer/<realm>/stats` answers.
private struct BearerStats: Decodable {
    let refreshes: Int
    let requests: Int
    let unauthorized: Int
    let valid: String
}

private func bearerStats(_ realm: String) async throws -> BearerStats {
    let (data, _) = try await URLSession.shared.data(from: try server().url("/bearer/\(realm)/stats"))
    return try JSONDecoder().decode(BearerStats.self, from: data)
}

/// A session whose ServerEnvironment is the loopback server.
private func sessionOnServer(_ interceptors: [any Interceptor], monitors: [any EventMonitor] = []) throws -> Session {
    let server = try server()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 64
    return Session(
        configuration: configuration,
        modifiers: [ServerEnvironment(host: "127.0.0.1", scheme: "http", port: server.port)],
        interceptors: interceptors, monitors: monitors
    )
}

/// Basic and bearer authentication against the loopback server, and where credentials may go.
@Suite struct AuthenticationTests {
    // MARK: Basic

    @Test func basicCredentialsAreSentAsUTF8() async throws {
        let session = try sessionOnServer([try BasicAuthentication(username: "zaphod", password: "pässwörd ☕")])
        let response = try await session.request("/basic-auth/zaphod/p%C3%A4ssw%C3%B6rd%20%E2%98%95")
        #expect(response.statusCode == 200)
        #expect(response.request.value(forHTTPHeaderField: "Authorization") == "Basic " + Data("zaphod:pässwörd ☕".utf8).base64EncodedString())
    }

    /// FoundationNetworking never finishes a task whose 401 carries `WWW-Authenticate: Basic`
    /// unless the transport declines the challenge; the timeout turns a regression into a failure.
    @Test func wrongBasicCredentialsGetThe401InsteadOfAHang() async throws {
        let session = try sessionOnServer([try BasicAuthentication(username: "zaphod", password: "wrong")])
        // A hang meets the timeout on every try; a runtime stalled past it voids a try.
        let response = try await retryingWhenLate { _ in
            try await session.request("/basic-auth/zaphod/right", timeout: .seconds(10))
        }
        #expect(response.statusCode == 401)
        #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Basic realm=") == true)
    }

    @Test(arguments: ["a:b", ":", "user:"])
    func aColonInTheUserNameIsRefused(username: String) throws {
        let error = try #require(throws: RequestError.self) { try BasicAuthentication(username: username, password: "x") }
        #expect(error.code == .authenticationFailed)
        #expect(error.description.contains("contains \":\", which Basic authentication (RFC 7617) cannot carry"))
    }

    @Test(arguments: [("a\nb", "x"), ("a", "x\r\ny"), ("a", "\u{0}")])
    func controlCharactersAreRefused(username: String, password: String) throws {
        let error = try #require(throws: RequestError.self) { try BasicAuthentication(username: username, password: password) }
        #expect(error.code == .authenticationFailed)
        #expect(error.description.contains("control character"))
    }

    @Test func aColonInThePasswordIsFine() async throws {
        let session = try sessionOnServer([try BasicAuthentication(username: "u", password: "a:b")])
        #expect(try await session.request("/basic-auth/u/a%3Ab").statusCode == 200)
    }

    // MARK: Bearer

    @Test func aValidTokenIsSentAndNotRefreshed() async throws {
        let realm = "valid-\(UUID().uuidString.prefix(8))"
        let tokens = ServerTokens(realm: realm, server: try server(), initial: "\(realm)-0")
        let session = try sessionOnServer([BearerAuthentication(provider: tokens)])
        let response = try await session.request("/bearer/\(realm)")
        #expect(response.statusCode == 200)
        #expect(tokens.refreshCalls.withLock { $0 } == 0)
    }

    @Test func fiftyConcurrent401sCauseExactlyOneRefreshAndAllAreRetriedWithTheNewToken() async throws {
        let realm = "flight-\(UUID().uuidString.prefix(8))"
        let tokens = ServerTokens(realm: realm, server: try server(), initial: "stale")
        let monitor = RecordingMonitor()
        let session = try sessionOnServer([BearerAuthentication(provider: tokens)], monitors: [monitor])
        // The server holds its 401s until all 50 have arrived: however the requests are scheduled,
        // each meets the stale token first, and no refresh can finish before the last is sent.
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let response = try await session.request("/bearer/\(realm)?hold=50")
                    return (response.statusCode, response.request.value(forHTTPHeaderField: "Authorization"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0 == (200, "Bearer \(realm)-1") })
        let stats = try await bearerStats(realm)
        #expect(stats.refreshes == 1)
        #expect(tokens.refreshCalls.withLock { $0 } == 1)
        #expect(stats.unauthorized == 50, "every request was first sent with the stale token")
        #expect(stats.requests == 100)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestSayingWhy() async throws {
        let realm = "refuse-\(UUID().uuidString.prefix(8))"
        let tokens = ServerTokens(realm: realm, server: try server(), initial: "stale", failing: true)
        let session = try sessionOnServer([BearerAuthentication(provider: tokens)])
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await session.request("/bearer/\(realm)")
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors.count == 10)
        var after401 = 0
        for error in errors {
            let error = try #require(error as? RequestError)
            #expect(error.code == .authenticationFailed)
            #expect(error.description.contains("the token endpoint said \"refresh refused\""))
            // A request the scheduler starts only after the failed refresh asks for a token
            // afresh and fails before sending; one sent with the stale token fails after its 401.
            if error.statusCode == 401 {
                #expect(error.description.contains("refreshing the token after a 401 failed"))
                after401 += 1
            } else {
                #expect(error.description.contains("could not get a token"), "\(error)")
            }
        }
        #expect(after401 >= 1)
        #expect(tokens.refreshCalls.withLock { $0 } <= 10)
        #expect(tokens.refreshCalls.withLock { $0 } >= 1)
    }

    @Test func aSecond401IsReturnedWithoutAnotherRefresh() async throws {
        let realm = "twice-\(UUID().uuidString.prefix(8))"
        /// Refreshes to a token the server never accepts.
        struct Useless: TokenProvider {
            let calls = Guarded(0)
            func token() async throws -> String { "old" }
            func refreshToken(rejected: String) async throws -> String {
                calls.withLock { $0 += 1 }
                return "still-wrong"
            }
        }
        let tokens = Useless()
        let session = try sessionOnServer([BearerAuthentication(provider: tokens)])
        let response = try await session.request("/bearer/\(realm)")
        #expect(response.statusCode == 401)
        #expect(response.request.value(forHTTPHeaderField: "Authorization") == "Bearer still-wrong")
        #expect(tokens.calls.withLock { $0 } == 1)
    }

    /// A token that would split the header (read with its line break, say) stops the request
    /// before it is sent, naming the header; it is never sent, and never silently left out.
    @Test func aTokenWithALineBreakStopsTheRequest() async throws {
        struct Broken: TokenProvider {
            func token() async throws -> String { "abc\r\nX-Evil: 1" }
            func refreshToken(rejected: String) async throws -> String { rejected }
        }
        let transport = MockTransport()
        let session = Session(transport: transport, modifiers: [ServerEnvironment(host: "api.example.com")],
                              interceptors: [BearerAuthentication(provider: Broken())])
        do {
            _ = try await session.request("items")
            Issue.record("a request with a broken token was sent")
        } catch let error as RequestError {
            #expect(error.code == .encodingFailed)
            #expect(error.description.contains("header"))
        }
        #expect(transport.requests.isEmpty)
    }

    // MARK: Scope

    @Test func credentialsAreNotSentToAForeignOrigin() async throws {
        let foreign = try LoopbackServer()
        defer { foreign.stop() }
        let session = try sessionOnServer([
            try BasicAuthentication(username: "u", password: "p"),
            BearerAuthentication(provider: ServerTokens(realm: "x", server: try server(), initial: "secret")),
        ])
        let home = try await session.request("/headers").decode(HeaderList.self)
        #expect(home.value("Authorization")?.hasPrefix("Basic ") == true)
        let away = try await session.request(foreign.url("/headers")).decode(HeaderList.self)
        #expect(away.value("Authorization") == nil)
        // The same host on another port is another origin too.
        #expect(foreign.port != (try server().port))
    }

    @Test func anExplicitScopeAndAnyOriginAreHonoured() async throws {
        let foreign = try LoopbackServer()
        defer { foreign.stop() }
        let only = Session(interceptors: [
            BearerAuthentication(provider: ServerTokens(realm: "x", server: foreign, initial: "t"), scope: .origins([try Origin(foreign.baseURL)])),
        ])
        #expect(try await only.request(foreign.url("/headers")).decode(HeaderList.self).value("Authorization") == "Bearer t")
        #expect(try await only.request(try server().url("/headers")).decode(HeaderList.self).value("Authorization") == nil)
        let any = Session(interceptors: [try BasicAuthentication(username: "u", password: "p", scope: .anyOrigin)])
        #expect(try await any.request(foreign.url("/headers")).decode(HeaderList.self).value("Authorization") != nil)
    }

    @Test func withoutAServerEnvironmentTheDefaultScopeIsAClearError() async throws {
        let transport = StubTransport()
        transport.on(respond: .status(200))
        let session = Session(transport: transport, interceptors: [try BasicAuthentication(username: "u", password: "p")])
        let error = await #expect(throws: RequestError.self) { try await session.request("https://example.com/a") }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.description.contains("BasicAuthentication has no origin to send credentials to") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test func aRequestWithItsOwnAuthorizationIsLeftAlone() async throws {
        let transport = StubTransport()
        let mine = transport.on(headers: ["Authorization": "Token mine"], respond: .status(200))
        let session = Session(transport: transport, interceptors: [try BasicAuthentication(username: "u", password: "p", scope: .anyOrigin)])
        _ = try await session.request("https://example.com/a", headers: ["Authorization": "Token mine"])
        try mine.expectHits(1)
        #expect(transport.requests.first?.headers.values(for: "Authorization") == ["Token mine"])
    }

    @Test func originsCompareSchemeHostAndPortWithDefaultPorts() throws {
        let origin = try Origin("https://API.example.com")
        #expect(origin.port == 443)
        #expect(origin.description == "https://api.example.com")
        #expect(origin.contains(try #require(URL(string: "https://api.example.com:443/v1"))))
        #expect(!origin.contains(try #require(URL(string: "http://api.example.com/v1"))))
        #expect(!origin.contains(try #require(URL(string: "https://api.example.com:8443/v1"))))
        #expect(!origin.contains(try #require(URL(string: "https://evil.example.com/v1"))))
        #expect(Origin(try #require(URL(string: "/relative"))) == nil)
        #expect(throws: ParameterEncodingError.self) { try Origin("relative/path") }
    }
}

/// What `/headers` answers.
struct HeaderList: Decodable {
    let headers: [[String]]

    func value(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}
