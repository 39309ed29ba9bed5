#if WebSocket
import Foundation
import Requests
import Testing

/// Pings, pongs and the keep-alive, against Python's `websockets` (and a route of it that
/// answers no ping); the close frame's rules.
@Suite struct PingTests {
    @Test func aPingReturnsOnceItsPongCame() async throws {
        let socket = try await socketSession().webSocket(try socketURL("/echo"))
        for _ in 0..<5 { try await socket.ping() }
        try await socket.send("still open")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("still open"))
        try await socket.close()
    }

    @Test func aPingWithoutItsPongDropsTheConnectionAndSaysWhy() async throws {
        let socket = try await socketSession().webSocket(try socketURL("/nopong"))
        let started = ContinuousClock.now
        let error = await #expect(throws: WebSocketError.self) {
            try await socket.ping(timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(error?.closure.code == .abnormalClosure)
        #expect(error?.detail.contains("no pong") == true, "\(String(describing: error))")
        #expect(socket.closure?.code == .abnormalClosure)
        await #expect(throws: WebSocketError.self) { try await socket.send("after") }
    }

    @Test func theKeepAliveFailsAConnectionWhosePongNeverComes() async throws {
        let id = UUID().uuidString
        var options = WebSocketOptions()
        options.pingInterval = .milliseconds(100)
        options.pongTimeout = .milliseconds(300)
        let socket = try await socketSession().webSocket(try socketURL("/nopong?id=\(id)"), configuration: options)
        try await socket.send("one")
        var received: [WebSocketMessage] = []
        let error = await #expect(throws: WebSocketError.self) {
            for try await message in socket.messages { received.append(message) }
        }
        #expect(received == [.text("one")])
        #expect(error?.closure.code == .abnormalClosure)
        #expect(error?.detail.contains("no pong") == true, "\(String(describing: error))")
        let report = try await CloseTests().report(id)
        #expect((report.pings ?? 0) >= 1, "the server saw the keep-alive's ping")
    }

    @Test func theKeepAliveKeepsAnAnsweringPeerOpen() async throws {
        var options = WebSocketOptions()
        options.pingInterval = .milliseconds(50)
        // Generous: a loaded machine may answer late, and this test is about staying open.
        options.pongTimeout = .seconds(30)
        let socket = try await socketSession().webSocket(try socketURL("/echo"), configuration: options)
        try await Task.sleep(for: .milliseconds(600))
        #expect(socket.closure == nil)
        try await socket.send("after pings")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("after pings"))
        try await socket.close()
    }

    @Test func aCloseCodeOnlyReportedOrTooLongAReasonIsRefusedAndTheSocketStaysOpen() async throws {
        let socket = try await socketSession().webSocket(try socketURL("/echo"))
        for code in [1005, 1006, 1015, 999, 2000, 5000] {
            let error = await #expect(throws: WebSocketError.self) {
                try await socket.close(WebSocketCloseCode(rawValue: UInt16(code)))
            }
            #expect(error?.detail.contains("\(code)") == true, "\(String(describing: error))")
        }
        let tooLong = String(repeating: "é", count: 62)  // 124 bytes
        let error = await #expect(throws: WebSocketError.self) { try await socket.close(reason: tooLong) }
        #expect(error?.detail.contains("124 bytes") == true, "\(String(describing: error))")
        #expect(socket.closure == nil)
        try await socket.send("open")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("open"))
        let closure = try await socket.close(WebSocketCloseCode(rawValue: 4000), reason: String(repeating: "a", count: 123))
        #expect(closure.code == WebSocketCloseCode(rawValue: 4000))
    }

    @Test func aSendWhileThisSideClosesIsRefused() async throws {
        var options = WebSocketOptions()
        options.closeTimeout = .seconds(2)
        let socket = try await socketSession().webSocket(try socketURL("/deaf"), configuration: options)
        let closing = Task { try await socket.close() }
        // The close is under way (the deaf peer never answers): a send is refused, not queued.
        var refused: WebSocketError?
        let deadline = ContinuousClock.now + .seconds(30)
        while refused == nil, ContinuousClock.now < deadline {
            do {
                try await socket.send("late")
                try await Task.sleep(for: .milliseconds(5))
            } catch let error as WebSocketError {
                refused = error
            }
        }
        #expect(refused?.detail.contains("after close()") == true || socket.closure != nil, "\(String(describing: refused))")
        _ = try await closing.value
    }
}
#endif
