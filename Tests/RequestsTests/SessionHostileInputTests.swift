import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import ParameterEncoding
import Testing
@testable import Requests

/// Hostile input at the `Session`'s entry points: invalid URLs, header injection (CR, LF and NUL in
/// names and values, through the call, a ``ServerEnvironment`` and a redirect), values JSON cannot
/// hold, and a multipart file that is gone. Each is refused with a ``RequestError`` that names the
/// problem before anything is sent.
@Suite struct SessionHostileInputTests {
    @Test(arguments: ["", "http://exa mple.com/", "http://[::1/", "http://127.0.0.1:99999/", "ht tp://x/", "://x", "http://\u{0}/", "\u{202E}http://x/"])
    func anInvalidURLIsRefusedByNameAndNothingIsSent(text: String) async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) { try await session.request(text) }
        #expect(error?.code == .invalidURL, "\(text.debugDescription): \(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "javascript:alert(1)", "data:text/plain,hi"])
    func aURLThatIsNotHTTPIsRefusedBeforeTheTransport(text: String) async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) { try await session.request(text) }
        #expect(error?.code == .invalidURL, "\(text): \(String(describing: error))")
        #expect(error?.description.contains(text) == true, "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [
        ("X-Test", "a\r\nInjected: 1"), ("X-Test", "a\nInjected: 1"), ("X-Test", "a\rb"), ("X-Test", "a\u{0}b"),
        ("X-Test\r\nInjected", "1"), ("X Test", "1"), ("X-Test:", "1"), ("", "1"), ("X-\u{0}", "1"),
    ])
    func aHeaderWithCRLFOrNULIsRefusedNamingItAndNothingIsSent(name: String, value: String) async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com/", headers: [HTTPHeader(name: name, value: value)])
        }
        #expect(error?.code == .encodingFailed, "\(String(describing: error))")
        let cause = try #require(error?.underlyingError as? ParameterEncodingError)
        #expect(cause.code == .invalidHeader)
        #expect(transport.requests.isEmpty)
    }

    @Test func aServerEnvironmentWithAnInjectedHeaderIsRefusedNamingIt() async throws {
        let transport = MockTransport()
        let environment = ServerEnvironment(host: "127.0.0.1", headers: ["X-Env": "ok\r\nInjected: 1"])
        let session = Session(transport: transport, modifiers: [environment])
        let error = await #expect(throws: RequestError.self) { try await session.request("/path") }
        #expect(error?.code == .modifierFailed, "\(String(describing: error))")
        #expect(error?.description.contains("X-Env") == true, "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }

    @Test func aRedirectCannotSmuggleHeadersOrCRLF() async throws {
        let server = try server()
        let session = Session()
        // An encoded CR LF in Location stays encoded in the path: no header is added.
        let target = "/anything/a%0D%0AInjected:%201"
        let response = try await session.request(server.url("/redirect-to?url=\(URLEncoding.default.escape(target))"))
        let echo = try response.decode(Echo.self)
        #expect(echo.header("Injected") == nil)
        #expect(echo.path.hasPrefix("/anything/a"))
        // A policy that sets a value with CR LF on the next hop: it never reaches the server.
        // (FoundationNetworking's URLRequest drops such a value as it is set; where a platform
        // keeps it, the check before the transport refuses the request, naming the header.)
        let injecting = RedirectPolicy.custom { redirect in
            var next = redirect.next
            next.setValue("v\r\nInjected: 1", forHTTPHeaderField: "X-Hop")
            return next
        }
        do {
            let hop = try await session.request(server.url("/redirect-to?url=/anything"), redirectPolicy: injecting)
            let echo = try hop.decode(Echo.self)
            #expect(echo.header("Injected") == nil && echo.header("X-Hop") == nil)
        } catch let error as RequestError {
            #expect(error.description.contains("X-Hop"), "\(error)")
        }
        // A header name no request may carry, set by the policy, is refused by name.
        let badName = RedirectPolicy.custom { redirect in
            var next = redirect.next
            next.setValue("1", forHTTPHeaderField: "X Hop")
            return next
        }
        let error = await #expect(throws: RequestError.self) {
            try await session.request(server.url("/redirect-to?url=/anything"), redirectPolicy: badName)
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("X Hop") == true, "\(String(describing: error))")
    }

    @Test func valuesJSONCannotHoldAreRefusedWithTheirKeyPath() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com/", method: .post, parameters: ["a": ["b": Double.nan]], encoding: JSONEncoding.default)
        }
        #expect(error?.code == .encodingFailed)
        #expect((error?.underlyingError as? ParameterEncodingError)?.keyPath == "a.b")
        #expect(transport.requests.isEmpty)
    }

    @Test func aMultipartFileThatIsGoneIsRefusedNamingIt() async throws {
        let transport = MockTransport()
        let session = Session(transport: transport)
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("gone-\(UUID().uuidString).bin")
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://example.com/", method: .post, body: MultipartFormBody([.file("upload", at: missing)]))
        }
        #expect(error?.code == .encodingFailed, "\(String(describing: error))")
        #expect(error?.description.contains(missing.path) == true, "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }
}
