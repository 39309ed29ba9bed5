#if OpenAPI
import Foundation
import HTTPTypes
import LoopbackFixture
import OpenAPIRuntime
import Requests
import RequestsOpenAPI
#if AsyncHTTPClient
import RequestsAsyncHTTPClient
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Server

/// The loopback server (`loopback_server.py`) shared by the tests of this process.
func server() throws -> LoopbackServer {
    try LoopbackServer.shared.get()
}

/// A key no other test uses, for the server's counters.
func uniqueKey(_ name: String) -> String {
    "\(name)-\(UUID().uuidString.prefix(8))"
}

// MARK: - Engines

/// The engines a generated client runs over in these tests: `URLSession` always,
/// AsyncHTTPClient when the package is built with both traits.
enum Engine: String, CustomStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient

    static var all: [Engine] {
        #if AsyncHTTPClient
        [.urlSession, .asyncHTTPClient]
        #else
        [.urlSession]
        #endif
    }

    var description: String { rawValue }

    /// A new transport of this engine.
    func makeTransport() -> any Transport {
        switch self {
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 64
            return URLSessionTransport(configuration: configuration)
        case .asyncHTTPClient:
            #if AsyncHTTPClient
            return AsyncHTTPClientTransport()
            #else
            return URLSessionTransport()
            #endif
        }
    }
}

// MARK: - Clients

/// Runs `body` with a generated client over a session of its own on `engine`, and shuts the
/// session down afterwards.
///
/// - Parameters:
///   - engine: The engine under the session.
///   - serverURL: The client's server; the loopback server by default.
///   - wrap: Wraps the engine's transport (in a `RecordingTransport`, say).
///   - interceptors: The session's interceptors.
///   - monitors: The session's monitors.
///   - middlewares: The generated client's middlewares.
///   - body: The test, given the client and the session.
/// - Returns: What `body` returned.
func withClient<T>(
    _ engine: Engine,
    serverURL: URL? = nil,
    wrap: (any Transport) -> any Transport = { $0 },
    interceptors: [any Interceptor] = [],
    monitors: [any EventMonitor] = [],
    middlewares: [any ClientMiddleware] = [],
    _ body: (Client, Session) async throws -> T
) async throws -> T {
    let session = Session(transport: wrap(engine.makeTransport()), interceptors: interceptors, monitors: monitors)
    let client = Client(serverURL: try serverURL ?? server().baseURL, transport: SessionClientTransport(session), middlewares: middlewares)
    do {
        let result = try await body(client, session)
        try await session.shutdown()
        return result
    } catch {
        try? await session.shutdown()
        throw error
    }
}

/// A plain generated client over `URLSession`, for reading the server's counters.
func plainClient() throws -> Client {
    Client(serverURL: try server().baseURL, transport: SessionClientTransport(Session(cookies: .none)))
}

/// The `RequestError` inside a generated client's `ClientError`.
func requestError(in error: any Error) -> RequestError? {
    ((error as? ClientError)?.underlyingError ?? error) as? RequestError
}

/// The body of an echo, decoded from base64.
func echoedBody(_ echo: Components.Schemas.Echo) -> Data {
    Data(base64Encoded: echo.body) ?? Data()
}

/// The fields of an echo with this name, in the order they arrived.
func echoedValues(_ echo: Components.Schemas.Echo, _ name: String) -> [String] {
    echo.headers.compactMap { pair in
        pair.count == 2 && pair[0].lowercased() == name.lowercased() ? pair[1] : nil
    }
}

#endif
