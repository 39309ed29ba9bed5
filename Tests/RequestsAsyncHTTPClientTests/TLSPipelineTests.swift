#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing

/// The whole pipeline over TLS, HTTP/1.1 and HTTP/2: `Session(transport:)` encodes parameters
/// into the query or a JSON body, sends them through `AsyncHTTPClientTransport`, and decodes the
/// answer.
@Suite(.timeLimit(.minutes(2)))
struct TLSPipelineTests {
    /// The servers and the protocol each speaks.
    static let servers: [(TLSServer.Kind, String)] = [(.trusted, "HTTP/1.1"), (TLSServer.http2, "HTTP/2")]

    @Test(arguments: servers)
    func getEncodesParametersIntoTheQuery(kind: TLSServer.Kind, version: String) async throws {
        let server = try await TLSServer.shared(kind)
        let response = try await withSession(try await trustingTestCA()) { session in
            try await session.request(server.url("/echo"), parameters: ["q": "swift nio", "page": ["size": 20]]).validate()
        }
        #expect(response.head.httpVersion == version)
        let echo = try response.decode(TLSEcho<Empty>.self)
        #expect(echo.method == "GET")
        #expect(echo.path == "/echo")
        #expect(echo.query == "page%5Bsize%5D=20&q=swift%20nio")
        #expect(echo.body == nil)
    }

    @Test(arguments: servers)
    func postSendsParametersAsJSON(kind: TLSServer.Kind, version: String) async throws {
        let server = try await TLSServer.shared(kind)
        let response = try await withSession(try await trustingTestCA()) { session in
            try await session.request(
                server.url("/echo"), method: .post, parameters: ["name": "Arthur", "tags": ["a", "b"]], encoding: JSONEncoding.default
            ).validate()
        }
        #expect(response.head.httpVersion == version)
        let echo = try response.decode(TLSEcho<Person>.self)
        #expect(echo.method == "POST")
        #expect(echo.contentType == "application/json")
        #expect(echo.body == Person(name: "Arthur", tags: ["a", "b"]))
    }

    @Test(arguments: servers)
    func postSendsAnEncodableValueAsJSON(kind: TLSServer.Kind, version: String) async throws {
        let server = try await TLSServer.shared(kind)
        let person = Person(name: "Ford", tags: ["towel"])
        let response = try await withSession(try await trustingTestCA()) { session in
            try await session.request(server.url("/echo"), method: .post, parameters: person, encoder: JSONParameterEncoder.default)
                .validate()
        }
        #expect(response.head.httpVersion == version)
        #expect(try response.decode(TLSEcho<Person>.self).body == person)
    }

    private func trustingTestCA() async throws -> AsyncHTTPClientTransport.Configuration {
        try await TLSCertificates.shared.value.trustingTestCA()
    }
}
#endif
