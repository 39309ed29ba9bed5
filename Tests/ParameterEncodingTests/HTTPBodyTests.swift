import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct HTTPBodyTests {
    let post = (try? URLRequest(url: "https://example.com/upload", method: .post)) ?? URLRequest(url: URL(fileURLWithPath: "/"))

    func text(_ body: some HTTPBody) throws -> String {
        String(decoding: try body.encode(), as: UTF8.self)
    }

    @Test func emptyBodyLeavesTheRequestUntouched() throws {
        #expect(EmptyBody().isEmpty)
        #expect(try EmptyBody().applied(to: post) == post)
        #expect(try DataBody(Data()).applied(to: post) == post)
    }

    @Test func dataBodySendsItsBytesAndHeaders() throws {
        let bytes = Data([0, 1, 2, 0xFF])
        let request = try DataBody(bytes, additionalHeaders: ["Content-Type": "image/png", "X-Checksum": "abc"]).applied(to: post)
        #expect(request.httpBody == bytes)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(request.value(forHTTPHeaderField: "X-Checksum") == "abc")
        #expect(try DataBody(bytes).applied(to: post).value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func theRequestsOwnHeadersWin() throws {
        var request = post
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "content-type")
        let encoded = try JSONBody(["a": 1]).applied(to: request)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(encoded.allHTTPHeaderFields?.count == 1)
    }

    @Test func refusedHeadersAreErrors() throws {
        let error = try #require(throws: ParameterEncodingError.self) {
            try DataBody(Data([1]), additionalHeaders: ["X-Bad": "a\r\nInjected: yes"]).applied(to: post)
        }
        #expect(error.code == .invalidHeader)
    }

    struct Login: Codable, Equatable {
        let user: String
        let password: String
        let remember: Bool?
    }

    @Test func jsonBodyEncodesWithSortedKeys() throws {
        let body = JSONBody(Login(user: "arthur", password: "42", remember: nil))
        #expect(try text(body) == #"{"password":"42","user":"arthur"}"#)
        let request = try body.applied(to: post)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        #expect(try JSONDecoder().decode(Login.self, from: request.httpBody ?? Data()) == Login(user: "arthur", password: "42", remember: nil))
    }

    @Test func jsonBodyUsesTheGivenEncoder() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        #expect(try text(JSONBody(["userName": "a"], encoder: encoder)) == #"{"userName":"a"}"#)
        struct Person: Encodable { let firstName = "Ford" }
        #expect(try text(JSONBody(Person(), encoder: encoder)) == #"{"first_name":"Ford"}"#)
    }

    @Test func jsonBodyErrorsNameTheCodingPath() throws {
        struct Reading: Encodable, Sendable { let values: [Double] }
        let error = try #require(throws: EncodingError.self) { try JSONBody(Reading(values: [1, .nan])).encode() }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue).contains("values"))
    }

    @Test func formBodyFromStringsMatchesTheIssueExample() throws {
        let body = FormBody(["greeting": "Hello, ", "target": "🌎"])
        #expect(try text(body) == "greeting=Hello%2C%20&target=%F0%9F%8C%8E")
        let request = try body.applied(to: post)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func formBodyFromQueryItemsKeepsTheirOrder() throws {
        let items = [URLQueryItem(name: "z", value: "1 2"), URLQueryItem(name: "a&b", value: "c=d"), URLQueryItem(name: "flag", value: nil)]
        #expect(try text(FormBody(items)) == "z=1%202&a%26b=c%3Dd&flag")
        #expect(try text(FormBody(items, encoding: URLEncoding(escaping: .whatwgForm))) == "z=1+2&a%26b=c%3Dd&flag")
        #expect(FormBody([URLQueryItem]()).isEmpty)
    }

    @Test func formBodyFromParametersIsWhatURLEncodingWrites() throws {
        let parameters: Parameters = ["user": ["name": "Zoë", "tags": ["a", "b"]] as Parameters, "active": true, "page": 2]
        let encoding = URLEncoding(arrayEncoding: .indexInBrackets, boolEncoding: .literal)
        #expect(try text(FormBody(parameters, encoding: encoding)) == encoding.query(parameters))
        #expect(try text(FormBody(parameters)) == "active=1&page=2&user%5Bname%5D=Zo%C3%AB&user%5Btags%5D%5B%5D=a&user%5Btags%5D%5B%5D=b")
    }

    @Test func formBodyErrorsNameTheKeyPath() throws {
        var deep: Parameters = ["leaf": 1]
        for _ in 0..<600 { deep = ["a": deep] }
        let error = try #require(throws: ParameterEncodingError.self) { try FormBody(deep).encode() }
        #expect(error.code == .nestingTooDeep)
        #expect(error.keyPath?.hasPrefix("a.a.a") == true)
    }
}
