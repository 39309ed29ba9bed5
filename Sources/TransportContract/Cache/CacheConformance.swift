import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - CacheConformance

/// What ``HTTPCache`` promises, rule by rule of RFC 9111 (and RFC 5861's stale extensions), as
/// checks against a ``ScriptedOrigin``: the loopback server over any transport, or a stub.
///
/// Each check scripts the origin's answers, moves a ``TestClock`` where time matters, and reads
/// both what the session returned and what the origin received. Run each case from a test of
/// your own, so that a failure names the rule:
///
/// ```swift
/// @Test(arguments: CacheConformance.cases)
/// func theCacheFollowsRFC9111(_ check: CacheConformance.Case) async throws {
///     let server = try #require(URL(string: ProcessInfo.processInfo.environment["CONTRACT_SERVER"] ?? "http://127.0.0.1:8080"))
///     try await CacheConformance(origin: LoopbackOrigin(transport: transport, server: server)).check(check)
/// }
/// ```
public struct CacheConformance: Sendable {
    /// Where the checks send their requests.
    public let origin: any ScriptedOrigin
    /// Makes each check's storage: a new, empty one every time.
    public let makeStorage: @Sendable () throws -> any CacheStorage

    /// Prepares the checks against one origin.
    ///
    /// - Parameters:
    ///   - origin: The scripted origin.
    ///   - makeStorage: Makes an empty storage for each check; a ``MemoryCacheStorage`` by default.
    public init(origin: any ScriptedOrigin, makeStorage: @escaping @Sendable () throws -> any CacheStorage = { MemoryCacheStorage() }) {
        self.origin = origin
        self.makeStorage = makeStorage
    }

    /// One check: a rule, as a sentence, and how to show it.
    public struct Case: Sendable, CustomStringConvertible {
        /// The rule the check shows.
        public let name: String
        let body: @Sendable (CacheConformance) async throws -> Void

        init(_ name: String, _ body: @escaping @Sendable (CacheConformance) async throws -> Void) {
            self.name = name
            self.body = body
        }

        /// The rule.
        public var description: String { name }
    }

    /// Runs one check.
    ///
    /// - Parameter check: One of ``cases``.
    /// - Throws: ``ContractViolation`` saying what the cache did instead.
    public func check(_ check: Case) async throws {
        try await check.body(self)
    }

    /// Every check, in a stable order.
    public static let cases: [Case] = freshness + invalidAges + storing + validation + requestDirectives + invalidation + staleExtensions + policies + bodies

    // MARK: Helpers for the checks

    /// A cache with its own clock and a session over the origin's transport that uses it.
    struct Fixture: Sendable {
        let origin: any ScriptedOrigin
        let clock: TestClock
        let cache: HTTPCache
        let session: Session

        /// Sends a request through the cache.
        func send(
            _ url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], policy: CachePolicy? = nil
        ) async throws -> Response {
            var options = RequestOptions()
            if let policy { options.cachePolicy = policy }
            return try await session.request(url, method: method, headers: headers, options: options)
        }

        /// What the origin received for a scripted URL.
        func received(_ url: URL) async throws -> [ScriptedRequest] {
            try await origin.requests(to: url)
        }

        /// The clock's present moved by `offset` seconds, as an HTTP date.
        func date(_ offset: TimeInterval = 0) -> String {
            HTTPDate.format(clock.now.addingTimeInterval(offset))
        }

        /// An answer dated now by the test clock, with the given fields after `Date`.
        func answer(_ status: Int = 200, _ fields: KeyValuePairs<String, String> = [:], body: String = "", dated offset: TimeInterval = 0) -> ScriptedAnswer {
            var headers: HTTPHeaders = ["Date": date(offset)]
            for (name, value) in fields {
                headers.append(name: name, value: value)
            }
            return ScriptedAnswer(status: status, headers: headers, body: body)
        }
    }

    /// A fixture with a new cache.
    func fixture(monitors: [any EventMonitor] = []) throws -> Fixture {
        let clock = TestClock()
        let cache = HTTPCache(storage: try makeStorage(), now: { clock.now })
        let session = Session(transport: origin.transport, monitors: monitors, redirectPolicy: .doNotFollow, cookies: .none, cache: cache)
        return Fixture(origin: origin, clock: clock, cache: cache, session: session)
    }
}

/// Fails unless a response has the status, cache status and body given.
func expectAnswer(_ response: Response, status: Int = 200, cache: CacheStatus?, body: String? = nil, _ context: String) throws {
    try expect(response.statusCode == status, "\(context): status \(response.statusCode), expected \(status)")
    try expect(response.cacheStatus == cache, "\(context): cache status \(response.cacheStatus.map { "\($0)" } ?? "nil"), expected \(cache.map { "\($0)" } ?? "nil")")
    if let body {
        try expect(response.text == body, "\(context): body \"\(response.text)\", expected \"\(body)\"")
    }
}

/// Fails unless the origin received `count` requests.
func expectReceived(_ requests: [ScriptedRequest], _ count: Int, _ context: String) throws {
    try expect(requests.count == count, "\(context): the origin received \(requests.count) requests, expected \(count)")
}
