import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct URLConvertibleTests {
    @Test func stringsURLsAndComponentsConvert() throws {
        #expect(try "https://example.com/a?b=1".asURL().absoluteString == "https://example.com/a?b=1")
        let url = try #require(URL(string: "https://example.com"))
        #expect(try url.asURL() == url)
        var components = URLComponents()
        components.scheme = "https"
        components.host = "example.com"
        components.path = "/p"
        #expect(try components.asURL().absoluteString == "https://example.com/p")
    }

    @Test(arguments: ["", "http://[bad", "http://exa mple.com"])
    func invalidStringsThrowNamingTheString(text: String) throws {
        let error = try #require(throws: ParameterEncodingError.self) { try text.asURL() }
        #expect(error.code == .invalidURL)
        #expect(error.detail.hasPrefix("\"\(text)\" is not a URL"))
        // A space is pointed at; nothing else is guessed.
        #expect(error.detail.contains("a space at character") == text.contains(" "), "\(error.detail)")
    }

    @Test func invalidComponentsThrow() throws {
        var components = URLComponents()
        components.path = "//no-host-but-double-slash"
        let error = try #require(throws: ParameterEncodingError.self) { try components.asURL() }
        #expect(error.code == .invalidURL)
    }

    @Test func requestsAreTheirOwnConvertible() throws {
        let request = try URLRequest(url: "https://example.com", method: .get)
        #expect(try request.asURLRequest() == request)
        #expect(request.urlRequest == request)
    }
}
