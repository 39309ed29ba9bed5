import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests
import RequestsTesting
import Testing

/// What a route does not match, URL patterns as strings, and answers without bodies.
@Suite struct StubMatchingTests {
    private func request(_ url: String, method: HTTPMethod = .get, headers: [String: String] = [:], body: String = "") throws -> RecordedRequest {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method.rawValue
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try RecordedRequest(request, body: Data(body.utf8))
    }

    @Test func eachPartOfAMatcherCanRefuseARequest() throws {
        let get = try request("https://api.example/users/7?page=2&tag=a&tag=b", headers: ["Accept": "application/json"], body: "{\"id\":7}")
        #expect(RequestMatcher(.get, "/users/7", query: ["tag": "b", "tag": "a"], headers: ["accept": "application/json"]).matches(get))
        #expect(RequestMatcher(.post, "/users/7").mismatches(get) == ["method is GET, not POST"])
        #expect(RequestMatcher(.get, "/users/8").mismatches(get) == ["path is /users/7, not /users/8"])
        #expect(RequestMatcher(.get, "/users/7", query: ["page": "3"]).mismatches(get) == ["query page is \"2\", not \"3\""])
        #expect(RequestMatcher(.get, "/users/7", query: ["tag": "a", "tag": "a"]).mismatches(get) == ["query tag is \"a\", \"b\", not \"a\""])
        #expect(RequestMatcher(headers: ["Accept": "text/html"]).mismatches(get) == ["header Accept is \"application/json\", not \"text/html\""])
        #expect(RequestMatcher(headers: ["X-Missing": "1"]).mismatches(get) == ["header X-Missing is missing"])
        struct ID: Codable, Equatable { let id: Int }
        #expect(RequestMatcher(body: .json(ID(id: 7))).matches(get))
        #expect(RequestMatcher(body: .json(ID(id: 8))).mismatches(get) == ["body does not match decoding as JSON to ID(id: 8)"])
        #expect(!RequestMatcher(body: .containing("\"id\":8")).matches(get))
        #expect(RequestMatcher(nil, "https://api.example/users/7").matches(get), "a whole URL without a query leaves the query to query:")
        #expect(!RequestMatcher(nil, "https://other.example/users/7").matches(get))
        #expect(!RequestMatcher(nil, "https://api.example/users/7?page=3").matches(get))
        #expect(RequestMatcher(nil, "/users/7?page=2").matches(get), "a query written in the path must be carried")
        #expect(!RequestMatcher(nil, "/users/7?page=1").matches(get))
    }

    @Test func stringPatternsReadAsPathsPrefixesWildcardsAndInterpolation() throws {
        let id = 7
        #expect(RequestMatcher(nil, "/users/\(id)").matches(try request("https://a.example/users/7")))
        #expect(RequestMatcher(nil, "*").matches(try request("https://a.example/anything")))
        #expect(RequestMatcher(nil, "/").matches(try request("https://a.example")))
        #expect(RequestMatcher(nil, "/api/*").matches(try request("https://a.example/api/v1/x")))
        #expect(!RequestMatcher(nil, "/api/*").matches(try request("https://a.example/apix")))
        #expect(RequestMatcher(nil, "https://a.example/files/*").matches(try request("https://a.example/files/b.txt")))
        #expect(!RequestMatcher(nil, "https://a.example/files/*").matches(try request("https://b.example/files/b.txt")))
        #expect(RequestMatcher(nil, "/a b").matches(try request("https://a.example/a%20b")), "paths compare decoded")
        #expect(RequestMatcher(query: ["debug": ""]).matches(try request("https://a.example/?debug")))
    }

    @Test func answersToHEADAnd204And304CarryNoBodyAsFromAServer() async throws {
        let stub = StubTransport()
        stub.on(.head, "/file", respond: .text("12345"))
        stub.on(.delete, "/item", respond: .status(204))
        stub.on(.get, "/cached", respond: .status(304, body: Data("stale".utf8)))
        let session = Session(transport: stub)
        let head = try await session.request("https://a.example/file", method: .head)
        #expect(head.data.isEmpty)
        #expect(head.headers["Content-Length"] == "5")
        let deleted = try await session.request("https://a.example/item", method: .delete)
        #expect(deleted.statusCode == 204 && deleted.data.isEmpty)
        #expect(deleted.headers["Content-Length"] == nil)
        let cached = try await session.request("https://a.example/cached")
        #expect(cached.data.isEmpty && cached.headers["Content-Length"] == nil)
    }

    @Test func aStreamSendsItsFirstChunkAtOnceAndWaitsBetweenTheOthers() async throws {
        let stub = StubTransport()
        stub.on(respond: .stream([Data("a".utf8), Data("b".utf8)], every: .milliseconds(300)))
        let stream = try await Session(transport: stub).stream("https://a.example/")
        var chunks = stream.body.makeAsyncIterator()
        let start = ContinuousClock.now
        _ = try await chunks.next()
        let first = ContinuousClock.now - start
        _ = try await chunks.next()
        let second = ContinuousClock.now - start
        #expect(second >= .milliseconds(300), "the interval was not waited: \(second)")
        #expect(first < second - .milliseconds(200), "the first chunk waited: \(first)")
    }

    @Test func aDelayedHeadEndsAtOnceWhenTheCallingTaskIsCancelled() async throws {
        let stub = StubTransport()
        let route = stub.on(respond: StubResponse.status(200).delayed(by: .seconds(30)))
        let session = Session(transport: stub)
        let start = ContinuousClock.now
        let call = Task { try await session.request("https://a.example/") }
        // Cancelled once the request waits at the stub, however long a loaded machine takes to
        // bring it there.
        let reached = ContinuousClock.now + .seconds(10)
        while route.hits == 0, ContinuousClock.now < reached {
            try await Task.sleep(for: .milliseconds(10))
        }
        call.cancel()
        let result = await call.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(route.hits == 1)
    }

    @Test func requestsCanBeFilteredAndUnusedRoutesListed() async throws {
        let stub = StubTransport()
        stub.on(.get, "/a", respond: .status(200))
        let unused = stub.on(.get, "/never", respond: .status(200))
        let session = Session(transport: stub)
        _ = try await session.request("https://a.example/a?x=1")
        _ = try await session.request("https://a.example/a?x=2")
        #expect(stub.requests(matching: RequestMatcher(nil, "/a", query: ["x": "2"])).map(\.url.absoluteString) == ["https://a.example/a?x=2"])
        #expect(stub.routesNeverHit.map(\.matcher.description) == [unused.matcher.description])
    }

    @Test func aComputedAnswerIsMadeFromTheRequestAndRoutesCanBeRemoved() async throws {
        let stub = StubTransport()
        stub.on(.post, "/echo", respond: .computed { request in .data(request.body, headers: ["X-Path": request.url.path]) })
        stub.on(.get, "/users/*", respond: .computed { request in
            guard let id = Int(request.url.lastPathComponent) else { return .status(400) }
            return try .json(["id": id])
        })
        let session = Session(transport: stub)
        let echoed = try await session.request("https://a.example/echo", method: .post, body: DataBody(Data("hi".utf8)))
        #expect(echoed.data == Data("hi".utf8))
        #expect(echoed.headers["X-Path"] == "/echo")
        #expect(try await session.request("https://a.example/users/42").text == "{\"id\":42}")
        #expect(try await session.request("https://a.example/users/x").statusCode == 400)
        stub.removeAllRoutes()
        await #expect(throws: RequestError.self) { try await session.request("https://a.example/users/42") }
        #expect(stub.requests.count == 4)
    }
}
