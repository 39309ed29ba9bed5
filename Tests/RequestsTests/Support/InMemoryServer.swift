import Foundation
import LoopbackFixture
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Requests

// MARK: - InMemoryServer

/// A transport that answers the loopback server's endpoints from memory, as a second engine for
/// the transport contract: what it owes the pipeline does not depend on a network.
///
/// It streams (`/drip` yields chunks on a timer and notices when its reader goes away), honours
/// the transfer handle and task cancellation, and fails the way a network does (`/close` loses
/// the connection, port 1 refuses it). Endpoints, as `loopback_server.py` answers them:
/// `/anything`, `/status/<code>`, `/redirect/<n>`, `/basic-auth/<user>/<pass>`, `/cookies`,
/// `/cookies/set`, `/bytes/<n>`, `/range/<n>?cut=<k>`, `/drip/<key>`, `/drip-stats/<key>`,
/// `/delay/<seconds>`, `/close`.
final class InMemoryServer: Transport {
    static let baseURL = URL(string: "http://in-memory.test") ?? URL(fileURLWithPath: "/")

    /// The `/drip` transfers by key: bytes sent, and whether the reader went away early.
    private let drips = Guarded<[String: (sent: Int, finished: Bool, aborted: Bool)]>([:])

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let url = request.url
        if url.port == 1 {
            throw TransportError(.cannotConnect, detail: "connection refused (in memory)")
        }
        let body = try await readAll(request.body)
        request.progress?(Int64(body.count), request.body.length)
        let parts = url.path.split(separator: "/").map(String.init)
        let query = Self.query(url)
        func head(_ status: Int, _ headers: HTTPHeaders = [:]) -> ResponseHead {
            ResponseHead(statusCode: status, headers: headers, url: url, httpVersion: "HTTP/1.1")
        }
        switch (parts.first ?? "", parts.count) {
        case ("anything", _):
            return (head(200, ["Content-Type": "application/json"]), ResponseBody(try Self.echo(request, url: url, body: body)))
        case ("status", 2):
            return (head(Int(parts[1]) ?? 500, ["Content-Type": "text/plain"]), ResponseBody(Data("status \(parts[1])".utf8)))
        case ("redirect", 2):
            let count = Int(parts[1]) ?? 0
            if count <= 0 {
                return (head(200, ["Content-Type": "application/json"]), ResponseBody(try Self.echo(request, url: url, body: body)))
            }
            return (head(302, ["Location": "/redirect/\(count - 1)"]), ResponseBody(Data()))
        case ("basic-auth", 3):
            return (head(401, ["WWW-Authenticate": "Basic realm=\"in-memory\""]), ResponseBody(Data("{\"authenticated\": false}".utf8)))
        case ("cookies", 1):
            let sent = request.urlRequest.value(forHTTPHeaderField: "Cookie") ?? ""
            return (head(200, ["Content-Type": "application/json"]), ResponseBody(Data("{\"cookies\": \"\(sent)\"}".utf8)))
        case ("cookies", 2) where parts[1] == "set":
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            for (name, value) in query.sorted(by: { $0.key < $1.key }) {
                headers.append(name: "Set-Cookie", value: "\(name)=\(value); Path=/")
            }
            return (head(200, headers), ResponseBody(Data("{}".utf8)))
        case ("bytes", 2):
            return (head(200, ["Content-Type": "application/octet-stream"]), ResponseBody(LoopbackServer.pattern(Int(parts[1]) ?? 0)))
        case ("range", 2):
            return (head(200, ["Content-Type": "application/octet-stream"]), ResponseBody(Self.cut(Int(parts[1]) ?? 0, after: Int(query["cut"] ?? ""))))
        case ("drip", 2):
            return (head(200, ["Content-Type": "application/octet-stream"]), drip(key: parts[1], query: query, handle: request.handle))
        case ("drip-stats", 2):
            let stats = drips.withLock { $0[parts[1]] } ?? (sent: 0, finished: false, aborted: false)
            let json = "{\"started\": true, \"sent\": \(stats.sent), \"finished\": \(stats.finished), \"aborted\": \(stats.aborted)}"
            return (head(200, ["Content-Type": "application/json"]), ResponseBody(Data(json.utf8)))
        case ("delay", 2):
            try await waitUntilCancelled(request.handle, atMost: .seconds(Double(parts[1]) ?? 0))
            return (head(200, ["Content-Type": "application/json"]), ResponseBody(try Self.echo(request, url: url, body: body)))
        case ("close", 1):
            throw TransportError(.connectionLost, detail: "the server closed the connection (in memory)")
        default:
            return (head(404, ["Content-Type": "text/plain"]), ResponseBody(Data("no route".utf8)))
        }
    }

    // MARK: Streaming

    /// Chunks on a timer, in a source that records when its reader went away.
    private func drip(key: String, query: [String: String], handle: TransferHandle) -> ResponseBody {
        let total = Int(query["bytes"] ?? "") ?? 1024
        let size = max(1, Int(query["chunk"] ?? "") ?? 1024)
        let interval = Double(query["interval_ms"] ?? "") ?? 50
        drips.withLock { $0[key] = (0, false, false) }
        let source = DripSource(total: total, size: size, interval: .milliseconds(interval)) { [drips] sent, finished, aborted in
            drips.withLock { $0[key] = (sent, finished, aborted) }
        }
        handle.onCancel { source.cancel() }
        return ResponseBody(source: source)
    }

    // MARK: Bodies

    private static func echo(_ request: TransportRequest, url: URL, body: Data) throws -> Data {
        let headers = (request.urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { [$0.key, $0.value] }
        let object: [String: Any] = [
            "method": request.method.rawValue,
            "path": url.path,
            "query": URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "",
            "headers": headers,
            "body": body.base64EncodedString(),
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// A body that breaks off after `cut` bytes, as a connection lost mid-body.
    private static func cut(_ count: Int, after cut: Int?) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            guard let cut, cut < count else {
                continuation.yield(LoopbackServer.pattern(count))
                continuation.finish()
                return
            }
            continuation.yield(LoopbackServer.pattern(cut))
            continuation.finish(throwing: TransportError(.connectionLost, detail: "the connection closed mid-body (in memory)"))
        }
    }

    private static func query(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            result[item.name] = item.value ?? ""
        }
        return result
    }
}

