import Foundation
import ParameterEncoding
import Requests
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request value: its target's parts and checks, its options, its header fields in order,
/// and its way to and from `URLRequest`.
@Suite struct OutgoingRequestTests {
    private func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    // MARK: Target

    @Test func aTargetKeepsItsURLAndReadsItsParts() throws {
        let url = try url("https://user:pw@api.example.com:8443/v1/a%20b?q=%C3%A9&x=1#top")
        let target = RequestTarget(url)
        #expect(target.url == url)
        #expect(target.scheme == "https")
        #expect(target.host == "api.example.com")
        #expect(target.port == 8443)
        #expect(target.path == "/v1/a%20b")
        #expect(target.query == "q=%C3%A9&x=1")
        #expect(target.fragment == "top")
        #expect(target.user == "user")
        #expect(target.password == "pw")
        #expect(target.pathAndQuery == "/v1/a%20b?q=%C3%A9&x=1")
        #expect(target.origin == Origin(scheme: "https", host: "api.example.com", port: 8443))
        #expect(RequestTarget(try self.url("http://example.com")).pathAndQuery == "/")
        #expect(RequestTarget(try self.url("HTTP://Example.COM/")).origin == Origin(scheme: "http", host: "example.com", port: 80))
    }

    @Test func appendingAQueryAddsToTheOneThereAndKeepsEverythingElse() throws {
        var target = RequestTarget(try url("https://example.com/search#results"))
        try target.appendQuery("q=swift%20http")
        #expect(target.url.absoluteString == "https://example.com/search?q=swift%20http#results")
        try target.appendQuery("page=2&tags%5B%5D=a")
        #expect(target.query == "q=swift%20http&page=2&tags%5B%5D=a")
        try target.appendQuery("")
        #expect(target.url.absoluteString == "https://example.com/search?q=swift%20http&page=2&tags%5B%5D=a#results")
    }

    @Test func aPartThatCannotAppearInAURLIsRefusedByNameAndChangesNothing() throws {
        let original = try url("https://example.com/a?b=1")
        var target = RequestTarget(original)
        let cases: [(String, (inout RequestTarget) throws -> Void)] = [
            ("the query \"q=a b\"", { try $0.appendQuery("q=a b") }),
            ("the query \"q=%zz\"", { try $0.setQuery("q=%zz") }),
            ("the path \"relative\"", { try $0.setPath("relative") }),
            ("the path \"/a#b\"", { try $0.setPath("/a#b") }),
            ("the host \"exa mple.com\"", { try $0.setOrigin(scheme: "https", host: "exa mple.com", port: nil) }),
            ("the host \"\"", { try $0.setOrigin(scheme: "https", host: "", port: nil) }),
            ("the port \"70000\"", { try $0.setOrigin(scheme: "https", host: "example.com", port: 70000) }),
            ("the scheme \"1http\"", { try $0.setOrigin(scheme: "1http", host: "example.com", port: nil) }),
            ("the fragment \"a#b\"", { try $0.setFragment("a#b") }),
        ]
        for (named, change) in cases {
            let error = try #require(throws: ParameterEncodingError.self) { try change(&target) }
            #expect(error.code == .invalidURL)
            #expect("\(error)".contains(named), "\(error)")
            #expect(target.url == original, "\(named) changed the target")
        }
    }

    @Test func movingToAnotherOriginKeepsPathQueryAndFragment() throws {
        var target = RequestTarget(try url("https://api.example.com/v1/users?page=2#x"))
        try target.setOrigin(scheme: "http", host: "127.0.0.1", port: 8080)
        #expect(target.url.absoluteString == "http://127.0.0.1:8080/v1/users?page=2#x")
        try target.setOrigin(scheme: "http", host: "[::1]", port: nil)
        #expect(target.host == "::1")
        #expect(target.url.absoluteString == "http://[::1]/v1/users?page=2#x")
        #expect(target.origin == Origin(scheme: "http", host: "::1"))
        try target.setPath("/v2/users")
        try target.setQuery(nil)
        try target.setFragment(nil)
        #expect(target.url.absoluteString == "http://[::1]/v2/users")
    }

    @Test func aTargetFromPartsEqualsTheOneFromItsURL() throws {
        let parts = try RequestTarget(scheme: "https", host: "example.com", port: 444, path: "/a%2Fb", query: "x=%20", fragment: "f")
        let parsed = RequestTarget(try url("https://example.com:444/a%2Fb?x=%20#f"))
        #expect(parts == parsed)
        #expect(parts.hashValue == parsed.hashValue)
        #expect(parts.url.absoluteString == "https://example.com:444/a%2Fb?x=%20#f")
        #expect(throws: ParameterEncodingError.self) { try RequestTarget(scheme: "https", host: "", path: "/") }
    }

    // MARK: Options

    private enum Tag: RequestOptionKey {
        static let defaultValue = "none"
    }

    private enum Attempts: RequestOptionKey {
        static let defaultValue = 1
    }

    @Test func optionsReadTheirDefaultUntilSetAndACallsOptionsWin() {
        var session = RequestOptions()
        #expect(session[Tag.self] == "none")
        #expect(!session.contains(Tag.self))
        session[Tag.self] = "session"
        session[Attempts.self] = 3
        var call = RequestOptions()
        call[Tag.self] = "call"
        let merged = session.merging(call)
        #expect(merged[Tag.self] == "call")
        #expect(merged[Attempts.self] == 3)
        #expect(merged.count == 2)
        var removed = merged
        removed.remove(Attempts.self)
        #expect(removed[Attempts.self] == 1)
        #expect(!removed.contains(Attempts.self))
        #expect(RequestOptions().merging(call)[Tag.self] == "call")
    }

