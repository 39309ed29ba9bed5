import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// `Session.shutdown()`: later calls fail without reaching the transport, and the transport is
/// shut down once.
@Suite struct SessionLifecycleTests {
    @Test func callsAfterShutdownThrowSessionShutDown() async throws {
        let transport = ClosureTransport(body: Data("ok".utf8))
        let session = Session(transport: transport)
        #expect(try await session.request("https://example.com/before").text == "ok")
        try await session.shutdown()

        let request = await #expect(throws: RequestError.self) { try await session.request("https://example.com/after") }
        #expect(request?.code == .sessionShutDown)
        #expect(request?.url?.absoluteString == "https://example.com/after")
        #expect(request?.description.contains("shutdown() was called on this session") == true)

        let stream = await #expect(throws: RequestError.self) { try await session.stream("https://example.com/after") }
        #expect(stream?.code == .sessionShutDown)

        let upload = session.upload(.data(Data("body".utf8)), to: "https://example.com/after")
        let uploadError = await #expect(throws: RequestError.self) { try await upload.response() }
        #expect(uploadError?.code == .sessionShutDown)

        let directory = try TemporaryDirectory()
        let download = session.download("https://example.com/after", to: directory.url.appendingPathComponent("file"))
        let downloadError = await #expect(throws: RequestError.self) { try await download.response() }
        #expect(downloadError?.code == .sessionShutDown)

        #expect(transport.trips == 1)
    }

    @Test func shuttingDownTwiceShutsTheTransportDownOnce() async throws {
        let transport = ClosureTransport()
        let session = Session(transport: transport)
        #expect(transport.shutdowns == 0)
        try await session.shutdown()
        try await session.shutdown()
        #expect(transport.shutdowns == 1)
    }

    @Test func concurrentShutdownsShutTheTransportDownOnce() async throws {
        let transport = ClosureTransport()
        let session = Session(transport: transport)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { try await session.shutdown() }
            }
            try await group.waitForAll()
        }
        #expect(transport.shutdowns == 1)
    }

    @Test func aSessionOverURLSessionFailsWithSessionShutDownAfterShutdown() async throws {
        let session = Session()
        #expect(try await session.request(try server().url("/status/204")).statusCode == 204)
        try await session.shutdown()
        let error = await #expect(throws: RequestError.self) { try await session.request(try server().url("/status/204")) }
        #expect(error?.code == .sessionShutDown)
    }

    @Test func sessionShutDownIsNamed() {
        #expect(RequestError.Code.sessionShutDown.description == "sessionShutDown")
        #expect(RequestError(.sessionShutDown).description.hasPrefix("The session is shut down"))
    }
}
