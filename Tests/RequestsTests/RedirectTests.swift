import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// `RedirectPolicy` against the loopback server; `localhost` stands in for another origin.
@Suite struct RedirectTests {
    let session = Session(cookies: .none)

    private func redirect(to target: String, status: Int = 302) throws -> URL {
        let query = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return try server().url("/redirect-to?url=\(query)&status=\(status)")
    }

    private func otherOrigin(_ path: String) throws -> String {
        "http://localhost:\(try server().port)\(path)"
    }

    @Test func theChainIsRecorded() async throws {
        let response = try await session.request(try server().url("/redirect/3"))
        #expect(response.statusCode == 200)
        #expect(response.redirects.map(\.path) == ["/redirect/3", "/redirect/2", "/redirect/1"])
        #expect(response.request.url?.path == "/redirect/0")
        #expect(response.url?.path == "/redirect/0")
    }

    @Test func tooManyRedirectsIsAnErrorListingTheChain() async throws {
        let error = await #expect(throws: RequestError.self) {
            try await session.request(try server().url("/redirect/3"), redirectPolicy: .follow(max: 2))
        }
        #expect(error?.code == .tooManyRedirects)
        // The message names the URL the caller asked for, not the hop where the limit was hit.
        #expect(error?.url?.path == "/redirect/3")
        #expect(error?.description.contains("for GET \(try server().url("/redirect/3").absoluteString)") == true, "\(String(describing: error))")
        #expect(error?.detail.contains("/redirect/3 -> ") == true)
        #expect(error?.detail.hasSuffix("/redirect/0") == true)
    }

    @Test func aLoopIsRefused() async throws {
        let error = await #expect(throws: RequestError.self) {
            try await session.request(try server().url("/redirect-loop/0"))
        }
        #expect(error?.code == .redirectRefused)
        #expect(error?.detail.contains("loop") == true)
        #expect(error?.detail.contains("/redirect-loop/1 -> ") == true)
    }

    @Test func comingBackAfterACookieWasSetIsNotALoop() async throws {
        // /login-flow -> /cookies/set (sets a cookie) -> /login-flow again, which now answers.
        let session = Session(cookies: .inMemory())
        let response = try await session.request(try server().url("/login-flow"))
        #expect(response.statusCode == 200)
        #expect(response.redirects.map(\.path) == ["/login-flow", "/cookies/set"])
        // Without cookies the same flow really is a loop.
        let error = await #expect(throws: RequestError.self) {
            try await Session(cookies: .none).request(try server().url("/login-flow"))
        }
        #expect(error?.code == .redirectRefused)
    }

    @Test func doNotFollowReturnsThe3xx() async throws {
        let response = try await session.request(try server().url("/redirect/1"), redirectPolicy: .doNotFollow)
        #expect(response.statusCode == 302)
        #expect(response.headers["Location"] == "/redirect/0")
        #expect(response.redirects.isEmpty)
        let sessionWide = Session(redirectPolicy: .doNotFollow, cookies: .none)
        #expect(try await sessionWide.request(try server().url("/redirect/1")).statusCode == 302)
    }

    @Test func credentialsAreStrippedAcrossOriginsAndKeptWithinOne() async throws {
        let headers: HTTPHeaders = ["Authorization": "Bearer secret", "Proxy-Authorization": "Basic eDp5", "Cookie": "a=1", "X-Kept": "yes"]
        let across = try await session.request(try redirect(to: try otherOrigin("/anything")), headers: headers).decode(Echo.self)
        #expect(across.header("Authorization") == nil)
        #expect(across.header("Proxy-Authorization") == nil)
        #expect(across.header("Cookie") == nil)
        #expect(across.header("X-Kept") == "yes")
        let within = try await session.request(try redirect(to: "/anything"), headers: headers).decode(Echo.self)
        #expect(within.header("Authorization") == "Bearer secret")
        #expect(within.header("Proxy-Authorization") == "Basic eDp5")
        #expect(within.header("Cookie") == "a=1")
    }

    @Test func postBecomesGetOn303And302AndKeepsItsBodyOn307And308() async throws {
        for status in [301, 302, 303] {
            let echo = try await session.request(try redirect(to: "/anything", status: status), method: .post,
                                                 parameters: ["a": 1], encoding: JSONEncoding.default).decode(Echo.self)
            #expect(echo.method == "GET", "status \(status)")
            #expect(echo.bodyData.isEmpty, "status \(status)")
            #expect(echo.header("Content-Type") == nil, "status \(status)")
        }
        for status in [307, 308] {
            let echo = try await session.request(try redirect(to: "/anything", status: status), method: .post,
                                                 parameters: ["a": 1], encoding: JSONEncoding.default).decode(Echo.self)
            #expect(echo.method == "POST", "status \(status)")
            #expect(echo.json == ["a": 1], "status \(status)")
        }
        let put = try await session.request(try redirect(to: "/anything", status: 302), method: .put,
                                            parameters: ["a": 1], encoding: JSONEncoding.default).decode(Echo.self)
        #expect(put.method == "PUT")
        let delete = try await session.request(try redirect(to: "/anything", status: 303), method: .delete).decode(Echo.self)
        #expect(delete.method == "GET")
    }

    @Test func aCustomPolicySeesEveryHopAndMayStop() async throws {
        let seen = Guarded<[String]>([])
        let policy = RedirectPolicy.custom { redirect in
            seen.withLock { $0.append("\(redirect.response.statusCode) \(redirect.next.url.path)") }
            return redirect.chain.count < 2 ? redirect.next : nil
        }
        let response = try await session.request(try server().url("/redirect/3"), redirectPolicy: policy)
        #expect(response.statusCode == 302)
        #expect(response.request.url?.path == "/redirect/2")
        #expect(response.redirects.map(\.path) == ["/redirect/3"])
        #expect(seen.withLock { $0 } == ["302 /redirect/2", "302 /redirect/1"])
    }

    @Test func aCustomPolicyCanRefuseOtherOrigins() async throws {
        let sameSite = RedirectPolicy.custom { $0.isCrossOrigin ? nil : $0.next }
        let response = try await session.request(try redirect(to: try otherOrigin("/anything")), redirectPolicy: sameSite)
        #expect(response.statusCode == 302)
    }

    @Test func aDowngradeFromHTTPSIsRefusedUnlessAllowed() async throws {
        let mock = MockTransport { request in
            let url = request.url ?? URL(fileURLWithPath: "/")
            let headers = url.scheme == "https" ? ["Location": "http://127.0.0.1/plain"] : [:]
            let status = url.scheme == "https" ? 301 : 200
            guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                throw URLError(.badServerResponse)
            }
            return (Data(), response)
        }
        let error = await #expect(throws: RequestError.self) {
            try await Session(transport: mock).request("https://127.0.0.1/secure")
        }
        #expect(error?.code == .redirectRefused)
        #expect(error?.detail.contains("from https to http") == true)
        let allowed = try await Session(transport: mock, redirectPolicy: .follow(allowsInsecure: true)).request("https://127.0.0.1/secure")
        #expect(allowed.statusCode == 200)
        #expect(allowed.url?.absoluteString == "http://127.0.0.1/plain")
    }

    @Test func aLocationThatIsNotHTTPIsRefused() async throws {
        let error = await #expect(throws: RequestError.self) {
            try await session.request(try redirect(to: "file:///etc/passwd"))
        }
        #expect(error?.code == .redirectRefused)
        #expect(error?.detail.contains("file:///etc/passwd") == true)
    }

    @Test func monitorsSeeEveryHop() async throws {
        let monitor = RecordingMonitor()
        let watched = Session(monitors: [monitor], cookies: .none)
        _ = try await watched.request(try server().url("/redirect/1"))
        #expect(monitor.events == ["send 1 GET /redirect/1", "receive 1 302", "send 2 GET /redirect/0", "receive 2 200"])
    }
}

/// Redirects of streams and downloads, which the transport delivers through its delegate.
@Suite struct StreamRedirectTests {
    @Test func aStreamFollowsRedirectsAndRecordsThem() async throws {
        let stream = try await Session(cookies: .none).stream(try server().url("/redirect/2"))
        #expect(stream.statusCode == 200)
        #expect(stream.response.redirects.map(\.path) == ["/redirect/2", "/redirect/1"])
        let echo = try JSONDecoder().decode(Echo.self, from: try await stream.body.collect())
        #expect(echo.path == "/redirect/0")
    }

    @Test func aStreamCanReturnThe3xx() async throws {
        let stream = try await Session(cookies: .none).stream(try server().url("/redirect/1"), redirectPolicy: .doNotFollow)
        #expect(stream.statusCode == 302)
        #expect(stream.headers["Location"] == "/redirect/0")
        _ = try await stream.body.collect()
    }
}
