import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests
import Testing

/// Pipeline.md's bearer example as pasted, against the loopback server's `/bearer/<realm>`: the
/// actor that refreshes, the scope that says where the token may go, a session without a
/// `ServerEnvironment`. Only the origin and `fetchNewToken()` are the server's.
@Suite struct PipelineExampleTests {
    actor Tokens: TokenProvider {
        var current = "initial token"
        let fetchNewToken: @Sendable () async throws -> String

        init(fetchNewToken: @escaping @Sendable () async throws -> String) {
            self.fetchNewToken = fetchNewToken
        }

        func token() async throws -> String { current }
        func refreshToken(rejected: String) async throws -> String {
            current = try await fetchNewToken()
            return current
        }
    }

    @Test func theBearerExampleRefreshesOnceAndSucceeds() async throws {
        let server = try server()
        let realm = "docs-\(UUID().uuidString.prefix(8))"
        let rotate = server.url("/bearer/\(realm)/rotate")
        let tokens = Tokens {
            let (data, _) = try await URLSession.shared.data(from: rotate)
            struct Rotated: Decodable { let token: String }
            return try JSONDecoder().decode(Rotated.self, from: data).token
        }
        // As Pipeline.md writes it, with the loopback server's origin.
        let bearer = BearerAuthentication(provider: tokens, scope: .origins([try Origin(server.url("/"))]))
        let api = Session(interceptors: [bearer])
        let response = try await api.request(server.url("/bearer/\(realm)")).validate()
        #expect(response.statusCode == 200)
        #expect(await tokens.current == "\(realm)-1")
        // Without a scope, a session with no ServerEnvironment refuses to send the token anywhere.
        let unscoped = Session(interceptors: [BearerAuthentication(provider: tokens)])
        let error = await #expect(throws: RequestError.self) { try await unscoped.request(server.url("/bearer/\(realm)")) }
        #expect(error?.code == .authenticationFailed)
    }
}
