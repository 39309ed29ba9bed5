import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct HTTPHeadersTests {
    @Test func keepsOrderAndLooksUpNamesIgnoringCase() {
        var headers: HTTPHeaders = ["Accept": "application/json", "X-Trace": "1"]
        headers.add(.authorization(bearerToken: "token"))
        #expect(headers.map(\.name) == ["Accept", "X-Trace", "Authorization"])
        #expect(headers["accept"] == "application/json")
        #expect(headers.value(for: "AUTHORIZATION") == "Bearer token")
        #expect(headers["missing"] == nil)
    }

    /// Names match ignoring the case of ASCII letters only: bytes that differ by 0x20 but are not
    /// letters (`@` and `` ` ``, `[` and `{`), and non-ASCII letters, are different names; a long
    /// name differing in its last byte only is another name.
    @Test func namesMatchIgnoringTheCaseOfASCIILettersOnly() {
        var headers: HTTPHeaders = ["X-Ab@": "1", "X-[q]": "2", "X-Ä": "3"]
        #expect(headers["x-aB@"] == "1")
        #expect(headers["X-AB`"] == nil)
        #expect(headers["x-{q]"] == nil)
        #expect(headers["x-[Q]"] == "2")
        #expect(headers["X-ä"] == nil)
        #expect(headers["X-Ä"] == "3")
        let long = String(repeating: "Long-Name-", count: 20)
        headers.add(name: long, value: "4")
        #expect(headers[long.uppercased()] == "4")
        #expect(headers[String(long.dropLast()) + "_"] == nil)
        #expect(HTTPHeaders.namesMatch(String(Substring("Cache-Control")), "cache-CONTROL"))
        #expect(!HTTPHeaders.namesMatch("Cache-Control", "Cache-Contro"))
    }

    @Test func updatingReplacesTheHeaderInPlaceAndTakesTheLastSpelling() {
        var headers: HTTPHeaders = ["content-type": "text/plain", "Accept": "*/*"]
        headers.update(.contentType("application/json"))
        headers["ACCEPT"] = "text/html"
        #expect(Array(headers) == [HTTPHeader(name: "Content-Type", value: "application/json"), HTTPHeader(name: "ACCEPT", value: "text/html")])
        headers["accept"] = nil
        #expect(headers.count == 1)
        headers.remove(name: "Content-Type")
        #expect(headers.isEmpty)
    }

    @Test func theLastSpellingAndValueOfANameWinAsInAlamofire() {
        var headers: HTTPHeaders = ["c": "a"]
        headers["C"] = "c"
        #expect(headers.description == "C: c")
        var ordered: HTTPHeaders = ["c": "", "a": "", "b": ""]
        ordered["C"] = "c"
        ordered.add(name: "A", value: "a")
        ordered.update(HTTPHeader(name: "B", value: "b"))
        #expect(ordered.map(\.name) == ["C", "A", "B"])
        #expect(ordered.map(\.value) == ["c", "a", "b"])
        let manual = [HTTPHeader(name: "key", value: "1"), HTTPHeader(name: "Key", value: "2"), HTTPHeader(name: "KEY", value: "3")]
        #expect(Array(HTTPHeaders(manual)) == [HTTPHeader(name: "KEY", value: "3")])
    }

    @Test func updatingARepeatedFieldLeavesOneWithTheNewSpelling() {
        var headers = HTTPHeaders()
        headers.append(name: "Set-Cookie", value: "a=1")
        headers.append(name: "X-Other", value: "x")
        headers.append(name: "set-cookie", value: "b=2")
        headers.update(name: "SET-COOKIE", value: "c=3")
        #expect(Array(headers) == [HTTPHeader(name: "SET-COOKIE", value: "c=3"), HTTPHeader(name: "X-Other", value: "x")])
    }

    @Test func dictionaryInputIsSortedAndSortingIgnoresCase() {
        let headers = HTTPHeaders(["b": "2", "A": "1", "c": "3"])
        #expect(headers.map(\.name) == ["A", "b", "c"])
        var literal: HTTPHeaders = ["b": "2", "C": "3", "a": "1"]
        literal.sort()
        #expect(literal.map(\.name) == ["a", "b", "C"])
        #expect(literal.dictionary == ["a": "1", "b": "2", "C": "3"])
    }

    /// A repeated field, its name spelled in any case, is one dictionary entry under its first
    /// spelling, its values joined in order; the same for a list long enough to be indexed.
    @Test func aRepeatedFieldIsOneDictionaryEntryWhateverItsSpelling() {
        var headers = HTTPHeaders()
        headers.append(name: "Accept", value: "text/html")
        headers.append(name: "X-One", value: "1")
        headers.append(name: "ACCEPT", value: "application/json")
        headers.append(name: "accept", value: "*/*")
        #expect(headers.dictionary == ["Accept": "text/html, application/json, */*", "X-One": "1"])
        var long = HTTPHeaders()
        for index in 0..<40 { long.append(name: "X-\(index)", value: "\(index)") }
        long.append(name: "Via", value: "a")
        long.append(name: "VIA", value: "b")
        long.append(name: "x-3", value: "again")
        let dictionary = long.dictionary
        #expect(dictionary.count == 41)
        #expect(dictionary["Via"] == "a, b")
        #expect(dictionary["X-3"] == "3, again")
    }

    /// Sorting compares names without lowercased copies, in exactly the order of their
    /// lowercased forms: random ASCII names, and names with non-ASCII letters, which fall back.
    @Test func sortingByNameIsTheOrderOfTheLowercasedNames() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aAbBzZ-_09~!é\u{301}")
        for _ in 0..<200 {
            var headers = HTTPHeaders()
            for index in 0..<Int.random(in: 0...12, using: &generator) {
                let name = String((0..<Int.random(in: 1...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
                headers.append(name: name, value: "\(index)")
            }
            let expected = Array(headers).sorted { $0.name.lowercased() < $1.name.lowercased() }.map(\.name.localizedLowercase)
            #expect(headers.sorted().map(\.name.localizedLowercase) == expected)
        }
    }

    @Test func namesThatDifferOnlyInCaseAreOneHeaderWhateverTheCount() async throws {
        // Sorted, "Accept" comes before "accept": the last spelling and its value win.
        #expect(Array(HTTPHeaders(["accept": "b", "Accept": "a"])) == [HTTPHeader(name: "accept", value: "b")])
        let list = HTTPHeaders([HTTPHeader(name: "X-A", value: "1"), HTTPHeader(name: "x-b", value: "2"), HTTPHeader(name: "x-a", value: "3")])
        #expect(Array(list) == [HTTPHeader(name: "x-a", value: "3"), HTTPHeader(name: "x-b", value: "2")])
        // 100,000 headers (a hostile response) build in linear time and keep every one.
        let headers = try await inBackground {
            var many: [String: String] = [:]
            for i in 0..<100_000 { many["X-H\(i)"] = "v\(i)" }
            return HTTPHeaders(many)
        }
        #expect(headers.count == 100_000)
        #expect(headers["x-h99999"] == "v99999")
    }

    @Test func factoriesBuildTheUsualHeaders() {
        #expect(HTTPHeader.authorization(username: "Aladdin", password: "open sesame").value == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(HTTPHeader.accept("a").name == "Accept")
        #expect(HTTPHeader.acceptCharset("a").name == "Accept-Charset")
        #expect(HTTPHeader.acceptEncoding("a").name == "Accept-Encoding")
        #expect(HTTPHeader.acceptLanguage("a").name == "Accept-Language")
        #expect(HTTPHeader.contentDisposition("a").name == "Content-Disposition")
        #expect(HTTPHeader.contentEncoding("a").name == "Content-Encoding")
        #expect(HTTPHeader.userAgent("a").description == "User-Agent: a")
    }

    @Test(arguments: [
        (HTTPHeader(name: "X-A", value: "a\r\nInjected: 1"), "the value of \"X-A\" contains a carriage return (CR)"),
        (HTTPHeader(name: "X-A", value: "a\nb"), "the value of \"X-A\" contains a line feed (LF)"),
        (HTTPHeader(name: "X-A", value: "a\0b"), "the value of \"X-A\" contains a NUL byte"),
        (HTTPHeader(name: "X-\r\nB", value: "v"), "the name \"X-\\r\\nB\" contains a carriage return (CR), which a header name cannot hold"),
        (HTTPHeader(name: "X B", value: "v"), "the name \"X B\" contains a space, which a header name cannot hold"),
        (HTTPHeader(name: "X:B", value: "v"), "the name \"X:B\" contains \":\", which a header name cannot hold"),
        (HTTPHeader(name: "Ünï", value: "v"), "the name \"Ünï\" contains the byte 0xC3, which a header name cannot hold"),
        (HTTPHeader(name: "", value: "v"), "a header has an empty name"),
    ])
    func refusesCharactersHTTPDoesNotAllow(header: HTTPHeader, detail: String) throws {
        let error = try #require(throws: ParameterEncodingError.self) { try header.validate() }
        #expect(error.code == .invalidHeader)
        #expect(error.detail == detail)
        #expect(error.keyPath == nil)
    }

    @Test func requestsRefuseBadHeadersAndStayUnchanged() throws {
        var request = URLRequest(url: try "https://example.com".asURL())
        let headers: HTTPHeaders = ["Accept": "ok", "X-Bad": "1\r\n2"]
        let error = try #require(throws: ParameterEncodingError.self) { try request.setHeaders(headers) }
        #expect(error.description == "Invalid HTTP header: the value of \"X-Bad\" contains a carriage return (CR)")
        #expect(request.value(forHTTPHeaderField: "Accept") == nil)
        #expect(throws: ParameterEncodingError.self) { try URLRequest(url: "https://example.com", method: .get, headers: headers) }
    }

    @Test func requestsCarryGoodHeaders() throws {
        let request = try URLRequest(url: "https://example.com", method: .post, headers: ["Accept": "a", "X-Id": "7"])
        #expect(request.headers["x-id"] == "7")
        #expect(request.method == .post)
    }
}
