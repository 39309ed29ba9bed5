import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Requests

/// Two `Set-Cookie` fields, the second with an `Expires` date whose comma a joined header would
/// split in the wrong place.
private func twoSetCookies() -> HTTPHeaders {
    var headers: HTTPHeaders = ["Content-Type": "text/plain"]
    headers.append(name: "Set-Cookie", value: "a=1; Path=/")
    headers.append(name: "Set-Cookie", value: "b=2; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT")
    return headers
}

/// The `Set-Cookie` values among headers, in order.
private func setCookies(_ headers: HTTPHeaders) -> [String] {
    headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
}

/// `ResponseHead` and what `Response` makes of it: repeated fields, `httpResponse`, cookies.
@Suite struct ResponseHeadTests {
    let url = URL(string: "https://example.com/set") ?? URL(fileURLWithPath: "/")

    @Test
    func repeatedFieldsAreKeptInTheResponsesHeaders() {
        let head = ResponseHead(statusCode: 200, headers: twoSetCookies(), url: url)
        let response = Response(request: OutgoingRequest(url: url), head: head, data: Data())
        #expect(setCookies(response.headers) == ["a=1; Path=/", "b=2; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT"])
    }

    @Test
    func httpResponseJoinsRepeatedFieldsWithACommaAndSpace() {
        let head = ResponseHead(statusCode: 200, headers: twoSetCookies(), url: url)
        let response = Response(request: OutgoingRequest(url: url), head: head, data: Data())
        #expect(response.httpResponse?.value(forHTTPHeaderField: "Set-Cookie")
            == "a=1; Path=/, b=2; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT")
        #expect(response.httpResponse?.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(response.httpResponse?.statusCode == 200)
        #expect(response.httpResponse?.url == url)
    }

    @Test
    func aSessionKeepsBothCookiesOfTwoSetCookieFields() async throws {
        let transport = ClosureTransport { request, _ in
            if request.url.path == "/set" {
                return (ResponseHead(statusCode: 200, headers: twoSetCookies(), url: request.url), ResponseBody(Data()))
            }
            let sent = request.urlRequest.value(forHTTPHeaderField: "Cookie") ?? ""
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data(sent.utf8)))
        }
        let session = Session(transport: transport)
        let set = try await session.request("https://example.com/set")
        #expect(set.cookies.map(\.name).sorted() == ["a", "b"])
        let echo = try await session.request("https://example.com/echo")
        #expect(echo.text.components(separatedBy: "; ").sorted() == ["a=1", "b=2"])
    }

    @Test func aSingleFieldPassesThroughUnchanged() {
        let head = ResponseHead(statusCode: 201, headers: ["Location": "/items/7", "ETag": "\"x\""], url: url, httpVersion: "HTTP/2")
        let response = Response(request: OutgoingRequest(url: url), head: head, data: Data())
        #expect(response.headers["location"] == "/items/7")
        #expect(response.httpResponse?.value(forHTTPHeaderField: "ETag") == "\"x\"")
        #expect(response.statusCode == 201)
        #expect(response.url == url)
    }

    @Test func aHeadFromAnHTTPURLResponseHasItsFieldsSortedByName() throws {
        let http = try #require(HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1",
                                                headerFields: ["X-B": "2", "content-type": "text/plain", "X-A": "1"]))
        let head = ResponseHead(http)
        #expect(head.statusCode == 404)
        #expect(head.url == url)
        #expect(head.headers.map { $0.name.lowercased() } == ["content-type", "x-a", "x-b"])
        #expect(head.headers["Content-Type"] == "text/plain")
    }

    @Test func theCookieStageParsesEachSetCookieValueItSees() async throws {
        let transport = ClosureTransport(headers: ["Set-Cookie": "c=3; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT"])
        let session = Session(transport: transport)
        let response = try await session.request("https://example.com/set")
        let cookie = try #require(response.cookies.first)
        #expect(response.cookies.count == 1)
        #expect(cookie.name == "c")
        #expect(cookie.value == "3")
        #expect(cookie.expiresDate.map { $0 > Date() } == true)
    }
}