// MARK: - DripSource

/// `/drip`'s body: a chunk every `interval`, pulled by the reader; cancelled, it reports an abort.
private final class DripSource: ResponseBodySource {
    let total: Int
    let size: Int
    let interval: Duration
    let report: @Sendable (Int, Bool, Bool) -> Void
    private let state = Guarded<(sent: Int, cancelled: Bool, sleeper: Task<Void, any Error>?)>((0, false, nil))

    init(total: Int, size: Int, interval: Duration, report: @escaping @Sendable (Int, Bool, Bool) -> Void) {
        self.total = total
        self.size = size
        self.interval = interval
        self.report = report
    }

    func next() async throws -> Data? {
        let (sent, cancelled) = state.withLock { ($0.sent, $0.cancelled) }
        if cancelled { throw CancellationError() }
        guard sent < total else {
            report(sent, true, false)
            return nil
        }
        if sent > 0 {
            let sleeper = Task { try await Task.sleep(for: interval) }
            let stop = state.withLock { state -> Bool in
                state.sleeper = sleeper
                return state.cancelled
            }
            if stop { sleeper.cancel() }
            try await withTaskCancellationHandler {
                try await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
        }
        let count = min(size, total - sent)
        let now = state.withLock { state -> Int? in
            if state.cancelled { return nil }
            state.sent += count
            return state.sent
        }
        guard let now else { throw CancellationError() }
        report(now, false, false)
        return LoopbackServer.pattern(count, from: sent)
    }

    func cancel() {
        let (sleeper, sent, first) = state.withLock { state -> (Task<Void, any Error>?, Int, Bool) in
            defer { state.cancelled = true }
            return (state.sleeper, state.sent, !state.cancelled)
        }
        sleeper?.cancel()
        if first, sent < total {
            report(sent, false, true)
        }
    }
}
