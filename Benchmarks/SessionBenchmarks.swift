import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests

// MARK: - SessionBenchmarks

/// The session's own cost per request (in-memory transport), and loopback throughput through
/// `Session` against raw `URLSession.data(for:)`, against a server this run starts itself.
struct SessionBenchmarks {
    let measure: Measure
    let quick: Bool
    /// Runs only the bare in-memory session, for a profiler.
    var profile = false
    /// With ``profile``: the session with the whole chain instead of the bare one.
    var profileChain = false
    /// With ``profile``: this many requests instead of 20 seconds.
    var profileRequests: Int?

    /// The small JSON body the in-memory transport answers with, and the type it decodes to.
    struct Item: Decodable {
        let id: Int
        let name: String
        let tags: [String]
        let score: Double
    }

    func run(filter: String?) async throws -> [Row] {
        func wanted(_ name: String) -> Bool {
            filter.map { name.localizedCaseInsensitiveContains($0) } ?? true
        }
        var rows: [Row] = []
        if wanted("session in-memory") {
            rows += try await inMemoryRows()
        }
        var cache = CacheBenchmarks(measure: measure)
        if profile, let profileRequests, filter?.localizedCaseInsensitiveContains("cache uncacheable") == true {
            cache.profile = (profileRequests, filter?.localizedCaseInsensitiveContains("plain") == true)
        }
        rows += try await cache.run(wanted: { wanted($0) || (cache.profile != nil && $0 == "cache uncacheable") })
        if wanted("session loopback") {
            rows.append(try await loopback(inFlight: 16))
            rows.append(try await loopback(inFlight: 64))
        }
        rows += try await ResilienceBenchmarks(quick: quick).run(wanted: wanted)
        // Before the encoders' large rows, while the heap is small: the row reports the process's
        // peak memory. After the session rows: the gigabyte it moves slows whatever runs next.
        if wanted("upload multipart") {
            rows.append(try await UploadBenchmark(fileSize: quick ? 64 << 20 : 1 << 30).run())
        }
        rows += try await StreamBenchmark(size: quick ? 64 << 20 : 1 << 30, slowSize: quick ? 32 << 20 : 256 << 20).run(wanted: wanted)
        return rows
    }

