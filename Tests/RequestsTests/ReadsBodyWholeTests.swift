import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// `TransportRequest.readsBodyWhole` tells the transport how the call reads the body: whole for
/// `request` and `upload`, as it comes for `stream` and `download`.
@Suite struct ReadsBodyWholeTests {
    /// A transport that notes the flag of every trip and answers "ok".
    private func recording() -> (ClosureTransport, Guarded<[Bool]>) {
        let seen = Guarded<[Bool]>([])
        let transport = ClosureTransport { request, _ in
            seen.withLock { $0.append(request.readsBodyWhole) }
            return (ResponseHead(statusCode: 200, headers: ["Content-Length": "2"], url: request.url), ResponseBody(Data("ok".utf8)))
        }
        return (transport, seen)
    }

    @Test func requestAndUploadReadWholeStreamAndDownloadDoNot() async throws {
        let (transport, seen) = recording()
        let session = Session(transport: transport)
        _ = try await session.request("https://example.test/a")
        _ = try await session.request("https://example.test/b", method: .post, parameters: ["a": 1], encoding: JSONEncoding.default)
        _ = try await session.upload(.data(Data("x".utf8)), to: "https://example.test/c").response()
        let stream = try await session.stream("https://example.test/d")
        _ = try await stream.body.collect()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reads-whole-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await session.download("https://example.test/e", to: file).response()
        #expect(seen.withLock { $0 } == [true, true, true, false, false])
    }

    @Test func aRetriedOrRedirectedTripKeepsTheCallsWay() async throws {
        let seen = Guarded<[Bool]>([])
        let transport = ClosureTransport { request, trip in
            seen.withLock { $0.append(request.readsBodyWhole) }
            if trip == 1 {
                return (ResponseHead(statusCode: 302, headers: ["Location": "/next"], url: request.url), ResponseBody(Data()))
            }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("ok".utf8)))
        }
        _ = try await Session(transport: transport).request("https://example.test/first")
        #expect(seen.withLock { $0 } == [true, true])
    }
}
