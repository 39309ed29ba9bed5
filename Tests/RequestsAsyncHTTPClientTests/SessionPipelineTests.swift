#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's pipeline over `AsyncHTTPClientTransport`, end to end against the loopback
/// server: retries, token refresh, redirects and cookies are the session's, and the engine does
/// none of them on its own.
@Suite struct SessionPipelineTests {
    // MARK: Retry

    @Test func aRetryPolicyRetriesTwo503sAndSucceeds() async throws {
        let key = uniqueKey("flaky")
        try await withTransport { transport in
            let session = Session(transport: transport, interceptors: [quickRetries()], cookies: .none)
            let response = try await session.request(try server().url("/flaky/\(key)/2"))
            #expect(response.statusCode == 200)
            #expect(response.failedAttempts.map(\.description) == ["#1 status 503", "#2 status 503"])
            #expect(try await Self.count(transport, "/flaky-count/\(key)") == 3)
        }
    }

    /// A connection the server drops without an answer is a failure of the trip, which the retry
    /// policy sees and retries: the transport does not send the request again on its own.
    @Test func aDroppedConnectionIsRetriedByThePolicyNotTheEngine() async throws {
        let key = uniqueKey("drop")
        try await withTransport { transport in
            let session = Session(transport: transport, interceptors: [quickRetries()], cookies: .none)
            let response = try await session.request(try server().url("/flaky/\(key)/1?close=1"))
            #expect(response.statusCode == 200)
            #expect(response.failedAttempts.map(\.description).first == "#1 connection lost",
                    "\(response.failedAttempts)")
            #expect(try await Self.count(transport, "/flaky-count/\(key)") == 2)
        }
    }

    @Test func theTransportAloneSendsARequestWhoseConnectionWasDroppedOnce() async throws {
        let key = uniqueKey("drop-alone")
        try await withTransport { transport in
            let outcome = await capture { try await exchange(transport, OutgoingRequest(url: try server().url("/flaky/\(key)/1?close=1"))) }
            let error = try #require(outcome.failure, "the dropped request was answered: the engine sent it again")
            #expect(TransportError.kind(of: error) == .connectionLost, "\(error)")
            #expect(try await Self.count(transport, "/flaky-count/\(key)") == 1)
        }
    }

    // MARK: Authentication

    @Test func aBearerTokenIsRefreshedOnA401AndTheRequestRetried() async throws {
        let realm = uniqueKey("realm")
        try await withTransport { transport in
            let server = try server()
            let tokens = ServerTokens(realm: realm, server: server, transport: transport, initial: "stale")
            let session = Session(
                transport: transport,
                modifiers: [ServerEnvironment(host: "127.0.0.1", scheme: "http", port: server.port)],
                interceptors: [BearerAuthentication(provider: tokens)],
                cookies: .none
            )
            let response = try await session.request("/bearer/\(realm)")
            #expect(response.statusCode == 200)
            #expect(response.request.value(forHTTPHeaderField: "Authorization") == "Bearer \(realm)-1")
            #expect(await tokens.refreshes == 1)
            let (_, data) = try await exchange(transport, OutgoingRequest(url: server.url("/bearer/\(realm)/stats")))
            let stats = try JSONDecoder().decode(BearerStats.self, from: data)
            #expect(stats.refreshes == 1 && stats.unauthorized == 1 && stats.requests == 2, "\(stats)")
        }
    }

    // MARK: Redirects

    @Test func redirectsAreFollowedByThePipelineAndNotByTheEngine() async throws {
        try await withTransport { transport in
            let (head, _) = try await exchange(transport, OutgoingRequest(url: try server().url("/redirect/2")))
            #expect(head.statusCode == 302)
            #expect(head.headers["Location"] == "/redirect/1")

            let session = Session(transport: transport, cookies: .none)
            let response = try await session.request(try server().url("/redirect/3"))
            #expect(response.statusCode == 200)
            #expect(response.redirects.map(\.path) == ["/redirect/3", "/redirect/2", "/redirect/1"])
            #expect(response.url?.path == "/redirect/0")
            let refused = await #expect(throws: RequestError.self) {
                try await session.request(try server().url("/redirect/3"), redirectPolicy: .follow(max: 2))
            }
            #expect(refused?.code == .tooManyRedirects)
        }
    }

    // MARK: Cookies

    @Test func cookiesAreKeptBySessionsAndNotByTheEngine() async throws {
        try await withTransport { transport in
            let (set, _) = try await exchange(transport, OutgoingRequest(url: try server().url("/cookies/set?engine=1")))
            #expect(set.headers.values(for: "Set-Cookie") == ["engine=1; Path=/"])
            let (_, alone) = try await exchange(transport, OutgoingRequest(url: try server().url("/cookies")))
            #expect(try JSONDecoder().decode(CookieEcho.self, from: alone).cookies == [:], "the engine sent a cookie")

            let session = Session(transport: transport, cookies: .inMemory())
            let stored = try await session.request(try server().url("/cookies/set?a=1&b=two"))
            #expect(stored.cookies.map(\.name).sorted() == ["a", "b"])
            #expect(try await session.request(try server().url("/cookies")).decode(CookieEcho.self).cookies == ["a": "1", "b": "two"])
            // Set during a redirect, sent to the next hop: the cookie and redirect stages together.
            let flow = try await Session(transport: transport, cookies: .inMemory()).request(try server().url("/login-flow"))
            #expect(flow.statusCode == 200)
            #expect(flow.redirects.map(\.path) == ["/login-flow", "/cookies/set"])
            // Another session over the same transport has a jar of its own.
            let other = Session(transport: transport, cookies: .inMemory())
            #expect(try await other.request(try server().url("/cookies")).decode(CookieEcho.self).cookies == [:])
        }
    }

    // MARK: Helpers

    private func quickRetries() -> RetryPolicy {
        RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20), maxDelay: .seconds(3))
    }

    /// A server counter, read over the transport alone.
    static func count(_ transport: AsyncHTTPClientTransport, _ path: String) async throws -> Int {
        struct Count: Decodable { let count: Int }
        let (_, data) = try await exchange(transport, OutgoingRequest(url: try server().url(path)))
        return try JSONDecoder().decode(Count.self, from: data).count
    }
}

// MARK: - Server answers

/// What `/cookies` answers.
private struct CookieEcho: Decodable { let cookies: [String: String] }

/// What `/bearer/<realm>/stats` answers.
private struct BearerStats: Decodable {
    let refreshes: Int
    let requests: Int
    let unauthorized: Int
    let valid: String
}

// MARK: - ServerTokens

/// Tokens that live on the loopback server's `/bearer/<realm>` endpoints, refreshed over the
/// transport alone (never through the authenticated session).
private actor ServerTokens: TokenProvider {
    let realm: String
    let server: LoopbackServer
    let transport: AsyncHTTPClientTransport
    private var current: String
    private(set) var refreshes = 0

    init(realm: String, server: LoopbackServer, transport: AsyncHTTPClientTransport, initial: String) {
        self.realm = realm
        self.server = server
        self.transport = transport
        self.current = initial
    }

    func token() async throws -> String {
        current
    }

    func refreshToken(rejected: String) async throws -> String {
        let (head, data) = try await exchange(transport, OutgoingRequest(url: server.url("/bearer/\(realm)/rotate")))
        guard head.statusCode == 200 else { throw RefreshRefused(status: head.statusCode) }
        struct Answer: Decodable { let token: String }
        current = try JSONDecoder().decode(Answer.self, from: data).token
        refreshes += 1
        return current
    }

    struct RefreshRefused: Error {
        let status: Int
    }
}
#endif
