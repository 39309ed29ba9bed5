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

    @Test func aDeletedCookieIsNotSentAgain() async throws {
        let session = Session(cookies: .inMemory())
        _ = try await session.request(try server().url("/cookies/set?gone=1&kept=2"))
        _ = try await session.request(try server().url("/cookies/delete?gone"))
        #expect(try await session.request(try server().url("/cookies")).decode(CookieEcho.self).cookies == ["kept": "2"])
    }
}
