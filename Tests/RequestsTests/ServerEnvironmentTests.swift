import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

extension ServerEnvironment {
    static let production = ServerEnvironment(host: "api.example.com", pathPrefix: "/v2")
    static let staging = ServerEnvironment(
        host: "staging.example.com", port: 8443, pathPrefix: "v2/",
        headers: ["X-Debug": "1", "Accept": "application/json"],
        query: [URLQueryItem(name: "key", value: "s3cr&t"), URLQueryItem(name: "page", value: "1")]
    )
}

@Suite struct ServerEnvironmentTests {
    private func modified(_ url: String, by environment: ServerEnvironment, headers: HTTPHeaders = [:]) async throws -> URLRequest {
        let transport = MockTransport()
        let session = Session(transport: transport, modifiers: [environment])
        _ = try await session.request(url, headers: headers)
        return try #require(transport.requests.first)
    }

    @Test(arguments: [
        ("users/42", "https://api.example.com/v2/users/42"),
        ("/users/42", "https://api.example.com/v2/users/42"),
        ("users?sort=name", "https://api.example.com/v2/users?sort=name"),
        ("?q=1", "https://api.example.com/v2?q=1"),
    ])
    func relativeRequestsGoUnderThePrefix(path: String, expected: String) async throws {
        #expect(try await modified(path, by: .production).url?.absoluteString == expected)
    }

    /// A complete URL on the environment's host is left as it is, not parsed again; one made
    /// relative to a base URL on that host is made whole.
    @Test func aCompleteURLIsLeftAndOneWithABaseIsMadeWhole() throws {
        var complete = OutgoingRequest(url: try #require(URL(string: "https://api.example.com/v2/users?sort=name")))
        try ServerEnvironment.production.modify(&complete)
        #expect(complete.url.absoluteString == "https://api.example.com/v2/users?sort=name")
        let base = try #require(URL(string: "https://api.example.com/v2/"))
        var relative = OutgoingRequest(url: try #require(URL(string: "users", relativeTo: base)))
        try ServerEnvironment.production.modify(&relative)
        #expect(relative.url.baseURL == nil)
        #expect(relative.url.absoluteString == "https://api.example.com/v2/users")
    }

    @Test func headersAndQueryAreAddedOnlyWhereMissing() async throws {
        let request = try await modified("items?page=3", by: .staging, headers: ["Accept": "text/csv"])
        #expect(request.url?.absoluteString == "https://staging.example.com:8443/v2/items?page=3&key=s3cr%26t")
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/csv")
        #expect(request.value(forHTTPHeaderField: "X-Debug") == "1")
    }

    @Test func requestsToTheSameHostGetHeadersAndQuery() async throws {
        let request = try await modified("https://staging.example.com:8443/other", by: .staging)
        #expect(request.url?.absoluteString == "https://staging.example.com:8443/other?key=s3cr%26t&page=1")
        #expect(request.value(forHTTPHeaderField: "X-Debug") == "1")
    }

    @Test func requestsToAnotherHostAreLeftAlone() async throws {
        let request = try await modified("https://elsewhere.example.org/x?y=1", by: .staging)
        #expect(request.url?.absoluteString == "https://elsewhere.example.org/x?y=1")
        #expect(request.value(forHTTPHeaderField: "X-Debug") == nil)
    }

    @Test func environmentsAreValuesUsersDefine() {
        #expect(ServerEnvironment.production != ServerEnvironment.staging)
        #expect(ServerEnvironment.production.scheme == "https")
    }

    @Test func aRefusedEnvironmentHeaderFailsTheModifier() async throws {
        let environment = ServerEnvironment(host: "api.example.com", headers: ["X-Bad": "a\nb"])
        let error = await #expect(throws: RequestError.self) {
            _ = try await modified("x", by: environment)
        }
        #expect(error?.code == .modifierFailed)
        #expect(error?.description.contains("X-Bad") == true)
    }
}
