#if WebSocket
import Foundation
import Requests
import Testing

/// Every way a connection ends, against Python's `websockets`.
@Suite struct CloseTests {
    @Test func theServerClosesWithACodeAndReason() async throws {
        let socket = try await socketSession().webSocket(try socketURL("/close?code=4000&reason=bye&after=1"))
        try await socket.send("one")
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == [.text("one")])
        #expect(socket.closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4000), reason: "bye", byPeer: true))
    }

    @Test func theClientClosesAndTheServerSeesItsCode() async throws {
        let id = UUID().uuidString
        let socket = try await socketSession().webSocket(try socketURL("/echo?id=\(id)"))
        let closure = try await socket.close(WebSocketCloseCode(rawValue: 4001), reason: "done here")
        #expect(closure.code == WebSocketCloseCode(rawValue: 4001), "the server's answer repeats the code")
        #expect(closure.byPeer == false)
        let report = try await self.report(id)
        #expect(report.close_code == 4001)
        #expect(report.close_reason == "done here")
    }

    @Test func aDroppedConnectionIs1006AndAnError() async throws {
        let socket = try await socketSession().webSocket(try socketURL("/abort?after=1"))
        try await socket.send("one")
        var received: [WebSocketMessage] = []
        let error = await #expect(throws: WebSocketError.self) {
            for try await message in socket.messages { received.append(message) }
        }
        #expect(received == [.text("one")])
        #expect(error?.closure.code == .abnormalClosure)
        #expect(socket.closure?.code == .abnormalClosure)
    }

    @Test func aPeerThatNeverAnswersTheCloseIsDroppedAfterTheCloseTimeout() async throws {
        var options = WebSocketOptions()
        options.closeTimeout = .milliseconds(300)
        let socket = try await socketSession().webSocket(try socketURL("/deaf"), configuration: options)
        let started = ContinuousClock.now
        let closure = try await socket.close()
        let took = ContinuousClock.now - started
        #expect(closure.code == .abnormalClosure || closure.code == .normalClosure, "\(closure)")
        #expect(took >= .milliseconds(300), "it waited for the answer")
        #expect(took < .seconds(30), "then it gave up")
        #expect(socket.closure != nil)
    }

    @Test func cancellingTheReaderClosesWith1001() async throws {
        let id = UUID().uuidString
        let socket = try await socketSession().webSocket(try socketURL("/echo?id=\(id)"))
        let reader = Task {
            for try await _ in socket.messages {}
        }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        _ = await reader.result
        let deadline = ContinuousClock.now + .seconds(30)
        while socket.closure == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let report = try await self.report(id)
        #expect(report.close_code == 1001)
    }

    @Test func theScopedFormClosesWith1000WhenTheBodyReturns() async throws {
        let id = UUID().uuidString
        let echoed = try await socketSession().withWebSocket(try socketURL("/echo?id=\(id)")) { socket in
            try await socket.send("ping")
            var messages = socket.messages.makeAsyncIterator()
            return try await messages.next()
        }
        #expect(echoed == .text("ping"))
        let report = try await self.report(id)
        #expect(report.close_code == 1000)
        #expect(report.messages == 1)
    }

    @Test func aMessageLargerThanTheLimitCloses1009() async throws {
        var options = WebSocketOptions()
        options.maximumMessageSize = 1000
        let socket = try await socketSession().webSocket(try socketURL("/big?size=5000&count=1"), configuration: options)
        let error = await #expect(throws: WebSocketError.self) {
            for try await _ in socket.messages {}
        }
        #expect(error?.closure.code == .messageTooBig, "\(String(describing: error?.detail))")
    }

    struct Report: Decodable {
        let close_code: Int?
        let close_reason: String?
        let messages: Int?
        var pings: Int?
    }

    /// What the server recorded of connection `id`, once that connection has ended.
    func report(_ id: String) async throws -> Report {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let socket = try await socketSession().webSocket(try socketURL("/report?id=\(id)"))
            var messages = socket.messages.makeAsyncIterator()
            let report = try #require(try await messages.next()).decode(Report.self)
            try await socket.close()
            if report.close_code != nil || ContinuousClock.now > deadline { return report }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
#endif
