import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// What `/cookies` answers.
private struct CookieEcho: Decodable { let cookies: [String: String] }

/// `Session(cookies:)` against the loopback server.
@Suite struct CookieTests {
    @Test func cookiesSetByAResponseAreSentLater() async throws {
        let session = Session(cookies: .inMemory())
        let set = try await session.request(try server().url("/cookies/set?a=1&b=two"))
        #expect(set.cookies.map(\.name).sorted() == ["a", "b"])
        let echo = try await session.request(try server().url("/cookies")).decode(CookieEcho.self)
        #expect(echo.cookies == ["a": "1", "b": "two"])
    }

    @Test func aCookieSetDuringARedirectIsSentToTheNextHop() async throws {
        let session = Session(cookies: .inMemory())
        let response = try await session.request(try server().url("/cookies/set?c=3&redirect=/cookies"))
        #expect(try response.decode(CookieEcho.self).cookies == ["c": "3"])
        #expect(response.cookies.map(\.name) == ["c"])
        #expect(response.redirects.count == 1)
    }

    @Test func cookiesStayWithTheirSite() async throws {
        let session = Session(cookies: .inMemory())
        _ = try await session.request(try server().url("/cookies/set?site=127"))
        let other = try await session.request(URL(string: "http://localhost:\(try server().port)/cookies")!)
        #expect(try other.decode(CookieEcho.self).cookies == [:])
    }

    @Test func theCallersCookieHeaderIsKeptBesideTheStoredOnes() async throws {
        let session = Session(cookies: .inMemory())
        _ = try await session.request(try server().url("/cookies/set?stored=1"))
        let echo = try await session.request(try server().url("/cookies"), headers: ["Cookie": "own=2"]).decode(CookieEcho.self)
        #expect(echo.cookies == ["own": "2", "stored": "1"])
    }

    @Test func noCookiesMeansNoneStoredAndNoneSent() async throws {
        let session = Session(cookies: .none)
        let set = try await session.request(try server().url("/cookies/set?a=1"))
        #expect(set.cookies.isEmpty)
        #expect(try await session.request(try server().url("/cookies")).decode(CookieEcho.self).cookies == [:])
    }

    @Test func twoInMemoryJarsAreSeparate() async throws {
        let first = Session(cookies: .inMemory())
        let second = Session(cookies: .inMemory())
        _ = try await first.request(try server().url("/cookies/set?mine=1"))
        #expect(try await second.request(try server().url("/cookies")).decode(CookieEcho.self).cookies == [:])
    }

    @Test func secureAndPathRulesApply() throws {
        let url = URL(string: "http://127.0.0.1/app/page")!
        let secure = HTTPCookie(properties: [.name: "s", .value: "1", .domain: "127.0.0.1", .path: "/", .secure: "TRUE"])!
        let app = HTTPCookie(properties: [.name: "a", .value: "1", .domain: "127.0.0.1", .path: "/app"])!
        let other = HTTPCookie(properties: [.name: "o", .value: "1", .domain: "127.0.0.1", .path: "/application"])!
        let expired = HTTPCookie(properties: [.name: "e", .value: "1", .domain: "127.0.0.1", .path: "/", .expires: Date(timeIntervalSinceNow: -10)])!
        #expect(CookieStage.sendable([secure, app, other, expired], to: RequestTarget(url)).map(\.name) == ["a"])
        let https = URL(string: "https://127.0.0.1/app")!
        #expect(CookieStage.sendable([secure, app, other], to: RequestTarget(https)).map(\.name) == ["s", "a"])
    }

    @Test func maxAgeKeepsSecure() throws {
        let url = URL(string: "https://127.0.0.1/")!
        let parsed = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": "sid=1; Path=/; Max-Age=100; Secure"], for: url)
        let cookie = try #require(parsed.first.map(CookieStage.expiringByMaxAge))
        #expect(cookie.isSecure)
        #expect(cookie.expiresDate.map { $0 > Date() } == true)
    }

    @Test func aDeletedCookieIsNotSentAgain() async throws {
        let session = Session(cookies: .inMemory())
        _ = try await session.request(try server().url("/cookies/set?gone=1&kept=2"))
        _ = try await session.request(try server().url("/cookies/delete?gone"))
        #expect(try await session.request(try server().url("/cookies")).decode(CookieEcho.self).cookies == ["kept": "2"])
    }
}
