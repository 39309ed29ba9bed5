import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Testing
@testable import Requests

// MARK: - HostileServerTests

/// Runs ``HostileServerMatrix`` and then ``HostileHeaderFlood`` in processes of their own (on
/// Linux), and relays their table.
///
/// Every `URLSession` in a process shares FoundationNetworking's one work queue. In the parallel
/// test run, hundreds of other transfers would queue in front of the matrix's, so its short
/// timeouts would measure the rest of the suite; and its 100,000-header response keeps that queue
/// busy for seconds, which would stall every other test. Child processes keep them all apart.
@Suite struct HostileServerTests {
    @Test func theMatrixPassesInProcessesOfItsOwn() async throws {
        #if canImport(FoundationNetworking)
        // Every fault twice (request and stream), then the header flood alone.
        try await Self.run("matrix", suite: "HostileServerMatrix", rows: HostileServerMatrix.faults.count * 2)
        try await Self.run("headers", suite: "HostileHeaderFlood", rows: 1)
        #endif
    }

    /// Runs this test binary filtered to `suite`, expects it to pass and print `rows` table rows,
    /// and prints them here.
    private static func run(_ part: String, suite: String, rows expected: Int) async throws {
        let environment = ProcessInfo.processInfo.environment.merging([HostileIsolation.key: part]) { $1 }
        // At the lowest priority: the header flood keeps a core busy for seconds (its server
        // writing 100,000 headers, FoundationNetworking reading them), which would starve this
        // process's own timing tests on a 2-core machine.
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/nice"),
            arguments: ["-n", "19", CommandLine.arguments[0], "--testing-library", "swift-testing", "--filter", suite],
            environment: environment, mergingStandardError: true
        )
        let log = String(decoding: output.stdout, as: UTF8.self)
        #expect(output.status == 0, "\(log)")
        let rows = log.split(separator: "\n").filter { $0.hasPrefix("hostile |") }
        #expect(rows.count == expected, "\(suite) did not run whole: \(log)")
        for row in rows.sorted() {
            print(row)
        }
    }
}

// MARK: - HostileIsolation

/// Where ``HostileServerMatrix`` and ``HostileHeaderFlood`` run: on Linux, only in the child
/// processes ``HostileServerTests`` starts with ``key`` set to their part; elsewhere, in the test run.
enum HostileIsolation {
    static let key = "REQUESTS_HOSTILE"

    /// Whether the suite for `part` runs in this process.
    static func runs(_ part: String) -> Bool {
        #if canImport(FoundationNetworking)
        ProcessInfo.processInfo.environment[key] == part
        #else
        true
        #endif
    }
}

// MARK: - HostileServerMatrix

/// Faults from `hostile_server.py`: every call ends within its timeout with a ``RequestError`` that
/// names what went wrong (or, where HTTP allows it, with the right response), and the next request
/// on the same ``Session`` succeeds. Each case prints a row (`hostile | path | call | outcome |
/// time`) for the table in the documentation.
///
/// The causes quoted are FoundationNetworking's (libcurl's) words, checked on Linux only: Apple's
/// `URLSession` words the same failures differently. On Linux the suite runs only inside
/// ``HostileServerTests``' child process.
@Suite(.enabled(if: HostileIsolation.runs("matrix")))
struct HostileServerMatrix {
    /// One fault and what a call that meets it must end with.
    struct Fault: Sendable, CustomTestStringConvertible {
        let path: String
        /// The error `request` throws, or `nil` when the response is legal and comes back whole.
        let code: RequestError.Code?
        /// The error `stream` throws, at the head or while the body is read.
        let streamCode: RequestError.Code?
        /// What the description must contain on Linux (the body, for a response).
        let cause: String
        /// What a stream's error must contain on Linux, when not ``cause``.
        var streamCause: String?
        var testDescription: String { path }
    }

    static let late = "no complete response within 3 seconds"
    static let silent = "the body sent nothing for 3 seconds"

