#if WebSocket
import Foundation
import Requests
import Testing

/// Back-pressure both ways over the real engine, against Python's websockets.
@Suite struct BackPressureTests {
    struct Sent: Decodable { let sent: Int? }

    func sent(_ id: String) async throws -> Int {
        let socket = try await socketSession().webSocket(try socketURL("/report?id=\(id)"))
        var messages = socket.messages.makeAsyncIterator()
        let report = try #require(try await messages.next()).decode(Sent.self)
        try await socket.close()
        return report.sent ?? 0
    }

    /// 1,000 messages of 64 KiB (62.5 MiB) to a reader that does not read: the server's sends
    /// stop once the inbox, the channel and the socket buffers are full, and all arrive once
    /// the reader reads.
    @Test func aSlowReaderStopsReadingFromTheSocket() async throws {
        let id = UUID().uuidString
        let socket = try await socketSession().webSocket(try socketURL("/big?size=65536&count=1000&id=\(id)"))
        try await Task.sleep(for: .milliseconds(500))
        // Wait until the server stops making progress: a loaded machine only delays that point.
        var stalled = try await sent(id)
        while true {
            try await Task.sleep(for: .milliseconds(300))
            let now = try await sent(id)
            if now == stalled { break }
            stalled = now
        }
        #expect(stalled < 300, "at most some MiB of the 62.5 MiB are taken while nobody reads (\(stalled) messages)")
        var count = 0
        var bytes = 0
        for try await message in socket.messages {
            count += 1
            bytes += message.data.count
        }
        #expect(count == 1000)
        #expect(bytes == 1000 * 65536)
        #expect(socket.closure?.code == .normalClosure)
    }

    /// A peer that does not read: `send` waits once the socket's buffers are full, instead of
    /// buffering without limit.
    @Test func sendWaitsWhileThePeerDoesNotRead() async throws {
        var options = WebSocketOptions()
        options.closeTimeout = .milliseconds(200)
        let socket = try await socketSession().webSocket(try socketURL("/silent"), configuration: options)
        let sent = Guarded(0)
        let block = Data(repeating: 7, count: 65536)
        let sender = Task {
            for _ in 0..<4000 {
                try await socket.send(block)
                sent.withLock { $0 += 1 }
            }
        }
        var stalled = 0
        while true {
            try await Task.sleep(for: .milliseconds(300))
            let now = sent.withLock { $0 }
            if now == stalled { break }
            stalled = now
        }
        #expect(stalled < 1000, "the sender waits once the socket buffers are full (\(stalled) of 4,000 sent)")
        try await socket.close()
        sender.cancel()
        _ = await sender.result
    }
}
#endif
