import Foundation
import Requests
import RequestsTesting
import Testing

/// `Session.webSocket` over `StubTransport`'s scripted peer: the socket's rules and the
/// handshake's pipeline, no server.
@Suite struct StubWebSocketTests {
    let url = "wss://chat.example.com/rooms/7"

    @Test func messagesBothWaysAndTheClientsClose() async throws {
        let stub = StubTransport()
        let seen = Guarded<WebSocketClosure?>(nil)
        stub.on(.get, "/rooms/7", respond: .webSocket { peer in
            while let message = try await peer.receive() { try await peer.send(message) }
            seen.withLock { $0 = peer.closure }
        })
        let socket = try await Session(transport: stub).webSocket(url, protocols: ["chat.v2"])
        #expect(socket.response.statusCode == 101)
        #expect(socket.subprotocol == "chat.v2")
        #expect(stub.requests.first?.url.scheme == "https", "wss is sent as https")
        try await socket.send("hi")
        try await socket.send(Data([1, 2, 3]))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("hi"))
        #expect(try await messages.next() == .binary(Data([1, 2, 3])))
        try await socket.close(WebSocketCloseCode(rawValue: 4000), reason: "bye")
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(seen.withLock { $0 } == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4000), reason: "bye", byPeer: false))
    }

    @Test func thePeersCloseEndsTheMessagesWithItsCode() async throws {
        let stub = StubTransport()
        stub.on(.get, "/rooms/7", respond: .webSocket { peer in
            try await peer.send(.text("last"))
            peer.close(.goingAway, reason: "market closed")
        })
        let socket = try await Session(transport: stub).webSocket(url)
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == [.text("last")])
        #expect(socket.closure == WebSocketClosure(code: .goingAway, reason: "market closed", byPeer: true))
    }

    @Test func aLoopOverASocketKeptNowhereElseReadsToTheEnd() async throws {
        let stub = StubTransport()
        stub.on(.get, "/rooms/7", respond: .webSocket { peer in
            for index in 0..<20 { try await peer.send(.text("\(index)")) }
        })
        var received: [WebSocketMessage] = []
        for try await message in try await Session(transport: stub).webSocket(url).messages {
            received.append(message)
            await Task.yield()
        }
        #expect(received == (0..<20).map { .text("\($0)") }, "the loop holds the socket: nothing closes it early")
    }

    @Test func aDroppedConnectionFailsTheReaderWith1006() async throws {
        let stub = StubTransport()
        stub.on(.get, "/rooms/7", respond: .webSocket { peer in peer.drop() })
        let socket = try await Session(transport: stub).webSocket(url)
        let error = await #expect(throws: WebSocketError.self) {
            for try await _ in socket.messages {}
        }
        #expect(error?.closure.code == .abnormalClosure)
    }

    @Test func a401IsRefreshedAndA503RetriedBeforeTheUpgrade() async throws {
        let stub = StubTransport()
        stub.on(.get, "/rooms/7", respond: .status(401, headers: ["WWW-Authenticate": "Bearer"]), .status(503), .webSocket { peer in
            try await peer.send(.text(peer.request.headers["Authorization"] ?? "none"))
        })
        let tokens = Tokens()
        let session = Session(
            transport: stub,
            interceptors: [RetryPolicy(baseDelay: .milliseconds(1)), BearerAuthentication(provider: tokens, scope: .anyOrigin)]
        )
        let socket = try await session.webSocket(url)
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("Bearer fresh"))
        #expect(stub.requests.count == 3, "401, then 503, then the upgrade")
        #expect(tokens.refreshes.withLock { $0 } == 1)
    }

    @Test func aHandshakeAnsweredOtherThan101IsAnErrorWithTheResponse() async throws {
        let stub = StubTransport()
        stub.on(.get, "/rooms/7", respond: .text("no sockets here", status: 404))
        let error = await #expect(throws: RequestError.self) { _ = try await Session(transport: stub).webSocket(url) }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.response?.statusCode == 404)
        #expect(error.map { String(describing: $0) }?.contains("no sockets here") == true)
    }

    @Test func aPlainRequestToASocketRouteIs426() async throws {
        let stub = StubTransport()
        stub.on(.get, "/rooms/7", respond: .webSocket { _ in })
        let response = try await Session(transport: stub).request("https://chat.example.com/rooms/7")
        #expect(response.statusCode == 426)
    }

    @Test func aSlowReaderHoldsThePeersSends() async throws {
        let stub = StubTransport()
        let sent = Guarded(0)
        stub.on(.get, "/rooms/7", respond: .webSocket { peer in
            for index in 0..<100 {
                try await peer.send(.text("\(index)"))
                sent.withLock { $0 += 1 }
            }
        })
        var options = WebSocketOptions()
        options.bufferedMessages = 4
        let socket = try await Session(transport: stub).webSocket(url, configuration: options)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.withLock { $0 } <= 5, "the peer waits once the reader's buffer is full")
        var count = 0
        for try await _ in socket.messages { count += 1 }
        #expect(count == 100)
    }
}

/// Tokens that start stale and are fresh after one refresh.
final class Tokens: TokenProvider {
    let refreshes = Guarded(0)
    private let current = Guarded("stale")

    func token() async throws -> String { current.withLock { $0 } }

    func refreshToken(rejected: String) async throws -> String {
        refreshes.withLock { $0 += 1 }
        current.withLock { $0 = "fresh" }
        return "fresh"
    }
}