    static let faults: [Fault] = [
        Fault(path: "/reset-in-head", code: .transportFailed, streamCode: .transportFailed, cause: "networkConnectionLost (-1005): Recv failure: Connection reset by peer"),
        Fault(path: "/reset-in-body", code: .transportFailed, streamCode: .streamFailed, cause: "networkConnectionLost (-1005): Recv failure: Connection reset by peer"),
        Fault(path: "/close-in-body", code: .transportFailed, streamCode: .streamFailed, cause: "transfer closed with 99000 bytes remaining to read"),
        Fault(path: "/truncated-chunked", code: .transportFailed, streamCode: .streamFailed, cause: "transfer closed with outstanding read data remaining"),
        Fault(path: "/bad-chunk-size", code: .transportFailed, streamCode: .streamFailed, cause: "Illegal or missing hexadecimal sequence in chunked-encoding"),
        Fault(path: "/huge-chunk-size", code: .transportFailed, streamCode: .streamFailed, cause: "Too long hexadecimal number in chunked-encoding"),
        Fault(path: "/stall-after-head", code: .timedOut, streamCode: .timedOut, cause: late, streamCause: silent),
        Fault(path: "/stall-in-body", code: .timedOut, streamCode: .timedOut, cause: late, streamCause: silent),
        Fault(path: "/long-header", code: .transportFailed, streamCode: .transportFailed, cause: "URLError unknown (-1): Out of memory"),
        Fault(path: "/informational", code: .timedOut, streamCode: .timedOut, cause: late),
        Fault(path: "/informational-drip", code: .timedOut, streamCode: .timedOut, cause: late),
        Fault(path: "/not-http", code: .transportFailed, streamCode: .transportFailed, cause: "Received HTTP/0.9 when not allowed"),
        Fault(path: "/bad-status", code: .transportFailed, streamCode: .transportFailed, cause: "Unsupported HTTP version in response"),
        Fault(path: "/no-response", code: .transportFailed, streamCode: .transportFailed, cause: "networkConnectionLost (-1005): Empty reply from server"),
        // Legal, if unusual: the declared length wins and the excess goes with the connection.
        Fault(path: "/short-length", code: nil, streamCode: nil, cause: "hello"),
        Fault(path: "/keep-alive-close", code: nil, streamCode: nil, cause: "closing"),
        Fault(path: "/informational-then-ok", code: nil, streamCode: nil, cause: "ok"),
    ]

    static let timeout = Duration.seconds(3)

    @Test(arguments: faults)
    func aRequestEndsWithANamedErrorAndTheNextOneSucceeds(fault: Fault) async throws {
        try await Self.exercise("request", fault, expecting: fault.code, cause: fault.cause, within: Self.timeout * 1.5) { session, url in
            try await session.request(url, timeout: Self.timeout).text
        }
    }

    @Test(arguments: faults)
    func aStreamEndsWithANamedErrorAndTheNextOneSucceeds(fault: Fault) async throws {
        // A stall in the body fails after one timeout of silence, which starts after the head.
        try await Self.exercise("stream", fault, expecting: fault.streamCode, cause: fault.streamCause ?? fault.cause, within: Self.timeout * 2.5) { session, url in
            let stream = try await session.stream(url, timeout: Self.timeout)
            #expect(stream.statusCode == 200, "the head of \(fault.path) is the final response")
            return String(decoding: try await stream.body.collect(upTo: 1 << 20), as: UTF8.self)
        }
    }

    /// Sends `fault` through `call` on a fresh session, checks how it ended and how long it took,
    /// then that a normal request on the same session succeeds, and prints the table row.
    private static func exercise(
        _ call: String, _ fault: Fault, expecting code: RequestError.Code?, cause: String, within bound: Duration,
        _ body: (Session, URL) async throws -> String
    ) async throws {
        let hostile = try LoopbackServer.hostile.get()
        let session = Session()
        let lateness = schedulerLateness()
        let start = ContinuousClock.now
        let outcome = await capture { try await body(session, hostile.url(fault.path)) }
        let elapsed = ContinuousClock.now - start
        try check(outcome, expecting: code, cause: cause, fault: fault)
        #expect(elapsed < allowingLateness(bound, await lateness.value), "\(fault.path) took \(elapsed)")
        let next = try await session.request(hostile.url("/ok"), timeout: .seconds(5))
        #expect(next.text == "ok")
        report(call, fault, outcome, elapsed)
    }