    /// Encode, two modifiers, transport, response, validate and decode, with a transport that
    /// answers from memory: everything the library itself adds to a request, against the same
    /// request done by hand with Foundation. Then the same with a throttle, a retry policy, bearer
    /// authentication and a monitor, as a production session would have them, against the bare
    /// session: its ratio is what the chain costs.
    ///
    /// Each pair is measured in alternating batches (``Measure/paired(async:baseline:)``) and its
    /// ratio is the median of the batches' ratios. With `--profile`, only the bare session runs,
    /// for about 20 s, for `perf`.
    private func inMemoryRows() async throws -> [Row] {
        let body = Data(#"{"id":42,"name":"Arthur","tags":["a","b","c"],"score":4.5}"#.utf8)
        let transport = try InMemoryTransport(body: body)
        let environment = ServerEnvironment(host: "api.example.com", pathPrefix: "/v1", headers: ["X-Client": "bench"])
        let bare = Session(transport: transport, headers: ["Accept": "application/json"], modifiers: [
            environment,
            ModifyRequest { $0.setValue("Bearer token", forHTTPHeaderField: "Authorization") },
        ])
        let full = Session(
            transport: transport, headers: ["Accept": "application/json"], modifiers: [environment],
            interceptors: [Throttle(maxConcurrent: 8), RetryPolicy(), BearerAuthentication(provider: FixedToken())],
            monitors: [NoOpMonitor()]
        )
        let parameters: Parameters = ["q": "swift nio", "page": ["size": 20, "after": "abc"] as Parameters, "tags": ["x", "y"]]
        let decoder = JSONDecoder()
        let viaSession: (Session) async throws -> Void = { session in
            let response = try await session.request("items", parameters: parameters)
            consume(try response.validate().decode(Item.self, decoder: decoder))
        }
        // The same request done by hand: `URLComponents` with query items, a `URLRequest` with the
        // same headers, handed to the same in-memory transport as code holding a `URLRequest`
        // does (`OutgoingRequest(_:)`), the body read, the status checked and `JSONDecoder`.
        let byHand: () async throws -> Void = {
            guard var components = URLComponents(string: "https://api.example.com/v1/items") else { throw URLError(.badURL) }
            components.queryItems = [
                URLQueryItem(name: "page[after]", value: "abc"), URLQueryItem(name: "page[size]", value: "20"),
                URLQueryItem(name: "q", value: "swift nio"),
                URLQueryItem(name: "tags[]", value: "x"), URLQueryItem(name: "tags[]", value: "y"),
            ]
            guard let url = components.url else { throw URLError(.badURL) }
            var request = URLRequest(url: url)
            request.httpMethod = "GET"
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            request.setValue("bench", forHTTPHeaderField: "X-Client")
            request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
            let (head, responseBody) = try await transport.send(TransportRequest(try OutgoingRequest(request)))
            let data = try await responseBody.collect()
            guard (200..<300).contains(head.statusCode) else { throw URLError(.badServerResponse) }
            consume(try decoder.decode(Item.self, from: data))
        }
        if profile {
            // `--filter "session in-memory chain"` profiles the session with the whole chain.
            let profiled = profileChain ? full : bare
            if let profileRequests {
                for _ in 0..<profileRequests { try await viaSession(profiled) }
                return []
            }
            let end = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < end {
                for _ in 0..<1000 { try await viaSession(profiled) }
            }
            return []
        }
        // A circuit opened by its first call (every outcome a failure, no probe for an hour): each
        // call after it fails at once, without a request.
        let breaker = CircuitBreaker(opensAfter: .consecutiveFailures(1), probeAfter: .seconds(3600), isFailure: { _ in true })
        let open = Session(transport: transport, headers: ["Accept": "application/json"], modifiers: [environment], interceptors: [breaker])
        _ = try? await open.request("items")
        let refused: () async throws -> Void = {
            do {
                _ = try await open.request("items", parameters: parameters)
                throw URLError(.unknown)  // the open circuit let a call through
            } catch let error as RequestError where error.code == .circuitOpen {
                consume(error)
            }
        }
        let first = try await measure.paired(async: { try await viaSession(bare) }, baseline: byHand)
        let third = try await measure.paired(async: refused, baseline: { try await viaSession(bare) })
        let second = try await measure.paired(async: { try await viaSession(full) }, baseline: { try await viaSession(bare) })
        return [
            Row(group: "session", name: "in-memory request (own cost)", baselineName: "by hand (Foundation)",
                throughput: .operations, ours: first.ours, baseline: first.baseline, target: "≥ 0.87x",
                pairedRatio: first.ratio),
            Row(group: "session", name: "in-memory, throttle+retry+auth+log", baselineName: "bare session",
                throughput: .operations, ours: second.ours, baseline: second.baseline, target: "≥ 0.87x",
                pairedRatio: second.ratio),
            Row(group: "session", name: "in-memory, circuit open", baselineName: "bare session",
                throughput: .operations, ours: third.ours, baseline: third.baseline, target: "< 50 µs",
                pairedRatio: third.ratio),
        ]
    }

    /// Requests per second with 16 in flight, through `Session` and through raw `URLSession`,
    /// alternating rounds so that both see the same server and machine state.
    private func loopback(inFlight: Int) async throws -> Row {
        let server = try LoopbackServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = inFlight
        let raw = URLSession(configuration: configuration)
        // The default path: the session's own URLSessionTransport, with the same configuration.
        let session = Session(configuration: configuration)
        let base = server.url("/anything")
        let perRound = quick ? 320 : 640
        let rounds = quick ? 3 : 31

        let viaSession: @Sendable (Int) async throws -> Void = { id in
            let response = try await session.request(base, parameters: ["id": id])
            consume(try response.validate())
        }
        let viaRaw: @Sendable (Int) async throws -> Void = { id in
            guard let url = URL(string: base.absoluteString + "?id=\(id)") else { throw URLError(.badURL) }
            let (data, response) = try await raw.data(for: URLRequest(url: url))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
            consume(data)
        }
        // Warm up both: open connections, start the server's threads.
        _ = try await Self.run(count: 4 * inFlight, inFlight: inFlight, viaRaw)
        _ = try await Self.run(count: 4 * inFlight, inFlight: inFlight, viaSession)
        // Paired rounds, alternating which side goes first; the ratio is the median of the
        // per-round ratios, so drift in the machine's load cancels out.
        var rawTimes: [Double] = []
        var sessionTimes: [Double] = []
        var ratios: [Double] = []
        for round in 0..<rounds {
            let raw: Double
            let ours: Double
            if round.isMultiple(of: 2) {
                raw = try await Self.run(count: perRound, inFlight: inFlight, viaRaw)
                ours = try await Self.run(count: perRound, inFlight: inFlight, viaSession)
            } else {
                ours = try await Self.run(count: perRound, inFlight: inFlight, viaSession)
                raw = try await Self.run(count: perRound, inFlight: inFlight, viaRaw)
            }
            rawTimes.append(raw)
            sessionTimes.append(ours)
            ratios.append(raw / ours)
        }
        return Row(group: "session", name: "loopback GET, \(inFlight) in flight", baselineName: "URLSession.data(for:)",
                   throughput: .operations, ours: Measure.median(sessionTimes), baseline: Measure.median(rawTimes),
                   target: "≥ 0.97x", pairedRatio: Measure.median(ratios))
    }

    /// Runs `count` requests, `inFlight` at a time; returns nanoseconds per request.
    private static func run(count: Int, inFlight: Int, _ request: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    var id = worker
                    while id < count {
                        try await request(id)
                        id += inFlight
                    }
                }
            }
            try await group.waitForAll()
        }
        return Measure.nanoseconds(clock.now - start) / Double(count)
    }
}

// MARK: - InMemoryTransport

/// Answers every request at once with a fixed JSON body and one prepared head, so the row
/// measures the library, not Foundation building response objects.
struct InMemoryTransport: Transport {
    let body: Data
    let head: ResponseHead

    init(body: Data) throws {
        guard let url = URL(string: "https://api.example.com/v1/items") else { throw URLError(.badURL) }
        self.body = body
        self.head = ResponseHead(statusCode: 200, headers: ["Content-Type": "application/json"], url: url)
    }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        (head, ResponseBody(body))
    }
}

// MARK: - Chain stand-ins

/// A token provider that always has the same token.
struct FixedToken: TokenProvider {
    func token() async throws -> String { "token" }
    func refreshToken(rejected: String) async throws -> String { "token" }
}

/// A monitor that does nothing, to measure what being monitored costs.
struct NoOpMonitor: EventMonitor {}
