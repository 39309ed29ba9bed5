import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - StubTransport

/// A transport that answers from routes set up by the test, and records every request.
///
/// No network, no global state and no `URLProtocol` registration: give it to a ``/Requests/Session`` and
/// the whole pipeline runs over it (retries see stubbed 503s, authentication sees a stubbed 401,
/// redirects and cookies follow stubbed 3xx and `Set-Cookie`).
///
/// ```swift
/// let stub = StubTransport()
/// let user = stub.on(.get, "/users/7", respond: try .json(User(id: 7, name: "Ada")))
/// stub.on(.get, "/flaky", respond: .status(503), .text("ok"))
///
/// let session = Session(transport: stub, interceptors: [RetryPolicy()])
/// let response = try await session.request("https://api.example.com/users/7")
/// #expect(user.hits == 1)
/// #expect(stub.requests.map(\.description) == ["GET https://api.example.com/users/7"])
/// ```
///
/// The route added last is tried first, so a test can override a route its setup added. A
/// request no route matches fails with ``UnmatchedRequest``, which names the request and the
/// nearest routes; through a session, it is the `underlyingError` of the
/// ``/Requests/RequestError`` the call throws (code `transportFailed`, never retried). Routes can be added while requests are in flight, and ``requests`` can be
/// read from any task.
public final class StubTransport: Transport {
    private let routes = Guarded<[StubRoute]>([])
    private let received = Guarded<[RecordedRequest]>([])
    /// What the stub says it does on its own: by default, nothing (no decoding, no headers).
    public let behavior: TransportBehavior

    /// A stub with no routes.
    ///
    /// - Parameter behavior: What the stub reports about itself, for code that reads
    ///   ``/Requests/Transport/behavior``; nothing by default.
    public init(behavior: TransportBehavior = TransportBehavior()) {
        self.behavior = behavior
    }

    // MARK: Routes

    /// Adds a route.
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - url: The URL, its path (`"/users"`) or a path prefix (`"/api/*"`); any by default.
    ///   - query: Query items the request must carry.
    ///   - headers: Headers the request must carry.
    ///   - body: A predicate on the body.
    ///   - responses: The answers in turn, the last repeating; a 200 with no body when none.
    /// - Returns: The route, for its hit count and requests.
    @discardableResult
    public func on(
        _ method: HTTPMethod? = nil, _ url: URLPattern = .any, query: KeyValuePairs<String, String> = [:],
        headers: HTTPHeaders = [:], body: BodyPattern? = nil, respond responses: StubResponse...
    ) -> StubRoute {
        on(RequestMatcher(method, url, query: query, headers: headers, body: body), respond: responses)
    }

    /// Adds a route whose answers are a list made elsewhere.
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - url: The URL, its path (`"/users"`) or a path prefix (`"/api/*"`); any by default.
    ///   - query: Query items the request must carry.
    ///   - headers: Headers the request must carry.
    ///   - body: A predicate on the body.
    ///   - responses: The answers in turn, the last repeating; a 200 with no body when empty.
    /// - Returns: The route, for its hit count and requests.
    @discardableResult
    public func on(
        _ method: HTTPMethod? = nil, _ url: URLPattern = .any, query: KeyValuePairs<String, String> = [:],
        headers: HTTPHeaders = [:], body: BodyPattern? = nil, respond responses: [StubResponse]
    ) -> StubRoute {
        on(RequestMatcher(method, url, query: query, headers: headers, body: body), respond: responses)
    }

    /// Adds a route for a matcher.
    ///
    /// - Parameters:
    ///   - matcher: The requests the route answers.
    ///   - responses: The answers in turn, the last repeating; a 200 with no body when empty.
    /// - Returns: The route.
    @discardableResult
    public func on(_ matcher: RequestMatcher, respond responses: [StubResponse]) -> StubRoute {
        let route = StubRoute(matcher: matcher, responses: responses)
        routes.withLock { $0.append(route) }
        return route
    }

    /// Removes every route, for a test that sets up new ones; the requests received are kept.
    public func removeAllRoutes() {
        routes.withLock { $0.removeAll() }
    }

    /// Forgets the requests received so far, here and in every route (whose ``StubRoute/hits``
    /// count from none again; each route keeps its place in its sequence of answers): for a test
    /// that checks them in rounds, or a load test that should not keep every request, its body
    /// included, for the whole run.
    public func removeAllRequests() {
        let dropped = received.withLock { received -> [RecordedRequest] in
            defer { received = [] }
            return received
        }
        releaseUnlocked(dropped)
        for route in routes.withLock({ $0 }) {
            route.removeAllRequests()
        }
    }

