import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests

// MARK: - CacheBenchmarks

/// What the HTTP cache saves and what it costs, each pair measured in alternating batches:
/// - a fresh hit (memory store, then disk store) against the same request missing to the
///   loopback server (`reloadIgnoringCacheData` on the same session);
/// - a request that cannot be cached, through a session with a cache against the same session
///   without one, over the in-memory transport: a `GET` whose response says `no-store`, and a
///   `POST` (which invalidates its URI).
struct CacheBenchmarks {
    let measure: Measure
    /// With `--profile N`: only this side's requests, N of them, for `perf` (`cache uncacheable`
    /// with or without ` plain`).
    var profile: (requests: Int, plain: Bool)?

    func run(wanted: (String) -> Bool) async throws -> [Row] {
        var rows: [Row] = []
        if wanted("cache fresh hit") {
            rows += try await hitRows()
        }
        if wanted("cache uncacheable") {
            rows += try await uncacheableRows()
        }
        return rows
    }

    private func hitRows() async throws -> [Row] {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = String(repeating: "{\"id\":42,\"name\":\"Arthur\"},", count: 40)
        let script = try JSONSerialization.data(withJSONObject: [["status": 200, "headers": [["Cache-Control", "max-age=86400"], ["Content-Type", "application/json"]], "body": body]])
        let control = Session(cookies: .none)
        _ = try await control.request(server.url("/script-set/bench"), method: .post, body: DataBody(script)).validate()
        let url = server.url("/script/bench")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requests-bench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rows: [Row] = []
        for (name, storage) in [("memory", MemoryCacheStorage() as any CacheStorage), ("disk", try DiskCacheStorage(directory: folder))] {
            let session = Session(configuration: .ephemeral, cookies: .none, cache: HTTPCache(storage: storage))
            var reload = RequestOptions()
            reload.cachePolicy = .reloadIgnoringCacheData
            let hit: () async throws -> Void = {
                let response = try await session.request(url)
                guard response.cacheStatus == .hit else { throw URLError(.resourceUnavailable) }
                consume(response.data)
            }
            let miss: () async throws -> Void = {
                let response = try await session.request(url, options: reload)
                guard response.cacheStatus == .miss, response.statusCode == 200 else { throw URLError(.badServerResponse) }
                consume(response.data)
            }
            try await miss()
            let pair = try await measure.paired(async: hit, baseline: miss)
            rows.append(Row(group: "cache", name: "fresh hit, \(name) store", baselineName: "miss to loopback",
                            throughput: .operations, ours: pair.ours, baseline: pair.baseline, target: "≥ 5x", pairedRatio: pair.ratio))
        }
        return rows
    }

    private func uncacheableRows() async throws -> [Row] {
        let body = Data(#"{"id":42,"name":"Arthur","tags":["a","b","c"],"score":4.5}"#.utf8)
        let transport = try FixedHeadTransport(body: body, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"])
        let environment = ServerEnvironment(host: "api.example.com", pathPrefix: "/v1", headers: ["X-Client": "bench"])
        func session(_ cache: HTTPCache?) -> Session {
            Session(transport: transport, headers: ["Accept": "application/json"], modifiers: [environment], cache: cache)
        }
        let cached = session(HTTPCache())
        let plain = session(nil)
        let parameters: Parameters = ["q": "swift nio", "page": ["size": 20, "after": "abc"] as Parameters, "tags": ["x", "y"]]
        let decoder = JSONDecoder()
        let get: (Session) async throws -> Void = { session in
            let response = try await session.request("items", parameters: parameters)
            consume(try response.validate().decode(SessionBenchmarks.Item.self, decoder: decoder))
        }
        let post: (Session) async throws -> Void = { session in
            let response = try await session.request("items", method: .post, parameters: parameters, encoding: JSONEncoding.default)
            consume(try response.validate().decode(SessionBenchmarks.Item.self, decoder: decoder))
        }
        if let profile {
            let session = profile.plain ? plain : cached
            for _ in 0..<profile.requests { try await get(session) }
            return []
        }
        let getPair = try await measure.paired(async: { try await get(cached) }, baseline: { try await get(plain) })
        let postPair = try await measure.paired(async: { try await post(cached) }, baseline: { try await post(plain) })
        // The floor: what any stage costs, one that only calls the next.
        let floor = Session(transport: transport, headers: ["Accept": "application/json"], modifiers: [environment], interceptors: [PassingStage()])
        let floorPair = try await measure.paired(async: { try await get(floor) }, baseline: { try await get(plain) })
        return [
            Row(group: "cache", name: "no-store GET, in-memory", baselineName: "session without cache",
                throughput: .operations, ours: getPair.ours, baseline: getPair.baseline, target: "≥ 0.97x", pairedRatio: getPair.ratio),
            Row(group: "cache", name: "uncacheable POST, in-memory", baselineName: "session without cache",
                throughput: .operations, ours: postPair.ours, baseline: postPair.baseline, target: "≥ 0.97x", pairedRatio: postPair.ratio),
            Row(group: "cache", name: "floor, a stage that only passes", baselineName: "session without cache",
                throughput: .operations, ours: floorPair.ours, baseline: floorPair.baseline, pairedRatio: floorPair.ratio),
        ]
    }
}

// MARK: - FixedHeadTransport

/// Answers every request at once with one prepared head and body.
struct FixedHeadTransport: Transport {
    let body: Data
    let head: ResponseHead

    init(body: Data, headers: HTTPHeaders) throws {
        guard let url = URL(string: "https://api.example.com/v1/items") else { throw URLError(.badURL) }
        self.body = body
        self.head = ResponseHead(statusCode: 200, headers: headers, url: url)
    }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        (head, ResponseBody(body))
    }
}

/// A stage that only passes the request on: what being a stage costs.
struct PassingStage: Interceptor {
    func intercept(_ request: consuming OutgoingRequest, next: Next) async throws -> Response {
        try await next(request)
    }
}
