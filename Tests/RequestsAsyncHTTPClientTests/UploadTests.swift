#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Session.upload` over `AsyncHTTPClientTransport`: a file, and an async sequence of unknown
/// length sent chunked, arrive byte for byte, with progress that never goes back and ends at
/// the whole body.
@Suite struct UploadTests {
    @Test func aFileArrivesWholeWithProgressEndingAtItsSize() async throws {
        let bytes = sampleBytes(1_500_000)
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("body.bin")
            try bytes.write(to: file)
            try await withTransport { transport in
                let upload = Session(transport: transport, cookies: .none).upload(
                    try .file(file), to: try server().url("/anything"), method: .put, headers: ["Content-Type": "application/octet-stream"]
                )
                async let progress = collect(upload.progress)
                let echo = try await upload.response().validate().decode(Echo.self)
                #expect(echo.method == "PUT")
                #expect(echo.header("Content-Length") == String(bytes.count))
                #expect(echo.bodyData == bytes)
                let values = await progress
                #expect(values.last == UploadProgress(bytesSent: Int64(bytes.count), totalBytes: Int64(bytes.count)))
                #expect(values.map(\.bytesSent) == values.map(\.bytesSent).sorted())
                #expect(values.count > 2, "\(values)")
            }
        }
    }

    @Test func anAsyncSequenceOfUnknownLengthIsSentChunkedWithProgress() async throws {
        let bytes = sampleBytes(1_200_000)
        let chunks = AsyncStream<Data> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 4096) {
                continuation.yield(bytes[start..<min(start + 4096, bytes.count)])
            }
            continuation.finish()
        }
        try await withTransport { transport in
            let upload = Session(transport: transport, cookies: .none).upload(
                .stream(chunks, length: nil), to: try server().url("/anything"), headers: ["Content-Type": "application/octet-stream"]
            )
            async let progress = collect(upload.progress)
            let echo = try await upload.response().validate().decode(Echo.self)
            #expect(echo.header("Transfer-Encoding") == "chunked")
            #expect(echo.header("Content-Length") == nil)
            #expect(echo.bodyData == bytes)
            let values = await progress
            print("unknown-length upload progress: \(values.count) reports, last \(values.last.map { "\($0.bytesSent)/\($0.totalBytes)" } ?? "none")")
            #expect(values.map(\.bytesSent) == values.map(\.bytesSent).sorted())
            #expect(values.last?.bytesSent == Int64(bytes.count), "\(String(describing: values.last))")
            #expect(values.count > 2)
        }
    }

    /// A server that answers before it has read the body (the fault server's `/ok` reads the
    /// head only): the call ends, and a body sequence still waiting for its next chunk is
    /// stopped then (its task cancelled), not left waiting for a chunk nobody will send.
    @Test(.timeLimit(.minutes(1))) func aSequenceWaitingForItsNextChunkIsStoppedWhenTheServerAnswersFirst() async throws {
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        let chunks = AsyncStream<Data> { continuation in
            continuation.onTermination = { _ in
                stop.yield()
                stop.finish()
            }
            continuation.yield(Data("the first chunk; the second never comes".utf8))
        }
        let hostile = try hostileServer()
        try await withTransport { transport in
            let upload = Session(transport: transport, cookies: .none).upload(.stream(chunks, length: nil), to: hostile.baseURL.appendingPathComponent("ok"))
            let outcome = await capture { try await upload.response() }
            print("answered before the body was read: \(outcome.map(\.statusCode))")
            // The sequence's end is awaited, not polled: were it never stopped, the time limit
            // would cancel the wait, and `next()` return `nil`.
            var ended = stopped.makeAsyncIterator()
            #expect(await ended.next() != nil)
        }
    }

    /// An empty 413 before any of the body while the body's sequence waits for a chunk that
    /// never comes: the call ends with the 413, and the sequence is stopped.
    @Test(.timeLimit(.minutes(1))) func anEarlyEmptyAnswerEndsTheCallWhileTheBodyWaits() async throws {
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        let chunks = AsyncStream<Data> { continuation in
            continuation.onTermination = { _ in
                stop.yield()
                stop.finish()
            }
            continuation.yield(Data("one chunk, then nothing".utf8))
        }
        let hostile = try hostileServer()
        try await withTransport { transport in
            let upload = Session(transport: transport, cookies: .none).upload(.stream(chunks, length: nil), to: hostile.baseURL.appendingPathComponent("too-large"))
            let outcome = await capture { try await upload.response() }
            print("an empty 413 before the body: \(outcome.map(\.statusCode))")
            #expect((try? outcome.get().statusCode) == 413, "\(outcome)")
            var ended = stopped.makeAsyncIterator()
            #expect(await ended.next() != nil)
        }
    }
}
#endif
