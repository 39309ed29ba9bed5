#if WebSocket
import Foundation
import Requests
import Testing

/// The handshake as a call through the whole pipeline, against Python's `websockets`. One test
/// at a time: they read the server's counts.
@Suite(.serialized) struct PipelineTests {
    struct Counts: Decodable {
        let unauthorized: Int
        let flaky: Int
        let redirects: Int
    }

    func counts() async throws -> Counts {
        try await socketSession().request(try peer.get().url("/counts")).decode(Counts.self)
    }

    /// The first text message of a socket.
    func first(_ socket: WebSocket) async throws -> String? {
        var messages = socket.messages.makeAsyncIterator()
        guard case .text(let text) = try await messages.next() else { return nil }
        return text
    }

    @Test func a401IsRefreshedOnceAndTheHandshakeSentAgain() async throws {
        let tokens = StaleThenFresh()
        let before = try await counts().unauthorized
        let session = socketSession([BearerAuthentication(provider: tokens, scope: .anyOrigin)])
        let socket = try await session.webSocket(try socketURL("/auth"))
        try await socket.send("after refresh")
        #expect(try await first(socket) == "after refresh")
        #expect(tokens.refreshes.withLock { $0 } == 1)
        #expect(try await counts().unauthorized == before + 1)
        try await socket.close()
    }

    @Test func a503BeforeTheUpgradeIsRetried() async throws {
        let before = try await counts().flaky
        let session = socketSession([RetryPolicy(baseDelay: .milliseconds(10))])
        let socket = try await session.webSocket(try socketURL("/flaky?id=\(UUID().uuidString)"))
        try await socket.send("after retry")
        #expect(try await first(socket) == "after retry")
        #expect(try await counts().flaky == before + 1)
        try await socket.close()
    }

    @Test func aRedirectIsFollowed() async throws {
        let before = try await counts().redirects
        let socket = try await socketSession().webSocket(try socketURL("/redirect"))
        #expect(socket.response.url?.path == "/echo")
        try await socket.send("redirected")
        #expect(try await first(socket) == "redirected")
        #expect(try await counts().redirects == before + 1)
        try await socket.close()
    }

    @Test func aRedirectIsNotFollowedWhenThePolicySaysSo() async throws {
        let error = await #expect(throws: RequestError.self) {
            _ = try await socketSession().webSocket(try socketURL("/redirect"), redirectPolicy: .doNotFollow)
        }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.response?.statusCode == 302)
    }

    @Test func cookiesAreStoredFromTheHandshakeAndSentOnTheNext() async throws {
        let session = socketSession()
        let first = try await session.webSocket(try socketURL("/cookie"))
        #expect(try await self.first(first) == "cookie=", "none yet")
        try await first.close()
        let second = try await session.webSocket(try socketURL("/cookie"))
        #expect(try await self.first(second) == "cookie=ws-session=abc")
        try await second.close()
    }

    @Test func aRelativeURLTakesTheServerEnvironmentsBase() async throws {
        let environment = ServerEnvironment(host: "127.0.0.1", scheme: "http", port: try peer.get().port)
        let session = Session(transport: engine, modifiers: [environment])
        let socket = try await session.webSocket("/echo")
        try await socket.send("relative")
        #expect(try await first(socket) == "relative")
        try await socket.close()
    }

    @Test func monitorsSeeTheHandshake() async throws {
        let monitor = Recorder()
        let session = Session(transport: engine, monitors: [monitor])
        let socket = try await session.webSocket(try socketURL("/echo"))
        try await socket.close()
        #expect(monitor.statuses.withLock { $0 } == [101])
        #expect(monitor.urls.withLock { $0 }.first?.scheme == "http", "the handshake is HTTP")
    }

    @Test func aRefusedHandshakeIsAnErrorWithTheResponse() async throws {
        let error = await #expect(throws: RequestError.self) {
            _ = try await socketSession().webSocket(try socketURL("/auth"))
        }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.response?.statusCode == 401)
        #expect(error.map { String(describing: $0) }?.contains("token expired") == true, "the body is shown")
    }
}

/// Tokens that start stale and are fresh after one refresh.
final class StaleThenFresh: TokenProvider {
    let refreshes = Guarded(0)
    private let current = Guarded("stale")

    func token() async throws -> String { current.withLock { $0 } }

    func refreshToken(rejected: String) async throws -> String {
        refreshes.withLock { $0 += 1 }
        current.withLock { $0 = "fresh" }
        return "fresh"
    }
}

/// Records the statuses and URLs the monitors hear of.
final class Recorder: EventMonitor {
    let statuses = Guarded<[Int]>([])
    let urls = Guarded<[URL]>([])

    func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
        urls.withLock { $0.append(request.url) }
    }

    func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        statuses.withLock { $0.append(response.statusCode) }
    }
}
#endif
