import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests
import RequestsTesting
#if AsyncHTTPClient
import RequestsAsyncHTTPClient
#endif

// MARK: - Target

/// One engine the stress run drives, with the sessions its operations need, all over one
/// transport: plain, behind `RecordingTransport`, or both.
final class Target: Sendable {
    let name: String
    let transport: any Transport
    let session: Session
    /// A session whose idle limit (300 ms) cuts stalled servers off.
    let idleSession: Session
    let bearerSession: Session
    let cachedSession: Session
    let throttledSession: Session
    /// A session with the three resilience stages: a retry budget, retries, a circuit breaker
    /// (8 failures in a row, a probe after 50 ms) and hedging after a fixed 5 ms for every call.
    let resilientSession: Session
    let base: String
    let hostile: String
    let stubBase: String
    let cacheURL: String
    let scratch: URL
    /// What the test transports keep by design (every request a stub received, every exchange a
    /// recorder logged), dropped now and then so that the run's memory shows leaks only.
    private let records: [any Sendable]
    private let counter = Counter()

    init(
        name: String, transport: any Transport, base: String, hostile: String, scratch: URL, records: [any Sendable] = [],
        options: RequestOptions = RequestOptions()
    ) {
        self.name = name
        self.transport = transport
        self.records = records
        self.base = base
        self.hostile = hostile
        self.stubBase = base
        self.scratch = scratch
        self.cacheURL = base + "/script/cache-\(name)"
        session = Session(transport: transport, idleTimeout: .seconds(10), options: options)
        idleSession = Session(transport: transport, idleTimeout: .milliseconds(300), options: options)
        bearerSession = Session(transport: transport, idleTimeout: .seconds(10),
                                interceptors: [BearerAuthentication(provider: RotatingTokens(), scope: .anyOrigin)], options: options)
        cachedSession = Session(transport: transport, idleTimeout: .seconds(10), cache: HTTPCache(), options: options)
        throttledSession = Session(transport: transport, idleTimeout: .seconds(10),
                                   interceptors: [Throttle(maxConcurrent: 3)], options: options)
        let resilience: [any Interceptor] = [
            RetryBudget(),
            RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20)),
            CircuitBreaker(opensAfter: .consecutiveFailures(8), probeAfter: .milliseconds(50)),
            Hedging(after: .fixed(.milliseconds(5)), maxAttempts: 3, maxShare: 1),
        ]
        resilientSession = Session(transport: transport, idleTimeout: .seconds(10), interceptors: resilience, options: options)
    }

    /// Drops what the stub and the recorder keep of the exchanges so far.
    func dropRecords() {
        for record in records {
            (record as? StubTransport)?.removeAllRequests()
            (record as? RecordingTransport)?.removeAllEntries()
        }
    }

    /// A name no other operation of this run uses (for the server's per-key state).
    func unique() -> String {
        "\(name)-\(counter.next())"
    }

    /// Sets what the cache's scripted endpoint answers.
    func prepare() async throws {
        let cache = #"[{"status": 200, "headers": [["Cache-Control", "max-age=1"]], "body": "cached", "delay": 0.02}]"#
        _ = try await session.request(base + "/script-set/cache-\(name)", method: .post, encoding: RawBody(cache))
    }

    func shutdown() async {
        for session in [session, idleSession, bearerSession, cachedSession, throttledSession, resilientSession] {
            try? await session.shutdown()
        }
    }

    /// Makes the targets a run asked for, by name: `stub`, `urlsession`, `ahc` (trait), each
    /// optionally `+recording`.
    static func make(_ names: [String], loopback: URL, hostile: URL, scratch: URL, options: RequestOptions = RequestOptions()) throws -> [Target] {
        try names.map { name in
            let recording = name.hasSuffix("+recording")
            let engine = recording ? String(name.dropLast("+recording".count)) : name
            var transport: any Transport
            var records: [any Sendable] = []
            var base = loopback.absoluteString
            var hostileBase = hostile.absoluteString
            switch engine {
            case "urlsession":
                transport = URLSessionTransport()
            case "stub":
                let stub = StubEngine.make()
                transport = stub
                records.append(stub)
                base = "http://stub.invalid"
                hostileBase = base
            #if AsyncHTTPClient
            case "ahc":
                transport = AsyncHTTPClientTransport()
            #endif
            default:
                throw StressError("unknown transport \(engine)")
            }
            if recording {
                let recorder = RecordingTransport(wrapping: transport)
                transport = recorder
                records.append(recorder)
            }
            return Target(name: name.replacingOccurrences(of: "+", with: "-"), transport: transport,
                          base: base, hostile: hostileBase, scratch: scratch, records: records, options: options)
        }
    }
}

/// A body written as it is, for the scripted endpoints' set-up.
struct RawBody: ParameterEncoding {
    let text: String
    init(_ text: String) { self.text = text }

    func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        request.httpBody = Data(text.utf8)
        return request
    }
}

/// Tokens that the server turns down once: the stale one first, then a fresh one per refresh.
struct RotatingTokens: TokenProvider {
    func token() async throws -> String { "stale" }
    func refreshToken(rejected: String) async throws -> String { "fresh" }
}

final class Counter: Sendable {
    private let value = Guarded(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

struct StressError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
