#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `TransportRequest.readsBodyWhole`: a small body of announced length comes back in memory, in
/// one piece; a larger one, or one the caller streams, comes as it arrives.
@Suite struct WholeBodyTests {
    private func chunks(of body: ResponseBody) async throws -> [Data] {
        var chunks: [Data] = []
        for try await chunk in body { chunks.append(chunk) }
        return chunks
    }

    @Test func aSmallBodyReadWholeComesInOnePiece() async throws {
        try await withTransport { transport in
            let request = OutgoingRequest(url: try server().url("/blob/40000"))
            let (head, body) = try await transport.send(TransportRequest(request, readsBodyWhole: true))
            #expect(head.statusCode == 200)
            let pieces = try await chunks(of: body)
            #expect(pieces.count == 1)
            #expect(pieces.first == LoopbackServer.pattern(40000))
        }
    }

    @Test func aBodyLargerThanTheLimitStillStreamsWhole() async throws {
        try await withTransport { transport in
            let request = OutgoingRequest(url: try server().url("/blob/300000"))
            let (_, body) = try await transport.send(TransportRequest(request, readsBodyWhole: true))
            let pieces = try await chunks(of: body)
            // What was read before the head went over 64 KiB, so at least one more piece follows.
            #expect(pieces.count > 1)
            #expect(pieces.reduce(Data(), +) == LoopbackServer.pattern(300000))
        }
    }

    @Test func aSessionRequestAndStreamGetTheSameBytes() async throws {
        try await withTransport { transport in
            let session = Session(transport: transport, cookies: .none)
            let url = try server().url("/blob/20000")
            let whole = try await session.request(url).validate()
            #expect(whole.data == LoopbackServer.pattern(20000))
            let stream = try await session.stream(url).validate()
            #expect(try await stream.body.collect() == LoopbackServer.pattern(20000))
        }
    }

    @Test func anEmptyBodyReadWholeIsEmpty() async throws {
        try await withTransport { transport in
            let request = OutgoingRequest(url: try server().url("/blob/0"))
            let (head, body) = try await transport.send(TransportRequest(request, readsBodyWhole: true))
            #expect(head.statusCode == 200)
            #expect(try await chunks(of: body).isEmpty)
        }
    }
}
#endif
