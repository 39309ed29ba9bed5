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
        let stream = TransferStream(request: request, buffering: TransferBuffering(bytes: limit, enginePauses: false))
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

    /// Past the memory limit, an engine that cannot pause spills to disk: the reader gets every
    /// byte in order, memory first, then the file, then memory again.
    @Test func aReaderFarBehindGetsEveryByteThroughTheDisk() async throws {
        let stream = makeStream(limit: 64 << 10)
        var sent = Data()
        for index in 0..<200 {
            let chunk = Data(repeating: UInt8(index % 251), count: 10_000 + index)
            sent.append(chunk)
            stream.receive(chunk)
        }
        var received = Data()
        // Half read while the engine still sends: part of it comes back from disk.
        while received.count < sent.count / 2, let piece = try await stream.next() {
            received.append(piece)
        }
        for index in 0..<50 {
            let chunk = Data(repeating: UInt8(index), count: 3_000)
            sent.append(chunk)
            stream.receive(chunk)
        }
        stream.finish(nil)
        while let piece = try await stream.next() {
            received.append(piece)
        }
        #expect(received == sent)
    }

    /// A slow disk holds up neither the engine's queue nor another transfer fed from it: one
    /// reader stalls while its transfer's disk does not write at all (its I/O queue suspended);
    /// the other transfer, fed from the same serial queue as FoundationNetworking feeds every
    /// task, is read to its end meanwhile. The stalled one then gets every byte, in order.
    @Test func aSlowDiskDoesNotDelayAnotherTransfer() async throws {
        let engineQueue = DispatchQueue(label: "one work queue for every transfer")
        let disk = DispatchQueue(label: "a disk that does not write")
        disk.suspend()
        let stalled = TransferStream(request: request, buffering: TransferBuffering(bytes: 16 << 10, enginePauses: false), spillQueue: disk)
        let other = makeStream(limit: 16 << 10)
        stalled.receive(head: ResponseHead(statusCode: 200, url: request.url))
        let chunk = Data(repeating: 7, count: 16 << 10)
        // 4 MiB to the stalled transfer (all but 16 KiB for the disk), and 4 MiB to the other,
        // interleaved on the one queue.
        let fed = Guarded(false)
        engineQueue.async {
            for _ in 0..<256 {
                stalled.receive(chunk)
                other.receive(chunk)
            }
            stalled.finish(nil)
            other.finish(nil)
            fed.withLock { $0 = true }
        }
        var read = 0
        while let piece = try await other.next() {
            read += piece.count
        }
        #expect(read == 256 * chunk.count)
        // The other transfer ended, so the engine's queue got through every chunk of both,
        // although no byte reached the disk.
        #expect(fed.withLock { $0 } || engineQueue.sync { fed.withLock { $0 } })
        disk.resume()
        var stalledRead = Data()
        while let piece = try await stalled.next() {
            stalledRead.append(piece)
        }
        #expect(stalledRead == Data(repeating: 7, count: 256 * chunk.count))
    }

    /// Cancelling a reader that waits for bytes from disk ends its wait, and closes the file.
    @Test func cancellingAReaderWaitingOnTheDiskEndsIt() async throws {
        let disk = DispatchQueue(label: "a disk that does not write")
        disk.suspend()
        let stream = TransferStream(request: request, buffering: TransferBuffering(bytes: 4, enginePauses: false), spillQueue: disk)
        stream.receive(head: ResponseHead(statusCode: 200, url: request.url))
        stream.receive(Data(count: 100))
        let reader = Task { try await stream.next() }
        try await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        disk.resume()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(stream.phase == .cancelled)
    }
}
