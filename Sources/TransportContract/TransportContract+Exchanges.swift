import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - Exchanges and bodies

extension TransportContract {
    /// Status, headers, redirects, challenges and cookies: what the engine must leave alone.
    static let exchanges: [Case] = [
        Case(name: "a status and the request's headers arrive unchanged") { contract in
            let (teapot, _) = try await contract.exchange(TransportRequest(try contract.request("/status/418")))
            try expect(teapot.statusCode == 418, "GET /status/418 answered \(teapot.statusCode)")
            let request = try contract.request("/anything/path?q=a%20b", headers: ["X-Contract": "yes", "Accept": "text/plain"])
            let (head, data) = try await contract.exchange(TransportRequest(request))
            try expect(head.statusCode == 200, "GET /anything answered \(head.statusCode)")
            try expect(head.headers.value(for: "content-type") == "application/json",
                       "the Content-Type header was \(head.headers.value(for: "Content-Type") ?? "missing")")
            try expect(head.url == request.url, "the head's URL is \(head.url?.absoluteString ?? "nil"), not the request's")
            let echo = try contract.echo(data)
            try expect(echo.method == "GET" && echo.path == "/anything/path" && echo.query == "q=a%20b",
                       "the server saw \(echo.method) \(echo.path)?\(echo.query)")
            try expect(echo.header("X-Contract") == "yes", "the server saw X-Contract: \(echo.header("X-Contract") ?? "nothing")")
            try expect(echo.header("Accept") == "text/plain", "the server saw Accept: \(echo.header("Accept") ?? "nothing")")
        },
        Case(name: "a redirect is returned, not followed") { contract in
            let (head, _) = try await contract.exchange(TransportRequest(try contract.request("/redirect/1")))
            try expect(head.statusCode == 302, "GET /redirect/1 answered \(head.statusCode), not the 302")
            try expect(head.headers.value(for: "Location")?.hasSuffix("/redirect/0") == true,
                       "the 302's Location was \(head.headers.value(for: "Location") ?? "missing")")
        },
        Case(name: "an authentication challenge is returned as a response") { contract in
            let (head, _) = try await contract.exchange(TransportRequest(try contract.request("/basic-auth/user/pass")))
            try expect(head.statusCode == 401, "GET /basic-auth without credentials answered \(head.statusCode)")
            try expect(head.headers.value(for: "WWW-Authenticate")?.hasPrefix("Basic") == true,
                       "the 401 lost its WWW-Authenticate header")
        },
        Case(name: "no cookie is kept or sent by the engine") { contract in
            let (set, _) = try await contract.exchange(TransportRequest(try contract.request("/cookies/set?contract=1")))
            try expect(set.headers.value(for: "Set-Cookie")?.contains("contract=1") == true,
                       "the Set-Cookie header did not reach the caller")
            let (_, data) = try await contract.exchange(TransportRequest(try contract.request("/cookies")))
            let text = String(decoding: data, as: UTF8.self)
            try expect(!text.contains("contract"), "the engine sent the cookie back: \(text)")
        },
    ]

    /// Request bodies (bytes, file, stream) and response bodies (whole, as they stream).
    static let bodies: [Case] = [
        Case(name: "a response body arrives whole and in order") { contract in
            let (head, data) = try await contract.exchange(TransportRequest(try contract.request("/bytes/300000")))
            try expect(head.statusCode == 200, "GET /bytes answered \(head.statusCode)")
            try expect(data.count == 300_000, "the body had \(data.count) of 300000 bytes")
            let wrong = data.enumerated().first { $0.element != UInt8($0.offset % 256) }
            try expect(wrong == nil, "byte \(wrong?.offset ?? 0) of the body is wrong")
        },
        Case(name: "a body of bytes is sent") { contract in
            var request = try contract.request("/anything", method: "POST", headers: ["Content-Type": "application/octet-stream"])
            request.httpBody = Data("bytes in memory".utf8)
            let (_, data) = try await contract.exchange(TransportRequest(request))
            let echo = try contract.echo(data)
            try expect(echo.bodyData == Data("bytes in memory".utf8), "the server got \(echo.bodyData.count) bytes")
        },
        Case(name: "a body from a file is sent, with progress to the end") { contract in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let content = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try content.write(to: file)
            let progress = ProgressLog()
            let request = try contract.request("/anything", method: "PUT", headers: ["Content-Type": "application/octet-stream"], body: try .file(file))
            let (_, data) = try await contract.exchange(TransportRequest(request, progress: progress.record))
            let echo = try contract.echo(data)
            try expect(echo.method == "PUT", "the server saw \(echo.method)")
            try expect(echo.bodyData == content, "the server got \(echo.bodyData.count) of \(content.count) bytes, or other bytes")
            let last = progress.last
            try expect(last?.sent == Int64(content.count), "the last progress said \(String(describing: last)), not all \(content.count) bytes")
        },
        Case(name: "a body from an async sequence is sent") { contract in
            let chunks = AsyncStream<Data> { continuation in
                for index in 0..<50 {
                    continuation.yield(Data("chunk \(index);".utf8))
                }
                continuation.finish()
            }
            let expected = Data((0..<50).map { "chunk \($0);" }.joined().utf8)
            let request = try contract.request("/anything", method: "POST", headers: ["Content-Type": "text/plain"], body: .stream(chunks, length: nil))
            let (_, data) = try await contract.exchange(TransportRequest(request))
            let echo = try contract.echo(data)
            try expect(echo.bodyData == expected, "the server got \(String(decoding: echo.bodyData, as: UTF8.self).prefix(80))")
        },
        Case(name: "the head arrives before the body has") { contract in
            let start = ContinuousClock.now
            let key = key("head-first")
            let beside = LatenessProbe()
            let (head, body) = try await contract.transport.send(TransportRequest(try contract.request("/drip/\(key)?bytes=3072&chunk=1024&interval_ms=3000")))
            let waited = ContinuousClock.now - start
            try expect(head.statusCode == 200, "GET /drip answered \(head.statusCode)")
            // The body takes 6 s; the head is due at once.
            try await expectWithin(.seconds(2), waited: waited, beside: beside, "the head (of a body sent over 6 s) arrived")
            var iterator = body.makeAsyncIterator()
            let first = try await iterator.next()
            try expect(first?.isEmpty == false, "no first chunk")
            body.cancel()
        },
    ]
}

// MARK: - ProgressLog

/// Keeps the last progress report of an upload.
final class ProgressLog: Sendable {
    private let state = Guarded<(sent: Int64, total: Int64?)?>(nil)

    var last: (sent: Int64, total: Int64?)? { state.withLock { $0 } }

    var record: @Sendable (Int64, Int64?) -> Void {
        { [state] sent, total in state.withLock { $0 = (sent, total) } }
    }
}
