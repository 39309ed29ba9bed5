import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Requests

/// Body values sent through a real `Session` to the loopback server, which parses them back.
@Suite struct SessionBodyTests {
    let session = Session(headers: ["X-Session": "1"])

    struct Order: Encodable, Sendable {
        let id: Int
        let customer: String
        let items: [String]
        let express: Bool
        let note: String?
    }

    @Test func jsonBodyArrivesParsed() async throws {
        let order = Order(id: 7, customer: "Zoë \"Z\" Ångström", items: ["日本", "🌎"], express: true, note: nil)
        let response = try await session.request(try server().url("/anything"), method: .post, body: JSONBody(order))
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.header("Content-Type") == "application/json; charset=utf-8")
        #expect(echo.header("X-Session") == "1")
        #expect(echo.json == ["customer": "Zoë \"Z\" Ångström", "express": true, "id": 7, "items": ["日本", "🌎"]])
    }

    @Test func aGETWithABodyIsRefusedWithTheFix() async throws {
        let error = await #expect(throws: RequestError.self) {
            try await session.request(try server().url("/anything"), body: JSONBody(["id": 7]))
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.localizedDescription.contains("pass method: .post (or .put, .patch) with body:") == true, "\(String(describing: error))")
        // An empty body is no body: a GET with one goes out.
        let response = try await session.request(try server().url("/anything"), body: EmptyBody())
        #expect(try response.validate().decode(Echo.self).method == "GET")
    }

    @Test func formBodyArrivesParsed() async throws {
        let response = try await session.request(
            try server().url("/anything"), method: .put,
            body: FormBody(["greeting": "Hello, ", "target": "🌎", "math": "1+1=2&3"])
        )
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.method == "PUT")
        #expect(String(decoding: echo.bodyData, as: UTF8.self) == "greeting=Hello%2C%20&math=1%2B1%3D2%263&target=%F0%9F%8C%8E")
        #expect(echo.form == [["greeting", "Hello, "], ["math", "1+1=2&3"], ["target", "🌎"]])
    }

    @Test func dataBodyArrivesByteForByteWithTheCallersContentType() async throws {
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let response = try await session.request(
            try server().url("/anything"), method: .post,
            body: DataBody(bytes, additionalHeaders: ["Content-Type": "application/octet-stream"]),
            headers: ["Content-Type": "application/x-custom"]
        )
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.bodyData == bytes)
        #expect(echo.header("Content-Type") == "application/x-custom")
    }

    @Test func emptyBodySendsNoBodyAndNoContentType() async throws {
        let response = try await session.request(try server().url("/anything"), method: .delete, body: EmptyBody())
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.method == "DELETE")
        #expect(echo.bodyData.isEmpty)
        #expect(echo.header("Content-Type") == nil)
    }

    @Test func aBodyThatCannotBeEncodedIsAnEncodingError() async throws {
        struct Reading: Encodable, Sendable { let value: Double }
        let url = try server().url("/anything")
        let error = await #expect(throws: RequestError.self) {
            try await session.request(url, method: .post, body: JSONBody(Reading(value: .infinity)))
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("POST \(url.absoluteString)") == true)
    }
}

/// `Encodable` parameters and parameter sets through a real `Session`.
@Suite struct SessionEncodableParameterTests {
    let session = Session()

    struct Search: Encodable, Sendable {
        struct Filter: Encodable, Sendable {
            let tags: [String]
            let open: Bool
        }

        let query: String
        let page: Int
        let filter: Filter
    }

    let search = Search(query: "swift & nio", page: 2, filter: .init(tags: ["a b", "日本"], open: true))

    @Test func formEncoderPutsAGetsParametersInTheQuery() async throws {
        let response = try await session.request(try server().url("/anything"), parameters: search,
                                                 encoder: URLEncodedFormParameterEncoder.default)
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.query == "filter%5Bopen%5D=1&filter%5Btags%5D%5B%5D=a%20b&filter%5Btags%5D%5B%5D=%E6%97%A5%E6%9C%AC&page=2&query=swift%20%26%20nio")
    }

    @Test func jsonEncoderSendsAJSONBody() async throws {
        let response = try await session.request(try server().url("/anything"), method: .post, parameters: search,
                                                 encoder: JSONParameterEncoder.default)
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.json == ["filter": ["open": true, "tags": ["a b", "日本"]], "page": 2, "query": "swift & nio"])
        #expect(echo.header("Content-Type") == "application/json")
    }

    @Test func parameterSetsSendAQueryAndABody() async throws {
        let response = try await session.request(
            try server().url("/anything"), method: .post,
            parameters: [.query(["page": 2]), .body(["name": "John"], encoding: JSONEncoding.default), .query(["page": 3, "size": 10])]
        )
        let echo = try response.validate().decode(Echo.self)
        #expect(echo.query == "page=3&size=10")
        #expect(echo.json == ["name": "John"])
    }

    @Test func conflictingBodiesAreAnEncodingError() async throws {
        let error = await #expect(throws: RequestError.self) {
            try await session.request(try server().url("/anything"), method: .post,
                                      parameters: [.body(["a": 1]), .body(["b": 2], encoding: JSONEncoding.default)])
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.description.contains("a request has one body") == true)
    }
}