    // MARK: Header fields

    /// The fields of the issue's wire check, appended by a call in this order.
    private var callFields: HTTPHeaders {
        var fields = HTTPHeaders()
        for (name, value) in [("X-Zeta", "1"), ("X-Alpha", "2"), ("X-Mid", "3"), ("X-Alpha", "4"), ("Cookie", "b=2"), ("Cookie", "a=1")] {
            fields.append(name: name, value: value)
        }
        return fields
    }

    @Test func aCallsFieldsReplaceTheSessionsOfTheSameNameAndKeepTheirRepeats() {
        var session = HTTPHeaders()
        session.append(name: "Accept", value: "application/json")
        session.append(name: "x-alpha", value: "session")
        session.append(name: "User-Agent", value: "app/1")
        let merged = session.overridden(by: callFields)
        #expect(merged.map { "\($0.name): \($0.value)" } == [
            "Accept: application/json", "User-Agent: app/1",
            "X-Zeta: 1", "X-Alpha: 2", "X-Mid: 3", "X-Alpha: 4", "Cookie: b=2", "Cookie: a=1",
        ])
        #expect(HTTPHeaders().overridden(by: callFields) == callFields)
        #expect(callFields.overridden(by: HTTPHeaders()) == callFields)
    }

    @Test func onTheWireCookiesAreOneFieldAndOtherRepeatsStay() {
        #expect(callFields.wireFields.map { "\($0.name): \($0.value)" } == [
            "X-Zeta: 1", "X-Alpha: 2", "X-Mid: 3", "X-Alpha: 4", "Cookie: b=2; a=1",
        ])
    }

    // MARK: URLRequest

    @Test func theURLRequestCarriesEveryValue() throws {
        var request = OutgoingRequest(url: try url("https://example.com/items"), method: .post, headers: callFields)
        request.body = .data(Data("{}".utf8))
        let built = try request.urlRequest(timeout: .seconds(7))
        #expect(built.url == request.url)
        #expect(built.httpMethod == "POST")
        #expect(built.timeoutInterval == 7)
        #expect(built.httpBody == Data("{}".utf8))
        #expect(built.value(forHTTPHeaderField: "X-Alpha") == "2, 4")
        #expect(built.value(forHTTPHeaderField: "Cookie") == "b=2; a=1")
        #expect(built.value(forHTTPHeaderField: "X-Zeta") == "1")

        var streamed = OutgoingRequest(url: try url("https://example.com/upload"), method: .put)
        streamed.body = .stream(AsyncStream<Data> { $0.finish() }, length: nil)
        #expect(try streamed.urlRequest().httpBody == nil)
    }

    @Test func aFieldOrMethodThatCannotBeSentIsRefused() throws {
        var request = OutgoingRequest(url: try url("https://example.com/"))
        request.headers.append(name: "Bad Name", value: "x")
        #expect(throws: ParameterEncodingError.self) { try request.urlRequest() }
        request.headers = ["X-Ok": "line\r\nInjected: 1"]
        #expect(throws: ParameterEncodingError.self) { try request.urlRequest() }
        request.headers = [:]
        request.method = HTTPMethod(rawValue: "GE T")
        #expect(throws: ParameterEncodingError.self) { try request.urlRequest() }
    }

    @Test func aURLRequestBecomesTheSameRequestEveryTime() throws {
        var urlRequest = URLRequest(url: try url("https://example.com/a?b=1"))
        urlRequest.httpMethod = "PATCH"
        for name in ["X-Zeta", "X-Alpha", "X-Mid", "Accept"] {
            urlRequest.setValue("v-\(name)", forHTTPHeaderField: name)
        }
        urlRequest.httpBody = Data("body".utf8)
        let request = try OutgoingRequest(urlRequest)
        #expect(request.method == .patch)
        #expect(request.url == urlRequest.url)
        #expect(request.headers.map(\.name) == ["Accept", "X-Alpha", "X-Mid", "X-Zeta"])
        guard case .data(let data) = request.body.storage else {
            Issue.record("the body is not bytes: \(request.body.storage)")
            return
        }
        #expect(data == Data("body".utf8))
        #expect(try OutgoingRequest(urlRequest).headers == request.headers)

        var relative = URLRequest(url: try url("https://example.com"))
        relative.url = URL(string: "/relative")
        // Kept, for a ServerEnvironment to complete; the session refuses it if nothing does.
        #expect(try OutgoingRequest(relative).target.host == "")
        relative.url = nil
        #expect(throws: ParameterEncodingError.self) { try OutgoingRequest(relative) }
    }

    /// A signer that needs a `URLRequest`: out and back, the options, the body and the order of
    /// the fields it did not touch are kept; what it added comes after them.
    @Test func aRoundTripThroughURLRequestKeepsWhatTheURLRequestCannotHold() throws {
        var request = OutgoingRequest(url: try url("https://example.com/upload"), method: .put)
        request.headers.append(name: "X-B", value: "1")
        request.headers.append(name: "X-A", value: "2")
        request.headers.append(name: "X-A", value: "3")
        request.options.operationName = "upload"
        request.body = .stream(AsyncStream<Data> { $0.finish() }, length: nil)
        var foundation = try request.urlRequest()
        foundation.setValue("signature", forHTTPHeaderField: "Authorization")
        try request.replace(with: foundation)
        #expect(request.headers.map { "\($0.name): \($0.value)" } == ["X-B: 1", "X-A: 2", "X-A: 3", "Authorization: signature"])
        #expect(request.options.operationName == "upload")
        #expect(!request.body.isReplayable, "the stream body was lost")
        #expect(request.method == .put)
    }
}
