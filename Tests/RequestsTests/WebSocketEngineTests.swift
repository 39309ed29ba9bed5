import Foundation
import Requests
import Testing

/// What `Session.webSocket` does over an engine that opens no WebSocket.
@Suite struct WebSocketEngineTests {
    @Test func urlSessionTransportNamesTheTraitAtTheCall() async throws {
        let session = Session(transport: URLSessionTransport())
        let error = await #expect(throws: RequestError.self) {
            _ = try await session.webSocket("ws://127.0.0.1:9/chat")
        }
        let text = error.map { String(describing: $0) } ?? ""
        #expect(text.contains("trait WebSocket"), "\(text)")
        #expect(text.contains("AsyncHTTPClientTransport"), "\(text)")
    }

    @Test func aJSONMessageIsTheSameBytesEveryRun() throws {
        #expect(WebSocketMessage.text("a").data == Data("a".utf8))
        let message = try WebSocketMessage.json(["b": 2, "a": 1])
        #expect(message == .text(#"{"a":1,"b":2}"#))
    }
}
