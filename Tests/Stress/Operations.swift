import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests
import LoopbackFixture
import RequestsTesting

// MARK: - Operation

/// One kind of call the stress run makes: every shape the pipeline has (whole bodies, streams
/// left early or dropped unread, downloads, uploads, redirects, retries, timeouts, a bearer
/// refresh, the cache with identical requests at once, the resilience stages: hedged trips raced
/// and cancelled, retries under a budget, circuits that open and probe), against servers that answer, stall,
/// drip, reset and close mid-body.
enum Operation: String, CaseIterable, Sendable {
    case query, json, bytes, redirects, retry, callTimeout, idleStall, streamLeft, streamDropped, streamWhole,
         lines, events, download, upload, uploadStream, hostile, bearer, cachedBurst, throttled, resilient

    /// Runs the operation once. Its errors are expected (timeouts, resets, cancellation): what a
    /// stress run looks for is that the call ends.
    func run(on target: Target, random: inout SplitMix64) async throws {
        let session = target.session
        let base = target.base
        switch self {
        case .query:
            let response = try await session.request(base + "/anything", parameters: ["q": "a b", "n": random.next(upTo: 1000), "list": [1, 2]])
            _ = response.data.count
        case .json:
            _ = try await session.request(base + "/anything", method: .post, parameters: ["name": "stress", "n": random.next(upTo: 100)], encoding: JSONEncoding.default)
        case .bytes:
            _ = try await session.request(base + "/bytes/\(random.next(upTo: 300_000))")
        case .redirects:
            _ = try await session.request(base + "/redirect/\(1 + random.next(upTo: 4))")
        case .retry:
            let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20))
            _ = try await session.request(base + "/flaky/\(target.unique())/\(random.next(upTo: 3))", interceptors: [policy])
        case .callTimeout:
            // A deadline that fires at a random moment: before the head, in the body, or never.
            let timeout = Duration.milliseconds(20 + random.next(upTo: 300))
            _ = try await session.request(base + "/drip/\(target.unique())?bytes=4096&chunk=512&interval_ms=\(random.next(upTo: 40))", timeout: timeout)
        case .idleStall:
            let path = ["/stall-after-head", "/stall-in-body", "/no-response", "/informational"][random.next(upTo: 4)]
            _ = try await target.idleSession.request(target.hostile + path)
        case .streamLeft:
            let stream = try await session.stream(base + "/drip/\(target.unique())?bytes=65536&chunk=1024&interval_ms=2")
            var chunks = random.next(upTo: 6)
            for try await _ in stream.body {
                if chunks == 0 { break }
                chunks -= 1
            }
        case .streamDropped:
            // Dropped unread: the body's last copy goes, and the transfer with it.
            _ = try await session.stream(base + "/drip/\(target.unique())?bytes=65536&chunk=1024&interval_ms=2")
        case .streamWhole:
            let stream = try await session.stream(base + "/bytes/\(random.next(upTo: 2_000_000))")
            _ = try await stream.body.collect(upTo: 4 << 20)
        case .lines:
            let stream = try await session.stream(base + "/stream/\(random.next(upTo: 200))")
            for try await _ in stream.body.lines {}
        case .events:
            // An event stream that breaks mid-event, is refused once, breaks again and ends with
            // 204, read for a few events or to its end; the run's cancellations land in its reads
            // and its waits.
            let plan = "events=2,end=drop-mid;before=drop;events=\(1 + random.next(upTo: 3)),end=drop;events=1;status=204"
            let url = base + "/eventsource/\(target.unique())?plan=" + (plan.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? plan)
            var left = random.next(upTo: 8)
            for try await _ in session.events(url, reconnection: .init(initialDelay: .milliseconds(2 + random.next(upTo: 10)), backoff: 1)) {
                if left == 0 { break }
                left -= 1
            }
        case .download:
            let file = target.scratch.appendingPathComponent("download-\(target.unique())")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await session.download(base + "/bytes/\(random.next(upTo: 500_000))", to: file).response()
        case .upload:
            let body = Data(repeating: UInt8(random.next(upTo: 256)), count: random.next(upTo: 200_000))
            _ = try await session.upload(.data(body), to: base + "/anything").response()
        case .uploadStream:
            let count = random.next(upTo: 8)
            let chunks = AsyncStream<Data> { continuation in
                for index in 0..<count { continuation.yield(Data(repeating: UInt8(index), count: 4096)) }
                continuation.finish()
            }
            _ = try await session.upload(.stream(chunks, length: nil), to: base + "/anything").response()
        case .hostile:
            let path = ["/reset-in-body", "/close-in-body", "/truncated-chunked", "/short-length", "/keep-alive-close", "/ok", "/reset-in-head"][random.next(upTo: 7)]
            _ = try await session.request(target.hostile + path, timeout: .seconds(5))
        case .bearer:
            // A token that the server turns down once, refreshed, and the call sent again.
            let key = "bearer-\(target.unique())"
            let script = #"[{"status": 401, "headers": [["WWW-Authenticate", "Bearer"]]}, {"status": 200, "body": "ok"}]"#
            _ = try await session.request(base + "/script-set/\(key)", method: .post, encoding: RawBody(script))
            _ = try await target.bearerSession.request(base + "/script/\(key)")
        case .cachedBurst:
            // Identical requests at once: one goes to the network, the others wait for it.
            let url = target.cacheURL
            let cached = target.cachedSession
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<(2 + random.next(upTo: 4)) {
                    group.addTask { _ = try await cached.request(url) }
                }
                try await group.waitForAll()
            }
        case .throttled:
            _ = try await target.throttledSession.request(base + "/delay/0.01")
        case .resilient:
            // Slow answers hedged (up to 3 trips raced, the losers cancelled), flaky ones retried
            // under the budget, and failures in a row that open the origin's circuit (the hostile
            // server is an origin of its own) until a probe closes it.
            let session = target.resilientSession
            switch random.next(upTo: 4) {
            case 0, 1: _ = try await session.request(base + "/delay/0.0\(random.next(upTo: 4))")
            case 2: _ = try await session.request(base + "/flaky/\(target.unique())/\(random.next(upTo: 3))")
            default:
                let path = ["/reset-in-head", "/reset-in-body", "/ok"][random.next(upTo: 3)]
                _ = try await session.request(target.hostile + path, timeout: .seconds(5))
            }
        }
    }
}
