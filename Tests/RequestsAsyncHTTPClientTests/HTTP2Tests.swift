#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import Testing

/// HTTP/2 over TLS against hypercorn: negotiated by default, many requests at once, HTTP/1.1 when
/// asked, and connections the server closed when idle replaced without the caller noticing.
@Suite(.timeLimit(.minutes(3)))
struct HTTP2Tests {
    @Test func theDefaultConfigurationSpeaksHTTP2() async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        let response = try await withSession(try await trustingTestCA()) { session in
            try await session.request(server.url("/hello")).validate()
        }
        #expect(response.head.httpVersion == "HTTP/2")
        #expect(response.text == "hello over HTTP/2")
    }

    @Test func http1OnlySpeaksHTTP11() async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        var configuration = try await trustingTestCA()
        configuration.httpVersion = .http1Only
        let response = try await withSession(configuration) { session in
            try await session.request(server.url("/hello")).validate()
        }
        #expect(response.head.httpVersion == "HTTP/1.1")
        #expect(response.text == "hello over HTTP/1.1")
    }

    @Test func twentyConcurrentRequestsEachGetTheirOwnAnswer() async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        let answers = try await withSession(try await trustingTestCA()) { session in
            try await withThrowingTaskGroup(of: (Int, Response).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let response = try await session.request(
                            server.url("/echo"), method: .post, parameters: ["index": index], encoding: JSONEncoding.default
                        )
                        return (index, response)
                    }
                }
                var answers: [(Int, Response)] = []
                for try await answer in group {
                    answers.append(answer)
                }
                return answers
            }
        }
        #expect(answers.count == 20)
        for (index, response) in answers {
            #expect(response.statusCode == 200)
            #expect(response.head.httpVersion == "HTTP/2")
            let echo = try response.decode(TLSEcho<IndexBody>.self)
            #expect(echo.body?.index == index)
            #expect(echo.httpVersion == "2")
        }
        let connections = Set(answers.compactMap { $0.1.headers["x-connection"] })
        print("20 concurrent HTTP/2 requests used \(connections.count) connection(s)")
        #expect(!connections.isEmpty)
    }

    /// Each round waits until the server has closed the connection the last request used (asked
    /// on another transport, so that the asking keeps nothing of this one's alive), then sends
    /// the next: it succeeds, on a new connection.
    @Test func aRequestAfterTheServerClosedTheIdleConnectionSucceeds() async throws {
        let server = try await TLSServer.shared(TLSServer.http2)
        let configuration = try await trustingTestCA()
        try await withSession(configuration) { observer in
            try await withSession(configuration) { session in
                var previous: Int?
                for round in 0..<4 {
                    let response = try await session.request(server.url("/hello")).validate()
                    #expect(response.head.httpVersion == "HTTP/2")
                    let connection = try #require(response.headers["x-connection"].flatMap { Int($0) })
                    if let previous {
                        #expect(connection != previous, "round \(round) was answered on a connection the server had closed")
                    }
                    previous = connection
                    let closed = try await eventually(within: .seconds(30)) {
                        let open = try await observer.request(server.url("/connections")).decode(OpenConnections.self).open
                        return !open.contains(connection)
                    }
                    try #require(closed, "the server kept the idle connection open (its keep-alive is 1 s)")
                }
                let last = try await session.request(server.url("/hello"))
                #expect(last.statusCode == 200)
            }
        }
    }

    /// Requests spaced about the server's keep-alive (0.3 s, a server of the test's own), so that
    /// many of them meet a connection the server is closing just then: none fails, none is
    /// reported cancelled. Which ones meet the close depends on the machine's timing; the test
    /// asks only that every request succeeds. (Before the transport told AsyncHTTPClient's
    /// `cancelled` for a closing connection from a caller's cancellation, and sent a request
    /// again more than once, one request in 50 to 100 failed here.)
    @Test func requestsMeetingTheServersIdleCloseAllSucceed() async throws {
        let certificates = try await TLSCertificates.shared.value
        let server = try await TLSServer.start(.http2(keepAlive: 0.3), certificates: certificates)
        defer { server.stop() }
        var failures: [String] = []
        var connections = Set<String>()
        try await withSession(try certificates.trustingTestCA()) { session in
            for index in 0..<40 {
                do {
                    let response = try await session.request(server.url("/hello")).validate()
                    connections.insert(response.headers["x-connection"] ?? "")
                } catch {
                    failures.append("request \(index): \(error)")
                }
                try await Task.sleep(for: .milliseconds(270 + index % 7 * 10))
            }
        }
        print("40 requests about the keep-alive used \(connections.count) connections")
        #expect(failures.isEmpty, "\(failures.joined(separator: "; "))")
        #expect(connections.count > 1, "the server closed no connection: the test met no idle close")
    }

    private func trustingTestCA() async throws -> AsyncHTTPClientTransport.Configuration {
        try await TLSCertificates.shared.value.trustingTestCA()
    }
}
#endif
