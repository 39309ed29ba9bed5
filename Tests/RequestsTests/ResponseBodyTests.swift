import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// A stream that yields `first` and then nothing, never ending while its continuation is kept.
private func stalling(after first: Data) -> (AsyncThrowingStream<Data, any Error>, AsyncThrowingStream<Data, any Error>.Continuation) {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
    continuation.yield(first)
    return (stream, continuation)
}

/// `ResponseBody` over an `AsyncThrowingStream` (its public initialiser for transports and
/// tests): cancelling stops a read that is waiting, and a cut-short body is never complete.
@Suite struct ResponseBodyTests {
    @Test
    func cancelEndsAReadThatIsWaiting() async throws {
        let (stream, continuation) = stalling(after: Data("first".utf8))
        defer { continuation.finish() }
        let body = ResponseBody(stream)
        let reader = Task {
            var chunks = 0
            for try await _ in body { chunks += 1 }
            return chunks
        }
        try await Task.sleep(for: .milliseconds(100))
        body.cancel()
        defer { reader.cancel() }
        await #expect(throws: CancellationError.self) {
            try await failingIfHung(after: .seconds(5)) { try await reader.value }
        }
    }

    @Test
    func cancellingTheCallingTaskOfARequestWhoseBodyStallsThrowsCancellation() async throws {
        let continuations = Guarded<[AsyncThrowingStream<Data, any Error>.Continuation]>([])
        defer { continuations.withLock { $0.forEach { $0.finish() } } }
        let transport = ClosureTransport { request, _ in
            let (stream, continuation) = stalling(after: Data("first".utf8))
            continuations.withLock { $0.append(continuation) }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(stream))
        }
        let session = Session(transport: transport, idleTimeout: nil)
        let call = Task { try await session.request("https://example.com/stall") }
        try await Task.sleep(for: .milliseconds(200))
        call.cancel()
        let outcome = await call.result
        if case .success(let response) = outcome {
            Issue.record("a body cut short by cancellation was returned as complete: \(response.data.count) bytes, \"\(response.text)\"")
        }
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    /// What the transport says about a failure mid-body (the meaning of an engine's terse error,
    /// such as a decompression limit) reaches the caller with its kind, from a stream and from a
    /// whole-body request alike.
    @Test
    func aTransportsDetailOfAFailureMidBodyReachesTheCaller() async throws {
        let transport = ClosureTransport { request, _ in
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            continuation.yield(Data("first".utf8))
            continuation.finish(throwing: TransportError(.other, detail: "the decompressed body passed the limit", underlyingError: URLError(.unknown)))
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(stream))
        }
        let session = Session(transport: transport, cookies: .none)
        let stream = try await session.stream("https://example.com/bomb")
        let streamed = await #expect(throws: RequestError.self) { _ = try await stream.body.collect() }
        #expect(streamed?.code == .streamFailed)
        #expect(streamed?.transportErrorKind == .other)
        #expect(streamed?.detail == "the decompressed body passed the limit")
        let whole = await #expect(throws: RequestError.self) { try await session.request("https://example.com/bomb") }
        #expect(whole?.code == .transportFailed)
        #expect(whole?.description.contains("the decompressed body passed the limit") == true, "\(String(describing: whole))")
    }
}
