#if WebSocket
import Foundation
import Requests
import Testing

/// Messages both ways against Python's `websockets`.
@Suite struct EchoTests {
    @Test(arguments: [false, true])
    func textAndBinaryEchoUpTo16MiB(_ compressed: Bool) async throws {
        var options = WebSocketOptions()
        options.maximumMessageSize = 17 << 20
        options.maximumFrameSize = 17 << 20
        if compressed { options.compression = .perMessageDeflate() }
        let socket = try await socketSession().webSocket(try socketURL("/echo"), configuration: options)
        #expect(socket.response.statusCode == 101)
        #expect(socket.extensions.contains { $0.hasPrefix("permessage-deflate") } == compressed, "\(socket.extensions)")
        for size in [0, 1, 125, 126, 65535, 65536, 1 << 20, 16 << 20] {
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            try await socket.send(bytes)
            let text = String(repeating: "ü", count: size / 2)
            try await socket.send(text)
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .binary(bytes), "binary of \(size) bytes")
            #expect(try await messages.next() == .text(text), "text of \(size) bytes")
        }
        let closure = try await socket.close()
        #expect(closure.code == .normalClosure)
        #expect(closure.byPeer == false)
    }

    @Test func jsonMessagesBothWays() async throws {
        struct Quote: Codable, Equatable { let symbol: String; let price: Double }
        let socket = try await socketSession().webSocket(try socketURL("/echo"))
        try await socket.send(json: Quote(symbol: "ACME", price: 12.5))
        var messages = socket.messages.makeAsyncIterator()
        let message = try #require(try await messages.next())
        #expect(message == .text(#"{"price":12.5,"symbol":"ACME"}"#), "sorted keys: the same bytes every run")
        #expect(try message.decode(Quote.self) == Quote(symbol: "ACME", price: 12.5))
        try await socket.close()
    }

    @Test(arguments: ["text", "binary"])
    func fragmentedMessagesWithPingsBetweenFragments(_ type: String) async throws {
        let socket = try await socketSession().webSocket(try socketURL("/fragmented?size=300000&frags=7&type=\(type)"))
        var messages = socket.messages.makeAsyncIterator()
        let message = try #require(try await messages.next())
        switch message {
        case .text(let text): #expect(type == "text" && text == String(repeating: "é", count: 150_000))
        case .binary(let data): #expect(type == "binary" && data == Data((0..<300_000).map { UInt8($0 % 251) }))
        }
        try await socket.close()
    }

    @Test func subprotocolAndHandshakeFieldsReachTheCaller() async throws {
        let socket = try await socketSession().webSocket(
            try socketURL("/info"), protocols: ["superchat", "chat"], headers: ["X-Client": "tests"])
        #expect(socket.subprotocol == "superchat")
        #expect(socket.response.headers["Upgrade"]?.lowercased() == "websocket")
        var messages = socket.messages.makeAsyncIterator()
        struct Info: Decodable { let headers: [String: String]; let subprotocol: String? }
        let info = try #require(try await messages.next()).decode(Info.self)
        #expect(info.headers["x-client"] == "tests")
        #expect(info.headers["sec-websocket-protocol"] == "superchat, chat")
        #expect(info.subprotocol == "superchat")
        try await socket.close()
    }

    @Test func aSubprotocolThatWasNotOfferedIsRefused() async throws {
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await socketSession().webSocket(try socketURL("/echo"), protocols: ["rogue"])
        }
        #expect(error?.closure.code == .protocolError)
        #expect(error?.detail.contains("unoffered") == true, "\(String(describing: error))")
    }
}
#endif
