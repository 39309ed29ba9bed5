import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// Downloads ask for `Accept-Encoding: identity` only over a transport that would decode a
/// compressed body (so byte counts and `Range` offsets match the bytes on the wire).
@Suite struct DownloadAcceptEncodingTests {
    /// Downloads `/anything` to a temporary file and returns the echo written there.
    private func echo(of session: Session, at url: URL, headers: HTTPHeaders? = nil) async throws -> Echo {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("echo.json")
        let response = try await session.download(url, headers: headers, to: file).response().validate()
        #expect(response.fileURL == file)
        return try JSONDecoder().decode(Echo.self, from: Data(contentsOf: file))
    }

    @Test func overATransportThatDecodesNothingNoIdentityIsAskedFor() async throws {
        let transport = InMemoryServer()
        #expect(!transport.behavior.decodesContentEncoding)
        let echo = try await echo(of: Session(transport: transport), at: InMemoryServer.baseURL.appendingPathComponent("anything"))
        #expect(echo.header("Accept-Encoding") == nil)
    }

    @Test func overAMockTransportTheRequestHasNoAcceptEncoding() async throws {
        let transport = MockTransport(body: Data("file".utf8))
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("file")
        _ = try await Session(transport: transport).download("https://example.com/file", to: file).response().validate()
        #expect(transport.requests.count == 1)
        #expect(transport.requests.first?.value(forHTTPHeaderField: "Accept-Encoding") == nil)
        #expect(try Data(contentsOf: file) == Data("file".utf8))
    }

    @Test func overURLSessionTransportIdentityIsAskedFor() async throws {
        #expect(URLSessionTransport().behavior.decodesContentEncoding)
        let echo = try await echo(of: Session(transport: URLSessionTransport()), at: try server().url("/anything"))
        #expect(echo.header("Accept-Encoding") == "identity")
    }

    @Test func theCallersOwnAcceptEncodingIsKept() async throws {
        let echo = try await echo(of: Session(), at: try server().url("/anything"), headers: ["Accept-Encoding": "gzip"])
        #expect(echo.header("Accept-Encoding") == "gzip")
    }

    @Test func anOrdinaryRequestOverURLSessionTransportDoesNotAskForIdentity() async throws {
        let echo = try await Session().request(try server().url("/anything")).decode(Echo.self)
        #expect(echo.header("Accept-Encoding") != "identity")
    }
}
