import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - HostileServerMatrix

/// The faults of this repository's `Tests/Fixtures/hostile_server.py` (started wherever you like;
/// pass its address), and what every ``Transport`` owes a
/// ``Session`` that meets them: each call ends within its timeout with a ``RequestError`` of the
/// right code (or, where HTTP allows it, with the right response), and the next request on the
/// same session succeeds.
///
/// Run each fault from a test of your own, once per ``Call``, on a transport made for the test
/// and shut down after it; each check returns an ``Outcome`` whose ``Outcome/row`` is a line of
/// the table in the documentation, and whose error an engine's own tests may check for the
/// engine's words:
///
/// ```swift
/// @Test(arguments: HostileServerMatrix.faults, HostileServerMatrix.Call.allCases)
/// func myTransportSurvivesTheFault(_ fault: HostileServerMatrix.Fault, _ call: HostileServerMatrix.Call) async throws {
///     let transport = MyTransport()
///     let hostile = try #require(URL(string: ProcessInfo.processInfo.environment["HOSTILE_SERVER"] ?? "http://127.0.0.1:8081"))
///     let outcome = try await HostileServerMatrix(transport: transport, server: hostile).check(fault, as: call)
///     print(outcome.row)
///     try await transport.shutdown()
/// }
/// ```
///
/// The checks throw ``ContractViolation`` saying what the transport did instead. Their time
/// bounds allow for a loaded machine's lateness, measured beside each call (``LatenessProbe``).
public struct HostileServerMatrix: Sendable {
    /// The transport under test.
    public let transport: any Transport
    /// The hostile server's base URL, such as `http://127.0.0.1:8080`.
    public let server: URL

    /// The timeout of every call of the matrix.
    public static let timeout = Duration.seconds(3)

    /// Prepares the matrix for one transport against one hostile server.
    ///
    /// - Parameters:
    ///   - transport: The transport under test.
    ///   - server: The base URL of `hostile_server.py`.
    public init(transport: any Transport, server: URL) {
        self.transport = transport
        self.server = server
    }

    /// How a fault is met.
    public enum Call: String, Sendable, CaseIterable, CustomStringConvertible {
        /// ``Session/request(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)``,
        /// which reads the whole body before it returns.
        case request
        /// ``Session/stream(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:)``,
        /// which returns at the head; the body is then read to its end.
        case stream

        /// The call's name.
        public var description: String { rawValue }
    }

    // MARK: Checks

    /// Meets `fault` with `call` on a new session over the transport, checks how the call ended
    /// and how long it took, then that a plain request on the same session succeeds.
    ///
    /// A request (``timeout`` its deadline) is allowed 1.5 times ``timeout``; a stream (``timeout``
    /// its idle limit) 2.5 times, since a stall in its body fails after one idle limit of silence,
    /// which starts after the head. A try that ended wrongly
    /// while the runtime itself was a second or more late (a fault the engine saw at once can
    /// reach the call only after the deadline when the process gets no CPU for seconds) is made
    /// again, twice at most (``retryingWhenLate(attempts:stall:_:)``).
    ///
    /// - Parameters:
    ///   - fault: The fault, one of ``faults``.
    ///   - call: How to meet it.
    /// - Returns: How the call ended, and how long it took.
    /// - Throws: ``ContractViolation`` saying what happened instead.
    public func check(_ fault: Fault, as call: Call) async throws -> Outcome {
        // A request's timeout is its deadline (the idle limit, no shorter, never passes first); a
        // stream has none, so its silences meet the idle limit.
        let session = Session(transport: transport, idleTimeout: Self.timeout, cookies: .none)
        let url = try url(fault.path)
        let (result, elapsed) = try await retryingWhenLate(stall: .seconds(1)) { beside in
            let start = ContinuousClock.now
            let result = await Self.capture { try await Self.perform(call, url, on: session) }
            let elapsed = ContinuousClock.now - start
            let late = await beside.value
            try Self.verify(result, against: fault.ending(for: call), path: fault.path,
                            what: "the \(call) of \(fault.path) (the runtime was \(late) late)")
            let bound = call == .request ? Self.timeout * 1.5 : Self.timeout * 2.5
            try expect(elapsed <= bound + late * 2,
                       "the \(call) of \(fault.path) ended after \(elapsed) (bound \(bound), the runtime was \(late) late)")
            return (result, elapsed)
        }
        try await nextRequestSucceeds(on: session, after: "the \(call) of \(fault.path)", within: .seconds(5))
        return Outcome(path: fault.path, call: call, result: result, elapsed: elapsed, next: "next request OK")
    }

    /// Asks for a response with `count` headers (100,000 by default): it arrives whole or fails
    /// as ``RequestError/Code/transportFailed`` or ``RequestError/Code/timedOut``, within three
    /// times ``timeout``, and a request after it on the same session succeeds within a minute
    /// (an engine may still be busy with the headers when the call has ended).
    ///
    /// - Parameter count: How many headers the server sends (and a `Content-Length`).
    /// - Returns: How the call ended; its ``Outcome/next`` says when the next request was done,
    ///   counted from the start of the flood.
    /// - Throws: ``ContractViolation`` saying what happened instead.
    public func checkHeaderFlood(count: Int = 100_000) async throws -> Outcome {
        let session = Session(transport: transport, cookies: .none)
        let path = "/many-headers"
        let url = try url(count == 100_000 ? path : "\(path)?n=\(count)")
        let beside = LatenessProbe()
        let start = ContinuousClock.now
        let result = await Self.capture { try await session.request(url, timeout: Self.timeout) }
        let elapsed = ContinuousClock.now - start
        let late = await beside.stop()
        switch result {
        case .success(let response):
            // A client that can take them all must give them all.
            try expect(response.headers.count == count + 1,
                       "the response of \(path) came with \(response.headers.count) of its \(count + 1) headers")
        case .failure(let error):
            let code = (error as? RequestError)?.code
            try expect(code == .transportFailed || code == .timedOut, "the request of \(path) threw \(error)")
        }
        let bound = Self.timeout * 3
        try expect(elapsed <= bound + late * 2, "the request of \(path) ended after \(elapsed) (bound \(bound), the runtime was \(late) late)")
        try await nextRequestSucceeds(on: session, after: "the request of \(path)", within: .seconds(60))
        let text = result.map { "a response with \($0.headers.count) headers" }
        return Outcome(path: path, call: .request, result: text, elapsed: elapsed,
                       next: "next request after \(Self.seconds(ContinuousClock.now - start))")
    }

