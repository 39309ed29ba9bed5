#if MCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import MCP
import Requests
#if AsyncHTTPClient
import RequestsAsyncHTTPClient
#endif
import RequestsMCP
import Testing

/// The Python reference SDK's server (`Tests/Fixtures/mcp_server.py`, PyPI `mcp`), started once.
let referenceServer = Result { try LoopbackServer(script: "mcp_server.py") }

/// What the server counted (`/counts`).
struct ServerCounts: Decodable {
    let deletes: Int
    let unauthorized: Int
    let gets: Int
    let resumed: Int
}

func counts() async throws -> ServerCounts {
    let (data, _) = try await URLSession.shared.data(from: try referenceServer.get().url("/counts"))
    return try JSONDecoder().decode(ServerCounts.self, from: data)
}

/// The engines a test runs over: the default one, and AsyncHTTPClient with its trait.
enum Engine: String, CaseIterable, CustomStringConvertible, Sendable {
    case urlSession
    #if AsyncHTTPClient
    case asyncHTTPClient
    #endif

    var description: String { rawValue }

    func session(_ interceptors: [any Interceptor] = []) -> Session {
        switch self {
        case .urlSession: Session(transport: URLSessionTransport(), interceptors: interceptors)
        #if AsyncHTTPClient
        case .asyncHTTPClient: Session(transport: AsyncHTTPClientTransport(), interceptors: interceptors)
        #endif
        }
    }
}

/// The text of a tool's answer.
func text(_ content: [Tool.Content]) -> String {
    content.compactMap { item -> String? in
        if case .text(let text, _, _) = item { return text }
        return nil
    }.joined()
}

/// A connected client over a `SessionMCPTransport` to the reference server.
func connectedClient(
    _ engine: Engine, path: String = "/mcp", interceptors: [any Interceptor] = [], configure: (Client) async -> Void = { _ in }
) async throws -> (Client, SessionMCPTransport) {
    let transport = SessionMCPTransport(endpoint: try referenceServer.get().url(path), session: engine.session(interceptors))
    let client = Client(name: "requests-tests", version: "1.0", capabilities: Client.Capabilities(roots: .init(listChanged: false)))
    await configure(client)
    try await client.connect(transport: transport)
    return (client, transport)
}

/// The MCP Swift SDK's `Client` over `SessionMCPTransport`, against the Python reference server.
@Suite(.serialized) struct ReferenceServerTests {
    @Test(arguments: Engine.allCases)
    func initializeListAndCallTools(_ engine: Engine) async throws {
        let (client, transport) = try await connectedClient(engine)
        #expect(await transport.sessionID != nil)
        #expect(await transport.protocolVersion == Version.latest)
        let (tools, _) = try await client.listTools()
        #expect(Set(tools.map(\.name)).isSuperset(of: ["add", "progress", "dropped", "roots"]))
        let (content, isError) = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
        #expect(text(content) == "5")
        #expect(isError != true)
        await client.disconnect()
    }

    @Test(arguments: Engine.allCases)
    func progressNotificationsArriveBeforeTheResult(_ engine: Engine) async throws {
        let seen = Guarded<[Double]>([])
        let (client, _) = try await connectedClient(engine) { client in
            await client.onNotification(ProgressNotification.self) { message in
                seen.withLock { $0.append(message.params.progress) }
            }
        }
        let (content, _) = try await client.callTool(
            name: "progress", arguments: ["steps": 4], meta: Metadata(progressToken: .string("p1")))
        #expect(text(content) == "4 steps")
        #expect(seen.withLock { $0 } == [1, 2, 3, 4])
        await client.disconnect()
    }

    /// The server closes the tool call's stream after its first step; the transport resumes it
    /// with `Last-Event-ID` and gets the rest, once each.
    @Test(arguments: Engine.allCases)
    func aStreamTheServerDropsMidAnswerIsResumedWithNothingLostOrRepeated(_ engine: Engine) async throws {
        let seen = Guarded<[Double]>([])
        let before = try await counts().resumed
        let (client, _) = try await connectedClient(engine) { client in
            await client.onNotification(ProgressNotification.self) { message in
                seen.withLock { $0.append(message.params.progress) }
            }
        }
        let (content, _) = try await client.callTool(
            name: "dropped", arguments: ["steps": 4], meta: Metadata(progressToken: .string("d1")))
        #expect(text(content) == "4 steps, resumed")
        #expect(seen.withLock { $0 } == [1, 2, 3, 4])
        #expect(try await counts().resumed > before)
        await client.disconnect()
    }

    /// The server asks for the roots outside any request of the client's: on the GET stream.
    @Test(arguments: Engine.allCases)
    func theServersRequestOverTheGetStreamIsAnswered(_ engine: Engine) async throws {
        let before = try await counts().gets
        let (client, _) = try await connectedClient(engine) { client in
            await client.withRootsHandler { [Root(uri: "file:///work/project", name: "project")] }
        }
        let (content, _) = try await client.callTool(name: "roots")
        #expect(text(content) == "file:///work/project")
        #expect(try await counts().gets > before)
        await client.disconnect()
    }

    @Test(arguments: Engine.allCases)
    func disconnectEndsTheSessionWithADelete(_ engine: Engine) async throws {
        let before = try await counts().deletes
        let (client, transport) = try await connectedClient(engine)
        _ = try await client.listTools()
        await client.disconnect()
        #expect(try await counts().deletes == before + 1)
        #expect(await transport.sessionID == nil)
    }

    @Test(arguments: Engine.allCases)
    func anExpiredSessionIsTheSDKsSessionExpired(_ engine: Engine) async throws {
        let (client, transport) = try await connectedClient(engine)
        let (data, _) = try await URLSession.shared.data(from: try referenceServer.get().url("/expire"))
        _ = data
        let error = await #expect(throws: MCPError.self) { _ = try await client.listTools() }
        #expect(error?.localizedDescription.contains("Session expired") == true, "\(String(describing: error))")
        #expect(await transport.sessionID == nil)
        await client.disconnect()
    }

    /// A bearer token the server turns down is refreshed once by the session's
    /// `BearerAuthentication`, and the request sent again.
    @Test(arguments: Engine.allCases)
    func a401IsRefreshedOnce(_ engine: Engine) async throws {
        let tokens = RefreshingTokens()
        let before = try await counts().unauthorized
        let auth = BearerAuthentication(provider: tokens, scope: .anyOrigin)
        let (client, _) = try await connectedClient(engine, path: "/mcp?auth=1", interceptors: [auth])
        let (content, _) = try await client.callTool(name: "add", arguments: ["a": 1, "b": 1])
        #expect(text(content) == "2")
        #expect(tokens.refreshes.withLock { $0 } == 1)
        #expect(try await counts().unauthorized == before + 1)
        await client.disconnect()
    }
}

/// Tokens that start stale and are fresh after one refresh.
final class RefreshingTokens: TokenProvider {
    let refreshes = Guarded(0)
    private let current = Guarded("stale")

    func token() async throws -> String { current.withLock { $0 } }

    func refreshToken(rejected: String) async throws -> String {
        refreshes.withLock { $0 += 1 }
        current.withLock { $0 = "fresh" }
        return "fresh"
    }
}

#endif
