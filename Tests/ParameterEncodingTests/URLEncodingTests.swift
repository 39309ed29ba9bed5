import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct URLEncodingTests {
    func request(_ url: String, method: HTTPMethod = .get) throws -> URLRequest {
        try URLRequest(url: url, method: method)
    }

    // MARK: Destinations

    @Test(arguments: [HTTPMethod.get, .head, .delete])
    func methodDependentPutsQueryMethodsInTheURL(method: HTTPMethod) throws {
        let encoded = try URLEncoding.default.encode(request("https://example.com/a", method: method), with: ["b": 1])
        #expect(encoded.url?.absoluteString == "https://example.com/a?b=1")
        #expect(encoded.httpBody == nil)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch, .options, "PURGE"])
    func methodDependentPutsOtherMethodsInTheBody(method: HTTPMethod) throws {
        let encoded = try URLEncoding.default.encode(request("https://example.com/a", method: method), with: ["b": "c d"])
        #expect(encoded.url?.absoluteString == "https://example.com/a")
        #expect(encoded.httpBody == Data("b=c%20d".utf8))
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func queryStringAlwaysUsesTheURL() throws {
        let encoded = try URLEncoding.queryString.encode(request("https://example.com/a", method: .post), with: ["b": 1])
        #expect(encoded.url?.absoluteString == "https://example.com/a?b=1")
        #expect(encoded.httpBody == nil)
    }

    @Test func httpBodyAlwaysUsesTheBody() throws {
        let encoded = try URLEncoding.httpBody.encode(request("https://example.com/a"), with: ["b": 1])
        #expect(encoded.url?.absoluteString == "https://example.com/a")
        #expect(encoded.httpBody == Data("b=1".utf8))
    }

    @Test func anExistingContentTypeIsKept() throws {
        var original = try request("https://example.com", method: .post)
        original.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let encoded = try URLEncoding.default.encode(original, with: ["a": 1])
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }

    // MARK: Joining queries

    @Test(arguments: [
        ("https://example.com/p", "https://example.com/p?b=2&c=3"),
        ("https://example.com/p?", "https://example.com/p?b=2&c=3"),
        ("https://example.com/p?a=1", "https://example.com/p?a=1&b=2&c=3"),
        ("https://example.com/p?a=1&", "https://example.com/p?a=1&b=2&c=3"),
        ("https://example.com/p#frag", "https://example.com/p?b=2&c=3#frag"),
        ("https://example.com/p?a=1#frag?x&y", "https://example.com/p?a=1&b=2&c=3#frag?x&y"),
        ("https://user@example.com:8080/p/q.json?a=%20", "https://user@example.com:8080/p/q.json?a=%20&b=2&c=3"),
        ("/relative/path", "/relative/path?b=2&c=3"),
    ])
    func queriesAreAppendedWithOneSeparator(url: String, expected: String) throws {
        let encoded = try URLEncoding.default.encode(request(url), with: ["c": 3, "b": 2])
        #expect(encoded.url?.absoluteString == expected)
        #expect(!(encoded.url?.absoluteString.contains("?&") ?? true))
        #expect(!(encoded.url?.absoluteString.contains("&&") ?? true))
    }

    // MARK: Untouched requests

    @Test(arguments: [HTTPMethod.get, .post])
    func parametersThatYieldNoPairsLeaveTheRequestUntouched(method: HTTPMethod) throws {
        let original = try request("https://example.com/a?x=1", method: method)
        let none: Int? = nil
        for parameters in [nil, [:], ["a": [Int]()], ["a": ["b": [String: Int]()]], ["a": none]] as [Parameters?] {
            let encoded = try URLEncoding.default.encode(original, with: parameters)
            #expect(encoded == original)
            #expect(encoded.value(forHTTPHeaderField: "Content-Type") == nil)
        }
    }

    @Test func aRequestWithoutAURLThrowsMissingURL() throws {
        var original = try request("https://example.com")
        original.url = nil
        let error = try #require(throws: ParameterEncodingError.self) {
            try URLEncoding.default.encode(original, with: ["a": 1])
        }
        #expect(error.code == .missingURL)
        #expect(error.description == "Missing URL: the request has no URL to add the query to")
    }

    // MARK: Ordered pairs

    @Test func orderedPairsEncodeInTheGivenOrder() throws {
        let pairs: KeyValuePairs<String, any Sendable> = ["z": 1, "a": 2]
        let encoded = try URLEncoding.default.encode(request("https://example.com"), withOrderedPairs: pairs)
        #expect(encoded.url?.query == "z=1&a=2")
        let list: [(String, any Sendable)] = [("y", "1"), ("b", "2")]
        let body = try URLEncoding.httpBody.encode(request("https://example.com"), withOrderedPairs: list)
        #expect(body.httpBody == Data("y=1&b=2".utf8))
    }

    // MARK: Convertibles

    @Test func anyURLRequestConvertibleCanBeEncoded() throws {
        struct Route: URLRequestConvertible {
            func asURLRequest() throws -> URLRequest { try URLRequest(url: "https://example.com/route", method: .get) }
        }
        let encoded = try URLEncoding.default.encode(Route(), with: ["q": "a"])
        #expect(encoded.url?.absoluteString == "https://example.com/route?q=a")
    }

    @Test func errorsFromTheConvertiblePassThrough() throws {
        struct Broken: URLRequestConvertible {
            func asURLRequest() throws -> URLRequest { try URLRequest(url: "http://exa mple.com", method: .get) }
        }
        let error = try #require(throws: ParameterEncodingError.self) { try URLEncoding.default.encode(Broken(), with: ["a": 1]) }
        #expect(error.code == .invalidURL)
        #expect(error.description.hasPrefix("Invalid URL: \"http://exa mple.com\" is not a URL: a space at character 11"))
    }
}
