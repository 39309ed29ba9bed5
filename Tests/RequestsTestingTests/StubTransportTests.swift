import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests
import RequestsTesting
import Testing

/// `StubTransport` on its own and under a `Session`: matching, answers, sequences, failures.
@Suite struct StubTransportTests {
    struct User: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    @Test func routesMatchOnMethodPathPrefixURLQueryHeadersAndBody() async throws {
        let stub = StubTransport()
        let byPath = stub.on(.get, "/users/7", respond: .text("path"))
        let byPrefix = stub.on(.get, "/files/*", respond: .text("prefix"))
        let byURL = stub.on(.get, "https://other.example/exact?x=1", respond: .text("exact"))
        let byQuery = stub.on(.get, "/search", query: ["q": "swift"], respond: .text("query"))
        let byHeader = stub.on(.get, "/me", headers: ["Accept": "application/json"], respond: .text("header"))
        let byBody = stub.on(.post, "/users", body: .json(User(id: 1, name: "Ada")), respond: .status(201))
        let session = Session(transport: stub)

        #expect(try await session.request("https://api.example/users/7").text == "path")
        #expect(try await session.request("https://api.example/files/a/b.txt").text == "prefix")
        #expect(try await session.request("https://other.example/exact?x=1").text == "exact")
        #expect(try await session.request("https://api.example/search?page=2&q=swift").text == "query")
        #expect(try await session.request("https://api.example/me", headers: ["accept": "application/json"]).text == "header")
        let created = try await session.request(
            "https://api.example/users", method: .post, parameters: ["name": "Ada", "id": 1], encoding: JSONEncoding.default
        )
        #expect(created.statusCode == 201)
        #expect([byPath, byPrefix, byURL, byQuery, byHeader, byBody].map(\.hits) == [1, 1, 1, 1, 1, 1])
        #expect(stub.routesNeverHit.isEmpty)
        #expect(stub.requests.count == 6)
        #expect(byBody.requests.first?.bodyText.contains("\"Ada\"") == true)
    }

    /// A load test can let go of what the stub and a recorder keep; a route keeps its place in
    /// its answers.
    @Test func requestsAndRecordingsCanBeForgotten() async throws {
        let stub = StubTransport()
        let route = stub.on(.get, "/a", respond: .status(503), .text("ok"))
        let recorder = RecordingTransport(wrapping: stub)
        let session = Session(transport: recorder)
        #expect(try await session.request("https://example.com/a").statusCode == 503)
        #expect(stub.requests.count == 1 && route.hits == 1 && recorder.har.log.entries.count == 1)
        stub.removeAllRequests()
        recorder.removeAllEntries()
        #expect(stub.requests.isEmpty && route.hits == 0 && route.requests.isEmpty && recorder.har.log.entries.isEmpty)
        #expect(try await session.request("https://example.com/a").text == "ok", "the route went on to its second answer")
        #expect(stub.requests.count == 1 && route.hits == 1 && recorder.har.log.entries.count == 1)
    }

    @Test func theRouteAddedLastWins() async throws {
        let stub = StubTransport()
        let general = stub.on(respond: .status(404))
        let specific = stub.on(.get, "/ok", respond: .text("ok"))
        let session = Session(transport: stub)
        #expect(try await session.request("https://api.example/ok").statusCode == 200)
        #expect(try await session.request("https://api.example/missing").statusCode == 404)
        try specific.expectHits(1)
        try general.expectHits(1)
        #expect(throws: StubExpectationFailed.self) { try general.expectHits(2) }
    }