    /// Sends `rounds` pairs of requests to a server that closes each keep-alive connection just
    /// after its response, pausing `pause` between them: whether the client notices the close
    /// before it reuses the connection (a pause) or sends its next request into the closing
    /// socket (none), every request succeeds.
    ///
    /// - Parameters:
    ///   - pause: The wait after each closing response.
    ///   - rounds: How many pairs to send; 20 by default.
    /// - Throws: ``ContractViolation`` naming the round that failed and how.
    public func checkKeepAliveClosedBetweenRequests(pause: Duration, rounds: Int = 20) async throws {
        let session = Session(transport: transport, timeout: .seconds(5), cookies: .none)
        let closing = try url("/keep-alive-close")
        let ok = try url("/ok")
        for round in 1...max(1, rounds) {
            do {
                let first = try await session.request(closing).text
                try expect(first == "closing", "round \(round): /keep-alive-close answered \"\(first)\"")
                try await Task.sleep(for: pause)
                let second = try await session.request(ok).text
                try expect(second == "ok", "round \(round): /ok after /keep-alive-close answered \"\(second)\"")
            } catch let violation as ContractViolation {
                throw violation
            } catch {
                throw ContractViolation("round \(round) (pause \(pause)) failed: \(error)")
            }
        }
    }

    // MARK: Outcome

    /// How one call of the matrix ended.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// The fault's path.
        public let path: String
        /// The call that met it.
        public let call: Call
        /// The body of the response, or the error the call threw.
        public let result: Result<String, any Error>
        /// How long the call took.
        public let elapsed: Duration
        /// What became of the next request on the same session.
        public let next: String

        /// The body, or the error's description.
        public var text: String {
            switch result {
            case .success(let body): body
            case .failure(let error): "\(error)"
            }
        }

        /// The error the call threw, if it failed.
        public var error: (any Error)? {
            if case .failure(let error) = result { return error }
            return nil
        }

        /// One row of the hostile-server table: `hostile | path | call | outcome | seconds | next`.
        public var row: String {
            "hostile | \(path) | \(call) | \(text) | \(HostileServerMatrix.seconds(elapsed)) | \(next)"
        }

        /// The ``row``.
        public var description: String { row }
    }

    // MARK: Helpers

    /// The URL of a path on the server.
    private func url(_ path: String) throws -> URL {
        guard let url = URL(string: server.absoluteString + path) else {
            throw ContractViolation("cannot make a URL of \(path) on \(server)")
        }
        return url
    }

    /// Runs one call to its end: the body as text, or the error.
    private static func perform(_ call: Call, _ url: URL, on session: Session) async throws -> String {
        switch call {
        case .request:
            return try await session.request(url, timeout: timeout).text
        case .stream:
            let stream = try await session.stream(url)
            guard stream.statusCode == 200 else {
                stream.cancel()
                throw ContractViolation("the head of the stream of \(url.path) is \(stream.statusCode), not the final response")
            }
            return String(decoding: try await stream.body.collect(upTo: 1 << 20), as: UTF8.self)
        }
    }

    /// Checks a call's result against what it may end with.
    private static func verify(_ result: Result<String, any Error>, against ending: Ending, path: String, what: String) throws {
        switch result {
        case .success(let body):
            try expect(ending.response != nil, "\(what) gave a response (\"\(body.prefix(80))\") instead of \(ending)")
            try expect(body == ending.response, "\(what) gave the body \"\(body.prefix(80))\" instead of \(ending)")
        case .failure(let violation as ContractViolation):
            throw violation
        case .failure(let error):
            guard let error = error as? RequestError else {
                throw ContractViolation("\(what) threw \(type(of: error)) instead of a RequestError: \(error)")
            }
            try expect(ending.codes.contains(error.code), "\(what) failed with \(error.code) instead of \(ending): \(error)")
            if let kind = ending.kind {
                let seen = error.transportErrorKind.map { "\($0)" } ?? "no kind"
                try expect(error.transportErrorKind == kind, "\(what) failed as \(seen) instead of \(kind): \(error)")
            }
            try expect(error.description.contains(path), "\(what) threw an error that does not name the request: \(error)")
            if let words = ending.words {
                try expect(error.description.contains(words), "\(what) threw an error that does not say \"\(words)\": \(error)")
            }
        }
    }

    /// Sends `/ok` on `session` and expects its body.
    private func nextRequestSucceeds(on session: Session, after what: String, within limit: Duration) async throws {
        do {
            let text = try await session.request(try url("/ok"), timeout: limit).text
            try expect(text == "ok", "after \(what), /ok answered \"\(text)\"")
        } catch let violation as ContractViolation {
            throw violation
        } catch {
            throw ContractViolation("after \(what), the next request on the same session failed: \(error)")
        }
    }

    static func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// A duration as seconds with three decimals, such as `3.012 s`.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
