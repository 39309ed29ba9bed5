import Foundation
import Requests

// MARK: - StubRoute

/// One route of a ``StubTransport``: the requests it answers, its answers in turn, and the
/// requests it has answered.
///
/// The answers are given in turn, one per request; the last one repeats once the others are
/// used, so `[.status(503), .text("ok")]` answers 503 once and then 200 for ever.
public final class StubRoute: Sendable, CustomStringConvertible {
    /// The requests this route answers.
    public let matcher: RequestMatcher
    private let responses: [StubResponse]
    /// Invariant: `position` counts every request answered since the route was made (it picks
    /// the answer); `requests` holds those since ``StubTransport/removeAllRequests()``.
    private let answered = Guarded<(position: Int, requests: [RecordedRequest])>((0, []))

    init(matcher: RequestMatcher, responses: [StubResponse]) {
        self.matcher = matcher
        self.responses = responses.isEmpty ? [.status(200)] : responses
    }

    /// How many requests this route has matched (a call cancelled during a stubbed delay counts).
    public var hits: Int { answered.withLock { $0.requests.count } }

    /// The requests this route has matched, in the order they came.
    public var requests: [RecordedRequest] { answered.withLock { $0.requests } }

    /// Whether the route was hit exactly `count` times; otherwise an error that says how often
    /// it was hit and by what, for `try` in a test.
    ///
    /// - Parameter count: The number of hits expected.
    /// - Throws: ``StubExpectationFailed`` when the count differs.
    public func expectHits(_ count: Int) throws {
        let requests = self.requests
        guard requests.count != count else { return }
        let list = requests.isEmpty ? "" : ": " + requests.map(\.description).joined(separator: "; ")
        throw StubExpectationFailed(description: "\(matcher) was hit \(requests.count) times, not \(count)\(list)")
    }

    /// Records `request` and gives the answer for it.
    func answer(_ request: RecordedRequest) -> StubResponse {
        answered.withLock { answered in
            answered.requests.append(request)
            answered.position += 1
            return responses[min(answered.position, responses.count) - 1]
        }
    }

    /// Forgets the requests answered so far; the route keeps its place in its answers.
    func removeAllRequests() {
        let dropped = answered.withLock { answered -> [RecordedRequest] in
            defer { answered.requests = [] }
            return answered.requests
        }
        releaseUnlocked(dropped)
    }

    /// The route as its matcher reads, with its hit count.
    public var description: String { "\(matcher) (\(hits) hits)" }
}

// MARK: - Errors

/// A test's expectation of a stub was not met.
public struct StubExpectationFailed: Error, CustomStringConvertible {
    /// What was expected and what happened.
    public let description: String
}

/// A request that no route of a ``StubTransport``, or no entry of a ``ReplayTransport``'s archive,
/// answers. Its description names the request and the nearest routes with what differs for each.
public struct UnmatchedRequest: Error, CustomStringConvertible {
    /// The request.
    public let request: RecordedRequest
    /// What was searched: `stub route`, or `recorded entry in the HAR file`.
    public let source: String
    /// The routes that came nearest (fewest differences first, at most three), each with what
    /// differs.
    public let nearest: [(route: String, differences: [String])]

    /// The request, its headers, and the nearest routes.
    public var description: String {
        var lines = ["no \(source) matches \(request.description)"]
        if !request.headers.isEmpty {
            lines.append("  headers: " + request.headers.map { "\($0.name): \($0.value)" }.joined(separator: ", "))
        }
        if !request.body.isEmpty {
            lines.append("  body: \(request.body.count) bytes")
        }
        if nearest.isEmpty {
            lines.append("  (there is none)")
        } else {
            lines.append("  nearest:")
            for (route, differences) in nearest {
                lines.append("    \(route): " + differences.joined(separator: "; "))
            }
        }
        return lines.joined(separator: "\n")
    }
}
