import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// The transfer between an engine (`URLSessionTransport`'s delegate) and a body's reader.
@Suite struct TransferStreamTests {
    let request = (method: HTTPMethod.get, url: URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/"))

    /// A transfer as URLSessionTransport makes one on Linux: 4 MiB in memory, no pause.
    func makeStream(limit: Int = 4 << 20) -> TransferStream {
        let stream = TransferStream(request: request, buffering: ChunkQueue.Limits(bytes: limit, enginePauses: false), stop: { _ in })
        stream.receive(head: ResponseHead(statusCode: 200, url: request.url))
        return stream
    }

    /// A reader that fell behind takes what waits in pieces of up to 256 KiB, every byte in
    /// order, instead of one call per 16 KiB the network handed over.
    @Test func aReaderBehindTakesWhatWaitsInOnePiece() async throws {
        let buffer = makeStream()
        var sent = Data()
        for index in 0..<40 {
            let chunk = Data(repeating: UInt8(index), count: 16 << 10)
            sent.append(chunk)
            buffer.receive(chunk)
        }
        buffer.finish(nil)
        var pieces: [Int] = []
        var received = Data()
        while let piece = try await buffer.next() {
            pieces.append(piece.count)
            received.append(piece)
        }
        #expect(received == sent)
        #expect(pieces == [256 << 10, 256 << 10, 40 * (16 << 10) - 2 * (256 << 10)])
    }

    /// A reader that keeps up gets each chunk as it came: nothing waits to be joined.
    @Test func aReaderThatKeepsUpGetsEachChunk() async throws {
        let buffer = makeStream()
        for size in [100, 70_000, 5] {
            buffer.receive(Data(repeating: 1, count: size))
            let piece = try await buffer.next()
            #expect(piece?.count == size)
        }
        buffer.finish(nil)
        #expect(try await buffer.next() == nil)
    }

    /// A chunk larger than a piece is handed over whole, never split.
    @Test func aChunkLargerThanAPieceIsNotSplit() async throws {
        let buffer = makeStream()
        buffer.receive(Data(repeating: 2, count: 300 << 10))
        buffer.receive(Data(repeating: 3, count: 10))
        buffer.finish(nil)
        #expect(try await buffer.next()?.count == 300 << 10)
        #expect(try await buffer.next() == Data(repeating: 3, count: 10))
        #expect(try await buffer.next() == nil)
    }
}
