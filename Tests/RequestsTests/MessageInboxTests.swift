import Foundation
@testable import Requests
import Testing

/// The bounded inbox between a connection's reading task and the socket's readers.
@Suite struct MessageInboxTests {
    private func text(_ n: Int) -> WebSocketMessage { .text("m\(n)") }

    @Test func twoReadersAtOnceEachGetAMessageAndNoneIsLost() async throws {
        let inbox = MessageInbox(limit: 4)
        async let first = inbox.pop()
        async let second = inbox.pop()
        try await Task.sleep(for: .milliseconds(20))
        try await inbox.push(text(1))
        try await inbox.push(text(2))
        let got = try await [first, second].compactMap { $0 }
        #expect(Set(got) == [text(1), text(2)])
    }

    @Test func twoWritersPastTheLimitBothWaitAndBothArriveInOrder() async throws {
        let inbox = MessageInbox(limit: 1)
        try await inbox.push(text(1))
        let pushed = Guarded(0)
        let a = Task { try await inbox.push(text(2)); pushed.withLock { $0 += 1 } }
        try await Task.sleep(for: .milliseconds(20))
        let b = Task { try await inbox.push(text(3)); pushed.withLock { $0 += 1 } }
        try await Task.sleep(for: .milliseconds(20))
        #expect(pushed.withLock { $0 } == 0)
        var got: [WebSocketMessage] = []
        for _ in 0..<3 { got.append(try #require(try await inbox.pop())) }
        try await a.value
        try await b.value
        #expect(got == [text(1), text(2), text(3)])
    }

    @Test func aWriterCancelledWhileItWaitsQueuedNothing() async throws {
        let inbox = MessageInbox(limit: 1)
        try await inbox.push(text(1))
        let writer = Task { try await inbox.push(text(2)) }
        try await Task.sleep(for: .milliseconds(20))
        writer.cancel()
        await #expect(throws: CancellationError.self) { try await writer.value }
        // A later writer is not refused because an earlier one was cancelled.
        let later = Task { try await inbox.push(text(3)) }
        #expect(try await inbox.pop() == text(1))
        try await later.value
        #expect(try await inbox.pop() == text(3))
    }

    @Test func aReaderCancelledWhileItWaitsTakesNothingAndTheNextReaderGetsIt() async throws {
        let inbox = MessageInbox(limit: 2)
        let reader = Task { try await inbox.pop() }
        try await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        try await inbox.push(text(1))
        #expect(try await inbox.pop() == text(1))
    }

    @Test func theEndDeliversWhatIsQueuedAndWhatWritersHeldThenNil() async throws {
        let inbox = MessageInbox(limit: 1)
        try await inbox.push(text(1))
        let writer = Task { try await inbox.push(text(2)) }
        try await Task.sleep(for: .milliseconds(20))
        inbox.finish(nil)
        try await writer.value
        #expect(try await inbox.pop() == text(1))
        #expect(try await inbox.pop() == text(2))
        #expect(try await inbox.pop() == nil)
        await #expect(throws: CancellationError.self) { try await inbox.push(text(3)) }
    }

    @Test func aFailureReachesTheReaderAfterTheQueuedMessages() async throws {
        struct Broken: Error {}
        let inbox = MessageInbox(limit: 4)
        try await inbox.push(text(1))
        inbox.finish(Broken())
        #expect(try await inbox.pop() == text(1))
        await #expect(throws: Broken.self) { try await inbox.pop() }
    }

    @Test func drainingDropsWhatIsQueuedAndReleasesWaitingWriters() async throws {
        let inbox = MessageInbox(limit: 1)
        try await inbox.push(text(1))
        let writer = Task { try await inbox.push(text(2)) }
        try await Task.sleep(for: .milliseconds(20))
        inbox.drain()
        try await writer.value
        try await inbox.push(text(3))
        inbox.finish(nil)
        #expect(try await inbox.pop() == nil)
    }

    @Test func manyWritersAndReadersAtOnceLoseNothing() async throws {
        let inbox = MessageInbox(limit: 3)
        let total = 400
        try await withThrowingTaskGroup(of: [WebSocketMessage].self) { group in
            for w in 0..<4 {
                group.addTask {
                    for i in 0..<(total / 4) { try await inbox.push(self.text(w * 1_000 + i)) }
                    return []
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    var got: [WebSocketMessage] = []
                    for _ in 0..<(total / 4) { got.append(try #require(try await inbox.pop())) }
                    return got
                }
            }
            var all: [WebSocketMessage] = []
            for try await part in group { all += part }
            #expect(all.count == total)
            #expect(Set(all).count == total)
        }
    }
}
