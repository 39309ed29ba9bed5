#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Requests
import RequestsOpenAPI
import RequestsTesting
import Testing

/// Answers the generated client's request with the response fields it records.
struct ResponseCapture: ClientMiddleware {
    let seen = Guarded<[HTTPResponse]>([])

    func intercept(
        _ request: HTTPRequest, body: OpenAPIRuntime.HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?)
    ) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let (response, body) = try await next(request, body, baseURL)
        seen.withLock { $0.append(response) }
        return (response, body)
    }
}

/// The same generated client over `StubTransport`: no server, the whole pipeline.
@Suite struct GeneratedClientStubTests {
    let base = URL(string: "https://api.example/v1/")!

    private func echo(_ request: RecordedRequest) throws -> StubResponse {
        let echo = Components.Schemas.Echo(
            method: request.method.rawValue, path: request.request.target.path, query: request.request.target.query ?? "",
            headers: request.headers.map { [$0.name, $0.value] }, body: request.body.base64EncodedString()
        )
        return try .json(echo)
    }

    @Test func theStubSeesTheOperationAsTheClientBuiltIt() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/v1/anything/items/*", respond: .computed(echo))
        let client = Client(serverURL: base, transport: SessionClientTransport(Session(transport: stub)))
        let echo = try await client.getItem(path: .init(itemID: "a/b"), query: .init(tag: ["x y"]), headers: .init(xTrace: "t")).ok.body.json
        #expect(route.hits == 1)
        let request = try #require(stub.requests.first)
        // The base's path, then the operation's, the query as the client encoded it.
        #expect(request.url.absoluteString == "https://api.example/v1/anything/items/a%2Fb?tag=x%20y")
        #expect(echo.path == "/v1/anything/items/a%2Fb")
        #expect(request.request.options.operationName == "getItem")
        #expect(request.headers.map(\.name) == ["X-Trace", "Accept"])
    }

    @Test func repeatedFieldsKeepTheirOrderBothWays() async throws {
        let stub = StubTransport()
        stub.on(respond: .text("ok", headers: [("X-Rep", "1"), ("X-Other", "o"), ("X-Rep", "2")].reduce(into: HTTPHeaders()) { $0.append(name: $1.0, value: $1.1) }))
        var capture = CapturingMiddleware()
        capture.appending = [HTTPField(name: .init("X-Out")!, value: "1"), HTTPField(name: .init("X-Mid")!, value: "m"), HTTPField(name: .init("X-Out")!, value: "2")]
        let responses = ResponseCapture()
        let client = Client(serverURL: base, transport: SessionClientTransport(Session(transport: stub)), middlewares: [capture, responses])
        _ = try? await client.listCookies()
        let sent = try #require(stub.requests.first).headers
        #expect(sent.filter { $0.name.hasPrefix("X-") }.map { "\($0.name): \($0.value)" } == ["X-Out: 1", "X-Mid: m", "X-Out: 2"])
        let received = try #require(responses.seen.withLock { $0.first }).headerFields
        #expect(received.filter { $0.name.rawName.hasPrefix("X-") }.map { "\($0.name.rawName): \($0.value)" } == ["X-Rep: 1", "X-Other: o", "X-Rep: 2"])
    }

    @Test func retryAndAuthenticationWorkOverTheStub() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/flaky/*", respond: .status(503), .computed(echo))
        stub.on(.get, "/v1/bearer/r", respond: try .json(Components.Schemas.Refusal(error: "invalid_token"), status: 401, headers: ["WWW-Authenticate": "Bearer realm=\"r\""]))
        stub.on(.get, "/v1/bearer/r", headers: ["Authorization": "Bearer fresh"], respond: try .json(Components.Schemas.Token(token: "fresh")))
        struct Tokens: TokenProvider {
            func token() async throws -> String { "stale" }
            func refreshToken(rejected: String) async throws -> String { "fresh" }
        }
        let session = Session(transport: stub, interceptors: [
            RetryPolicy(baseDelay: .zero), BearerAuthentication(provider: Tokens(), scope: .anyOrigin),
        ])
        let client = Client(serverURL: base, transport: SessionClientTransport(session))
        #expect(try await client.flaky(path: .init(key: "k", failures: 1)).ok.body.json.path == "/v1/flaky/k/1")
        #expect(try await client.whoAmI(path: .init(realm: "r")).ok.body.json.token == "fresh")
        #expect(stub.requests.map(\.description).suffix(2) == ["GET https://api.example/v1/bearer/r", "GET https://api.example/v1/bearer/r"])
    }

    @Test func aHeadRequestHasNoBody() async throws {
        let stub = StubTransport()
        stub.on(.head, respond: .status(200, headers: ["Content-Length": "1234"]))
        let transport = SessionClientTransport(Session(transport: stub))
        let (response, body) = try await transport.send(HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/items"), body: nil, baseURL: base, operationID: "peek")
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentLength] == "1234")
        #expect(body == nil)
    }

    @Test func aKnownLengthIsTheBodysLengthUnlessTheEngineDecodedIt() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/plain", respond: .data(Data("12345".utf8), headers: ["Content-Length": "5"]))
        stub.on(.get, "/v1/decoded", respond: .data(Data("12345".utf8), headers: ["Content-Length": "3", "Content-Encoding": "gzip"]))
        let transport = SessionClientTransport(Session(transport: stub))
        let (_, plain) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/plain"), body: nil, baseURL: base, operationID: "a")
        #expect(plain?.length == .known(5))
        let (_, decoded) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/decoded"), body: nil, baseURL: base, operationID: "b")
        #expect(decoded?.length == .unknown)
        #expect(try await String(collecting: try #require(decoded), upTo: 100) == "12345")
    }

    // HTTPRequest itself turns a control character into a space (and trims one at either end).
    @Test(arguments: ["/items/a b", "/items?q=a b", "/items?q=#x", "/a\u{7F}b"])
    func aPathThatCannotBeInAURLIsRefusedNamingIt(path: String) async throws {
        let stub = StubTransport()
        let transport = SessionClientTransport(Session(transport: stub))
        let error = await #expect(throws: RequestError.self) {
            try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), body: nil, baseURL: base, operationID: "bad")
        }
        #expect(error?.code == .invalidURL)
        #expect(error?.description.contains("cannot be joined to https://api.example/v1/") == true, "\(String(describing: error))")
        #expect(stub.requests.isEmpty)
    }

    @Test(arguments: [1000, -1])
    func aStatusHTTPCannotCarryIsAnErrorNotACrash(status: Int) async throws {
        let stub = StubTransport()
        stub.on(respond: .status(status))
        let transport = SessionClientTransport(Session(transport: stub))
        let error = await #expect(throws: RequestError.self) {
            try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/odd"), body: nil, baseURL: base, operationID: "odd")
        }
        #expect(error?.code == .transportFailed)
        #expect(error?.description.contains("status \(status)") == true)
    }

    @Test func aControlCharacterInAResponseValueIsAnErrorNotASpace() async throws {
        let stub = StubTransport()
        stub.on(respond: .status(200, headers: ["X-Bad": "a\u{1}b"]))
        let transport = SessionClientTransport(Session(transport: stub))
        let error = await #expect(throws: RequestError.self) {
            try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/odd"), body: nil, baseURL: base, operationID: "odd")
        }
        #expect(error?.description.contains("X-Bad") == true)
    }

    @Test func spacesAroundAResponseValueAreNotPartOfIt() async throws {
        let stub = StubTransport()
        stub.on(respond: .status(200, headers: ["X-Padded": " \tvalue \t"]))
        let transport = SessionClientTransport(Session(transport: stub))
        let (response, _) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/a"), body: nil, baseURL: base, operationID: "a")
        #expect(response.headerFields[HTTPField.Name("X-Padded")!] == "value")
    }

    @Test func theTransportsOptionsAndInterceptorsApplyToItsOperationsOnly() async throws {
        let stub = StubTransport()
        stub.on(respond: .text("ok"))
        struct Tag: RequestOptionKey { static var defaultValue: String { "none" } }
        struct Stamp: Interceptor {
            func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
                var request = request
                request.headers.append(name: "X-Stamp", value: request.options[Tag.self])
                return try await next(request)
            }
        }
        var options = RequestOptions()
        options[Tag.self] = "api"
        let session = Session(transport: stub)
        let transport = SessionClientTransport(session, interceptors: [Stamp()], options: options)
        _ = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/a"), body: nil, baseURL: base, operationID: "a")
        _ = try await session.request("https://api.example/plain")
        #expect(stub.requests.map { $0.headers.value(for: "X-Stamp") } == ["api", nil])
    }
}
#endif
