import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
@testable import Requests

/// What the loopback server's `/upload` answers about a body that is not multipart.
private struct UploadDigest: Decodable {
    let method: String
    let size: Int
    let sha256: String
}

/// `Session.upload(_ body:)`: files and streams reach the server whole, progress ends at the
/// total, and a stream is sent once. Serialized: megabytes through the loopback server at once
/// would starve the timing checks that run beside them on two cores.
@Suite(.serialized) struct SessionUploadBodyTests {
    let session = Session()

    @Test func aFileBodyArrivesWholeWithProgressEndingAtItsSize() async throws {
        let directory = try TemporaryDirectory()
        let bytes = sampleBytes(3 << 20)
        let file = try directory.file("three-mib.bin", bytes)
        let upload = session.upload(try .file(file), to: try server().url("/upload"),
                                    headers: ["Content-Type": "application/octet-stream"])
        async let progress = collect(upload.progress)
        let answer = try await upload.response().validate().decode(UploadDigest.self)
        #expect(answer.method == "POST")
        #expect(answer.size == bytes.count)
        #expect(answer.sha256 == (try await onThread { try sha256Hex(of: file) }))
        let values = await progress
        #expect(values.last == TransferProgress(completedBytes: Int64(bytes.count), totalBytes: Int64(bytes.count)))
        #expect(values.allSatisfy { $0.totalBytes == Int64(bytes.count) })
    }

    @Test func aStreamBodyOfKnownLengthArrivesWholeWithProgressEndingAtItsLength() async throws {
        let directory = try TemporaryDirectory()
        let bytes = sampleBytes(2 << 20 + 123)
        let reference = try directory.file("reference.bin", bytes)
        let body = RequestBody.stream(chunked(bytes, size: 50_000), length: Int64(bytes.count))
        let upload = session.upload(body, to: try server().url("/upload"), method: .put)
        async let progress = collect(upload.progress)
        let answer = try await upload.response().validate().decode(UploadDigest.self)
        #expect(answer.method == "PUT")
        #expect(answer.size == bytes.count)
        #expect(answer.sha256 == (try await onThread { try sha256Hex(of: reference) }))
        let values = await progress
        #expect(values.last == TransferProgress(completedBytes: Int64(bytes.count), totalBytes: Int64(bytes.count)))
    }

    @Test func aSmallStreamBodyOfUnknownLengthArrivesByteForByte() async throws {
        let bytes = sampleBytes(40_000)
        let body = RequestBody.stream(chunked(bytes, size: 4096), length: nil)
        let upload = session.upload(body, to: try server().url("/anything"),
                                    headers: ["Content-Type": "application/octet-stream"])
        let echo = try await upload.response().validate().decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.bodyData == bytes)
        #expect(echo.header("Content-Type") == "application/octet-stream")
    }

    @Test
    func progressOfAStreamOfUnknownLengthNeverGoesBack() async throws {
        let bytes = sampleBytes(300_000)
        let body = RequestBody.stream(chunked(bytes, size: 16_384), length: nil)
        let upload = session.upload(body, to: try server().url("/anything"))
        async let progress = collect(upload.progress)
        _ = try await upload.response().validate()
        let sent = await progress.map(\.completedBytes)
        #expect(sent == sent.sorted(), "bytesSent went back: \(sent)")
    }

    @Test func aFileBodyGoesThroughAnyTransportWhole() async throws {
        let directory = try TemporaryDirectory()
        let bytes = sampleBytes(200_000)
        let file = try directory.file("body.bin", bytes)
        let session = Session(transport: InMemoryServer())
        let upload = session.upload(try .file(file), to: InMemoryServer.baseURL.appendingPathComponent("anything"))
        async let progress = collect(upload.progress)
        let echo = try await upload.response().validate().decode(Echo.self)
        #expect(echo.bodyData == bytes)
        #expect(await progress.last == TransferProgress(completedBytes: 200_000, totalBytes: 200_000))
    }

    @Test(arguments: [307, 308])
    func aStreamBodyCannotBeSentAgainOnARedirect(status: Int) async throws {
        let transport = ClosureTransport { request, trip in
            _ = try await readAll(request.body)
            if trip == 1 {
                return (ResponseHead(statusCode: status, headers: ["Location": "/again"], url: request.url), ResponseBody(Data()))
            }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("sent twice".utf8)))
        }
        let session = Session(transport: transport)
        let body = RequestBody.stream(chunked(sampleBytes(1000), size: 100), length: 1000)
        let upload = session.upload(body, to: "https://example.com/first")
        let error = await #expect(throws: RequestError.self) { try await upload.response() }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("the body is a stream, which is sent once") == true)
        #expect(transport.trips == 1)
    }

    @Test func aStreamBodyCannotBeSentAgainOnARetry() async throws {
        let transport = ClosureTransport { request, trip in
            _ = try await readAll(request.body)
            if trip == 1 { throw TransportError(.connectionLost, detail: "reset by peer") }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data()))
        }
        var retry = RetryPolicy(baseDelay: .milliseconds(1))
        retry.random = { $0.upperBound }
        let session = Session(transport: transport, interceptors: [retry])
        let body = RequestBody.stream(chunked(sampleBytes(1000), size: 100), length: 1000)
        let upload = session.upload(body, to: "https://example.com/put", method: .put)
        let error = await #expect(throws: RequestError.self) { try await upload.response() }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("sent once") == true)
        #expect(transport.trips == 1)
    }

    @Test func aFileBodyIsSentAgainOnA307() async throws {
        let directory = try TemporaryDirectory()
        let bytes = sampleBytes(5000)
        let file = try directory.file("body.bin", bytes)
        let received = Guarded<[Data]>([])
        let transport = ClosureTransport { request, trip in
            let data = try await readAll(request.body)
            received.withLock { $0.append(data) }
            let status = trip == 1 ? 307 : 200
            return (ResponseHead(statusCode: status, headers: ["Location": "/again"], url: request.url), ResponseBody(Data()))
        }
        let session = Session(transport: transport)
        let response = try await session.upload(try .file(file), to: "https://example.com/first").response()
        #expect(response.statusCode == 200)
        #expect(received.withLock { $0 } == [bytes, bytes])
    }
}
