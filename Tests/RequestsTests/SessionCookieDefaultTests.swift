import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// What `/cookies` answers.
private struct CookieJar: Decodable { let cookies: [String: String] }

/// How a test makes a session without saying anything about cookies.
enum SessionMaker: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case overURLSessionTransport
    case fromConfiguration

    func make() -> Session {
        switch self {
        case .overURLSessionTransport: Session(transport: URLSessionTransport())
        case .fromConfiguration: Session()
        }
    }

    var testDescription: String { rawValue }
}

/// Both initialisers keep cookies in memory by default, for that session alone.
@Suite struct SessionCookieDefaultTests {
    @Test(arguments: SessionMaker.allCases)
    func aCookieSetByOneRequestIsSentByTheNext(maker: SessionMaker) async throws {
        let session = maker.make()
        let set = try await session.request(try server().url("/cookies/set?x=1"))
        #expect(set.cookies.map(\.name) == ["x"])
        let echo = try await session.request(try server().url("/cookies")).decode(CookieJar.self)
        #expect(echo.cookies == ["x": "1"])
    }

    @Test(arguments: SessionMaker.allCases)
    func twoSessionsDoNotShareCookies(maker: SessionMaker) async throws {
        let first = maker.make()
        _ = try await first.request(try server().url("/cookies/set?x=1"))
        let second = maker.make()
        let echo = try await second.request(try server().url("/cookies")).decode(CookieJar.self)
        #expect(echo.cookies == [:])
    }

    @Test func theSharedStorageIsNotTouchedByDefault() async throws {
        let name = "default-\(UUID().uuidString.prefix(8))"
        let session = Session(transport: URLSessionTransport())
        _ = try await session.request(try server().url("/cookies/set?\(name)=1"))
        let shared = HTTPCookieStorage.shared.cookies?.map(\.name) ?? []
        #expect(!shared.contains(name))
    }
}