    /// A keep-alive connection the server closes between requests, whether the client notices
    /// before reusing it (the pause) or sends its next request into the closing socket (no pause).
    @Test(arguments: [Duration.zero, .milliseconds(150)])
    func keepAliveConnectionsClosedBetweenRequestsAreNotAnError(pause: Duration) async throws {
        let hostile = try LoopbackServer.hostile.get()
        let session = Session(timeout: .seconds(5))
        for _ in 0..<20 {
            #expect(try await session.request(hostile.url("/keep-alive-close")).text == "closing")
            try await Task.sleep(for: pause)
            #expect(try await session.request(hostile.url("/ok")).text == "ok")
        }
    }

    // MARK: - Helpers

    /// One row of the hostile-server table, for the log: `hostile | path | call | outcome | seconds`.
    private static func report(_ call: String, _ fault: Fault, _ outcome: Result<String, any Error>, _ elapsed: Duration) {
        let text = (try? outcome.get()) ?? outcome.failureDescription
        print("hostile | \(fault.path) | \(call) | \(text) | \(seconds(elapsed)) | next request OK")
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    static func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    private static func check(_ outcome: Result<String, any Error>, expecting code: RequestError.Code?, cause: String, fault: Fault) throws {
        switch (outcome, code) {
        case (.success(let text), nil):
            #expect(text == cause, "\(fault.path)")
        case (.success(let text), let code?):
            Issue.record("\(fault.path) gave a response (\"\(text.prefix(80))\") instead of \(code)")
        case (.failure(let error), let code):
            let requestError = try #require(error as? RequestError, "\(fault.path) threw \(error)")
            #expect(requestError.code == code, "\(fault.path): \(requestError)")
            #expect(requestError.description.contains(fault.path), "\(requestError)")
            if code == .timedOut {
                // Timeouts are the session's own, worded the same on every platform.
                #expect(requestError.description.contains(cause), "\(fault.path): \(requestError)")
            }
            #if canImport(FoundationNetworking)
            #expect(requestError.description.contains(cause), "\(fault.path): \(requestError)")
            #endif
        }
    }
}

extension Result {
    /// The error's description, or an empty string for a success.
    fileprivate var failureDescription: String {
        if case .failure(let error) = self { return "\(error)" }
        return ""
    }
}

// MARK: - HostileHeaderFlood

/// The 100,000-header response, alone in its process: while FoundationNetworking works through
/// the headers, every transfer that starts in the process waits for its queue.
@Suite(.enabled(if: HostileIsolation.runs("headers")))
struct HostileHeaderFlood {
    /// A response with 100,000 headers: FoundationNetworking spends seconds of its shared queue
    /// on them after the call has ended, so the next request waits for that queue.
    @Test func aHundredThousandHeadersEndInTime() async throws {
        let hostile = try LoopbackServer.hostile.get()
        let session = Session()
        let start = ContinuousClock.now
        let outcome = await HostileServerMatrix.capture { try await session.request(hostile.url("/many-headers"), timeout: HostileServerMatrix.timeout) }
        let elapsed = ContinuousClock.now - start
        switch outcome {
        case .success(let response):
            // A client that can take them all must give them all.
            #expect(response.headers.count == 100_001)
        case .failure(let error):
            #expect((error as? RequestError)?.code == .timedOut || (error as? RequestError)?.code == .transportFailed, "\(error)")
        }
        #expect(elapsed < HostileServerMatrix.timeout * 3, "took \(elapsed)")
        // FoundationNetworking's queue is still busy with the headers for a few seconds more.
        let next = try await session.request(hostile.url("/ok"), timeout: .seconds(60))
        #expect(next.text == "ok")
        let failure = (try? outcome.get()).map { _ in "a response" } ?? outcome.failureDescription
        print("hostile | /many-headers | request | \(failure) | \(HostileServerMatrix.seconds(elapsed)) | next request after \(HostileServerMatrix.seconds(ContinuousClock.now - start))")
    }
}
