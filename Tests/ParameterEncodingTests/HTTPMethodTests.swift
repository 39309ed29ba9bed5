import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct HTTPMethodTests {
    @Test func constantsAreTheirTokens() {
        let methods: [HTTPMethod] = [.connect, .delete, .get, .head, .options, .patch, .post, .put, .query, .trace]
        #expect(methods.map(\.rawValue) == ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"])
        #expect(HTTPMethod(rawValue: "PURGE").description == "PURGE")
        #expect(HTTPMethod.get != "get")
    }

    @Test(arguments: ["", "GE T", "GET\r\n", "GÉT", "GET/"])
    func invalidTokensAreRefused(raw: String) throws {
        let error = try #require(throws: ParameterEncodingError.self) { try URLRequest(url: "https://example.com", method: HTTPMethod(rawValue: raw)) }
        #expect(error.code == .invalidMethod)
        #expect(error.description.hasPrefix("Invalid HTTP method: \""))
    }

    @Test func customTokensAreAccepted() throws {
        let request = try URLRequest(url: "https://example.com", method: "PROPFIND")
        #expect(request.httpMethod == "PROPFIND")
    }
}