    /// Every request received, in the order they came, matched or not.
    public var requests: [RecordedRequest] { received.withLock { $0 } }

    /// The routes that answered nothing yet.
    public var routesNeverHit: [StubRoute] { routes.withLock { $0 }.filter { $0.hits == 0 } }

    /// The requests that `matcher` matches, in the order they came.
    ///
    /// - Parameter matcher: A matcher.
    /// - Returns: The requests.
    public func requests(matching matcher: RequestMatcher) -> [RecordedRequest] {
        requests.filter(matcher.matches)
    }

    // MARK: Transport

    /// Reads the request whole, finds its route and answers as the route says.
    ///
    /// - Parameter request: The request.
    /// - Returns: The stubbed head and body.
    /// - Throws: ``UnmatchedRequest`` when no route matches; the stubbed ``/Requests/TransportError``;
    ///   `CancellationError` when the call or the request's handle is cancelled during a
    ///   stubbed delay; a file answer's read error.
    public func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let recorded = try await RecordedRequest(reading: request)
        received.withLock { $0.append(recorded) }
        let candidates = routes.withLock { $0 }
        guard let route = candidates.last(where: { $0.matcher.matches(recorded) }) else {
            throw unmatched(recorded, among: candidates)
        }
        var response = route.answer(recorded)
        if case .computed(let make) = response.outcome {
            let delay = response.delay
            response = try make(recorded)
            if case .computed = response.outcome {
                throw TransportError(.other, detail: "a computed stub answer made another computed answer")
            }
            response = response.delayed(by: max(delay, response.delay))
        }
        if response.delay > .zero { try await request.handle.sleep(for: response.delay) }
        try Task.checkCancellation()
        switch response.outcome {
        case .failure(let error):
            throw error
        case .computed:
            throw TransportError(.other, detail: "a computed stub answer made another computed answer")
        case .webSocket(let chosen, var headers, let script):
            guard let upgrade = request.request.options.webSocketUpgrade else {
                return (ResponseHead(statusCode: 426, headers: ["Upgrade": "websocket"], url: recorded.url, httpVersion: "HTTP/1.1"), ResponseBody(Data()))
            }
            headers = headers.adding("Upgrade", "websocket").adding("Connection", "Upgrade")
            if let chosen = chosen ?? upgrade.protocols.first { headers = headers.adding("Sec-WebSocket-Protocol", chosen) }
            upgrade.deliver(StubWebSocketPeer.open(recorded, options: upgrade.options, script: script))
            return (ResponseHead(statusCode: 101, headers: headers, url: recorded.url, httpVersion: "HTTP/1.1"), ResponseBody(Data()))
        case .answer(let status, var headers, let body):
            let mayHaveBody = StubResponse.mayHaveBody(status: status)
            let sendsBody = mayHaveBody && recorded.method != .head
            let responseBody: ResponseBody
            switch body {
            case .data(let data):
                if mayHaveBody { headers = headers.adding("Content-Length", String(data.count)) }
                responseBody = ResponseBody(sendsBody ? data : Data())
            case .file(let url):
                let data: Data
                do {
                    data = try Data(contentsOf: url)
                } catch {
                    throw TransportError(.other, detail: "the stubbed file \(url.path) cannot be read", underlyingError: error)
                }
                if mayHaveBody { headers = headers.adding("Content-Length", String(data.count)) }
                responseBody = ResponseBody(sendsBody ? data : Data())
            case .chunks(let chunks, let interval, let failure):
                responseBody = sendsBody
                    ? ResponseBody(source: ChunkSource(chunks, interval: interval, failure: failure))
                    : ResponseBody(Data())
            }
            return (ResponseHead(statusCode: status, headers: headers, url: recorded.url, httpVersion: "HTTP/1.1"), responseBody)
        }
    }

    private func unmatched(_ request: RecordedRequest, among routes: [StubRoute]) -> UnmatchedRequest {
        let nearest = routes.reversed()
            .map { (route: $0.matcher.description, differences: $0.matcher.mismatches(request)) }
            .enumerated()
            .sorted { ($0.element.differences.count, $0.offset) < ($1.element.differences.count, $1.offset) }
            .prefix(3)
            .map(\.element)
        return UnmatchedRequest(request: request, source: "stub route", nearest: Array(nearest))
    }
}