    @Test func anUnmatchedRequestNamesItselfAndTheNearestRoutes() async throws {
        let stub = StubTransport()
        stub.on(.post, "/users", respond: .status(201))
        stub.on(.get, "/users", query: ["page": "1"], respond: .status(200))
        stub.on(.delete, "/admin/*", respond: .status(204))
        stub.on(.put, "/x", headers: ["If-Match": "1"], respond: .status(200))
        let session = Session(transport: stub)
        let error = await #expect(throws: RequestError.self) {
            try await session.request("https://api.example/users?page=2", headers: ["X-Trace": "t1"])
        }
        let text = try #require(error).description
        #expect(text.contains("no stub route matches GET https://api.example/users?page=2"), "\(text)")
        #expect(text.contains("X-Trace: t1"), "\(text)")
        // Nearest first: the GET that differs only in its query, then the POST on the same path.
        let nearest = try #require(text.range(of: "nearest:")).upperBound
        let rest = String(text[nearest...])
        let query = try #require(rest.range(of: "GET /users?page=1: query page is \"2\", not \"1\""))
        let method = try #require(rest.range(of: "POST /users: method is GET, not POST"))
        #expect(query.lowerBound < method.lowerBound, "\(text)")
        #expect(!rest.contains("PUT /x"), "only the three nearest are listed: \(text)")
        #expect(stub.requests.count == 1, "an unmatched request is recorded too")
    }

    @Test func answersCarryStatusHeadersAndEveryKindOfBody() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stub-\(UUID().uuidString).json")
        try Data("{\"from\":\"file\"}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stub = StubTransport()
        stub.on(.get, "/json", respond: try .json(User(id: 7, name: "Ada"), headers: ["ETag": "\"v1\""]))
        stub.on(.get, "/data", respond: .data(Data([0, 1, 2])))
        stub.on(.get, "/file", respond: .file(file))
        stub.on(.get, "/gone", respond: .file(file.appendingPathExtension("missing")))
        stub.on(.get, "/teapot", respond: .text("short and stout", status: 418))
        let session = Session(transport: stub)

        let json = try await session.request("https://api.example/json")
        #expect(try json.decode(User.self) == User(id: 7, name: "Ada"))
        #expect(json.headers["Content-Type"] == "application/json")
        #expect(json.headers["ETag"] == "\"v1\"")
        #expect(json.headers["Content-Length"] == String(json.data.count))
        let data = try await session.request("https://api.example/data")
        #expect(data.data == Data([0, 1, 2]))
        #expect(data.headers["Content-Type"] == "application/octet-stream")
        let fromFile = try await session.request("https://api.example/file")
        #expect(fromFile.text == "{\"from\":\"file\"}")
        #expect(fromFile.headers["Content-Type"] == "application/json")
        let teapot = try await session.request("https://api.example/teapot")
        #expect(teapot.statusCode == 418 && teapot.text == "short and stout")
        let missing = await #expect(throws: RequestError.self) { try await session.request("https://api.example/gone") }
        #expect(missing?.description.contains("missing") == true)
    }

    @Test func aSequenceAnswersInTurnAndTheRetryPolicySeesEachAnswer() async throws {
        let stub = StubTransport()
        let flaky = stub.on(.get, "/flaky", respond: .status(503), .reset, .text("ok"))
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        let session = Session(transport: stub, interceptors: [policy])
        let response = try await session.request("https://api.example/flaky")
        #expect(response.statusCode == 200)
        #expect(response.failedAttempts.map(\.description) == ["#1 status 503", "#2 connection lost"])
        #expect(flaky.hits == 3)
        // The last answer repeats.
        #expect(try await session.request("https://api.example/flaky").text == "ok")
    }

    @Test(arguments: [
        (StubResponse.refused, TransportError.Kind.cannotConnect), (.reset, .connectionLost), (.timedOut, .timedOut),
        (.dnsFailure, .dnsFailed), (.tlsFailure, .tls), (.failure(.other, detail: "odd"), .other),
    ])
    func failuresAreClassifiedAsTheTransportContractSays(answer: StubResponse, kind: TransportError.Kind) async throws {
        let stub = StubTransport()
        stub.on(respond: answer)
        let error = await #expect(throws: RequestError.self) { try await Session(transport: stub).request("https://api.example/") }
        #expect(error?.code == (kind == .timedOut ? .timedOut : .transportFailed))
        #expect(error?.transportErrorKind == kind)
    }
}
