import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A temporary directory, removed with the value.
final class TemporaryDirectory: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("request-body-tests-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes a file in the directory.
    func file(_ name: String, _ contents: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try contents.write(to: file)
        return file
    }
}

/// A block of 65,521 bytes (a prime length, so it never lines up with a chunk size).
private let sampleBlock = Data((0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) })

/// `count` bytes that do not repeat with a power-of-two period, so a chunk read from the wrong
/// place would not match; cheap to make even for megabytes (copies of one block).
func sampleBytes(_ count: Int) -> Data {
    var data = Data(capacity: count)
    while data.count < count {
        data.append(sampleBlock.prefix(count - data.count))
    }
    return data
}

/// Chunks of `data` of at most `size` bytes, as an async sequence.
func chunked(_ data: Data, size: Int) -> AsyncStream<Data> {
    AsyncStream { continuation in
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + size, data.endIndex)
            continuation.yield(data[start..<end])
            start = end
        }
        continuation.finish()
    }
}

/// `RequestBody`: files checked when made, lengths, chunks, and which bodies can be sent again.
@Suite struct RequestBodyTests {
    @Test func aMissingFileIsAnEncodingErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("nothing-here.bin")
        let error = try #require(throws: RequestError.self) { try RequestBody.file(missing) }
        #expect(error.code == .encodingFailed)
        #expect(error.description.contains(missing.path))
        #expect(error.underlyingError != nil)
    }

    @Test func aDirectoryIsAnEncodingErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: RequestError.self) { try RequestBody.file(directory.url) }
        #expect(error.code == .encodingFailed)
        #expect(error.description.contains(directory.url.path))
        #expect(error.description.contains("not a regular file"))
    }

    @Test func lengthsAreKnownExceptForAStreamThatDoesNotSay() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("body.bin", sampleBytes(1000))
        #expect(RequestBody.empty.length == 0)
        #expect(RequestBody.data(Data("hello".utf8)).length == 5)
        #expect(try RequestBody.file(file).length == 1000)
        #expect(RequestBody.stream(chunked(sampleBytes(7), size: 3), length: 7).length == 7)
        #expect(RequestBody.stream(chunked(sampleBytes(7), size: 3), length: nil).length == nil)
    }

    @Test(arguments: [1, 1000, 4096, 100_000])
    func aFileComesInChunksOfAtMostTheSizeAskedWithTheExactBytes(size: Int) async throws {
        let directory = try TemporaryDirectory()
        let bytes = sampleBytes(10_000)
        let body = try RequestBody.file(directory.file("body.bin", bytes))
        let chunks = body.chunks(size: size)
        var read = Data()
        var count = 0
        while let chunk = try await chunks.next() {
            #expect(chunk.count <= size)
            #expect(!chunk.isEmpty)
            read.append(chunk)
            count += 1
        }
        #expect(read == bytes)
        #expect(count == (bytes.count + size - 1) / size)
        #expect(try await chunks.next() == nil)
    }

    @Test func eachReaderOfAFileStartsAtItsBeginning() async throws {
        let directory = try TemporaryDirectory()
        let bytes = sampleBytes(5000)
        let body = try RequestBody.file(directory.file("body.bin", bytes))
        #expect(try await readAll(body, chunkSize: 1024) == bytes)
        #expect(try await readAll(body, chunkSize: 1024) == bytes)
    }

    @Test(arguments: [4096, 64 << 10])
    func aFileThatGrowsWhileReadIsAnErrorNamingIt(chunkSize: Int) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("growing.bin", sampleBytes(10_000))
        let body = try RequestBody.file(file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: sampleBytes(5000))
        try handle.close()
        let error = await #expect(throws: RequestError.self) { try await readAll(body, chunkSize: chunkSize) }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains(file.path) == true)
        #expect(error?.description.contains("changed size") == true)
    }

    @Test(arguments: [4096, 64 << 10])
    func aFileThatShrinksWhileReadIsAnErrorNamingIt(chunkSize: Int) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("shrinking.bin", sampleBytes(10_000))
        let body = try RequestBody.file(file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 5000)
        try handle.close()
        let error = await #expect(throws: RequestError.self) { try await readAll(body, chunkSize: chunkSize) }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains(file.path) == true)
        #expect(error?.description.contains("10000 bytes were announced, 5000 read") == true)
    }

    @Test func aStreamIsNotReplayableAndEveryOtherBodyIs() throws {
        let directory = try TemporaryDirectory()
        #expect(!RequestBody.stream(chunked(Data("x".utf8), size: 1), length: 1).isReplayable)
        #expect(RequestBody.empty.isReplayable)
        #expect(RequestBody.data(Data("x".utf8)).isReplayable)
        #expect(try RequestBody.file(directory.file("body.bin", Data("x".utf8))).isReplayable)
    }

    @Test func emptyBytesAreTheEmptyBody() async throws {
        let body = RequestBody.data(Data())
        #expect(body.isEmpty)
        guard case .empty = body.storage else {
            Issue.record("RequestBody.data(Data()) is \(body.storage), not .empty")
            return
        }
        #expect(try await body.chunks().next() == nil)
        #expect(!RequestBody.data(Data("x".utf8)).isEmpty)
    }

    @Test func bytesInMemoryComeAsOneChunkAndAStreamAsItsOwn() async throws {
        let bytes = sampleBytes(3000)
        let data = RequestBody.data(bytes).chunks(size: 10)
        #expect(try await data.next() == bytes)
        #expect(try await data.next() == nil)

        let stream = RequestBody.stream(chunked(bytes, size: 1000), length: nil).chunks(size: 10)
        var sizes: [Int] = []
        var read = Data()
        while let chunk = try await stream.next() {
            sizes.append(chunk.count)
            read.append(chunk)
        }
        #expect(sizes == [1000, 1000, 1000])
        #expect(read == bytes)
    }

    @Test func aStreamsErrorReachesItsReader() async throws {
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("first".utf8))
            continuation.finish(throwing: TransportError(.other, detail: "the producer broke"))
        }
        let chunks = RequestBody.stream(failing, length: nil).chunks()
        #expect(try await chunks.next() == Data("first".utf8))
        await #expect(throws: TransportError.self) { try await chunks.next() }
    }
}
