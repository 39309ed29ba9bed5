import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// The buffer between `URLSessionTransport`'s delegate and a body's reader.
@Suite struct StreamBufferTests {
    let request = (method: HTTPMethod.get, url: URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/"))

    /// A reader that fell behind takes what waits in pieces of up to 256 KiB, every byte in
    /// order, instead of one call per 16 KiB the network handed over.
    @Test func aReaderBehindTakesWhatWaitsInOnePiece() async throws {
        let buffer = StreamBuffer(request: request, limit: 4 << 20)
        var sent = Data()
        for index in 0..<40 {
            let chunk = Data(repeating: UInt8(index), count: 16 << 10)
            sent.append(chunk)
            buffer.receive(chunk)
        }
        buffer.complete(nil)
        var pieces: [Int] = []
        var received = Data()
        while let piece = try await buffer.next() {
            pieces.append(piece.count)
            received.append(piece)
        }
        #expect(received == sent)
        #expect(pieces == [StreamBuffer.batchBytes, StreamBuffer.batchBytes, 40 * (16 << 10) - 2 * StreamBuffer.batchBytes])
    }

    /// A reader that keeps up gets each chunk as it came: nothing waits to be joined.
    @Test func aReaderThatKeepsUpGetsEachChunk() async throws {
        let buffer = StreamBuffer(request: request, limit: 4 << 20)
        for size in [100, 70_000, 5] {
            buffer.receive(Data(repeating: 1, count: size))
            let piece = try await buffer.next()
            #expect(piece?.count == size)
        }
        buffer.complete(nil)
        #expect(try await buffer.next() == nil)
    }

    /// A chunk larger than a piece is handed over whole, never split.
    @Test func aChunkLargerThanAPieceIsNotSplit() async throws {
        let buffer = StreamBuffer(request: request, limit: 4 << 20)
        buffer.receive(Data(repeating: 2, count: 300 << 10))
        buffer.receive(Data(repeating: 3, count: 10))
        buffer.complete(nil)
        #expect(try await buffer.next()?.count == 300 << 10)
        #expect(try await buffer.next() == Data(repeating: 3, count: 10))
        #expect(try await buffer.next() == nil)
    }
}
