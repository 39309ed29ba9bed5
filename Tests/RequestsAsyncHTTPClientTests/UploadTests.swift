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
                    try .file(file), to: try server().url("/anything"), method: .put, headers: ["Content-Type": "application/octet-stream"],
                    options: .unpacedProgress
                )
                async let progress = collect(upload.progress)
                let echo = try await upload.response().validate().decode(Echo.self)
                #expect(echo.method == "PUT")
                #expect(echo.header("Content-Length") == String(bytes.count))
                #expect(echo.bodyData == bytes)
                let values = await progress
                #expect(values.last == TransferProgress(completedBytes: Int64(bytes.count), totalBytes: Int64(bytes.count)))
                #expect(values.map(\.completedBytes) == values.map(\.completedBytes).sorted())
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
                .stream(chunks, length: nil), to: try server().url("/anything"), headers: ["Content-Type": "application/octet-stream"],
                options: .unpacedProgress
            )
            async let progress = collect(upload.progress)
            let echo = try await upload.response().validate().decode(Echo.self)
            #expect(echo.header("Transfer-Encoding") == "chunked")
            #expect(echo.header("Content-Length") == nil)
            #expect(echo.bodyData == bytes)
            let values = await progress
            print("unknown-length upload progress: \(values.count) reports, last \(values.last.map { "\($0.completedBytes)/\($0.totalBytes ?? -1)" } ?? "none")")
            #expect(values.map(\.completedBytes) == values.map(\.completedBytes).sorted())
            #expect(values.last?.completedBytes == Int64(bytes.count), "\(String(describing: values.last))")
            #expect(values.count > 2)
        }
    }

    /// A server that answers before it has read the body (the fault server's `/ok` reads the
    /// head only; `/too-large` answers an empty 413 before any of it): the call ends, with the
    /// 413 where there is one, and a body sequence still waiting for its next chunk is stopped
    /// then (its task cancelled), not left waiting for a chunk nobody will send.
    @Test(.timeLimit(.minutes(1)), arguments: [("ok", nil), ("too-large", 413)] as [(String, Int?)])
    func aSequenceWaitingForItsNextChunkIsStoppedWhenTheServerAnswersFirst(path: String, status: Int?) async throws {
        let body = WaitingBody(first: "one chunk; the second never comes")
        let hostile = try hostileServer()
        try await withTransport { transport in
            let upload = Session(transport: transport, cookies: .none).upload(.stream(body.chunks, length: nil), to: hostile.baseURL.appendingPathComponent(path))
            let outcome = await capture { try await upload.response() }
            print("/\(path) answered before the body was read: \(outcome.map(\.statusCode))")
            if let status {
                #expect((try? outcome.get().statusCode) == status, "\(outcome)")
            }
            await body.expectStoppedIfWaiting()
        }
    }
}

/// A body sequence that gives one chunk, then waits for a second that never comes, until the
/// task pulling it is cancelled.
///
/// The engine may get the server's answer before it has asked for any of the body (it writes the
/// body from a task of its own, which a quick answer can beat): then no pull waits, and nothing
/// needs stopping; a pull it starts later is stopped as it starts. Once a pull waits, its
/// cancellation is awaited, not polled: were it never stopped, the test's time limit would end it.
final class WaitingBody: Sendable {
    private let pulls = Guarded(0)
    private let stopped: AsyncStream<Void>
    let chunks: AsyncStream<Data>

    init(first: String) {
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        let pulls = self.pulls
        self.stopped = stopped
        self.chunks = AsyncStream(unfolding: {
            let pull = pulls.withLock { count -> Int in
                count += 1
                return count
            }
            if pull == 1 { return Data(first.utf8) }
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
            return nil
        }, onCancel: {
            stop.yield()
            stop.finish()
        })
    }

    /// Awaits the waiting pull's cancellation when one began; says which case the run met.
    func expectStoppedIfWaiting() async {
        let count = pulls.withLock { $0 }
        print("the body was pulled \(count) time(s) before the answer")
        guard count >= 2 else { return }
        var ended = stopped.makeAsyncIterator()
        #expect(await ended.next() != nil, "a pull waiting for the body's next chunk was never stopped")
    }
}
#endif
