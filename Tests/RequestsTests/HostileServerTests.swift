import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Testing
import TransportContract
@testable import Requests

// MARK: - HostileServerTests

/// Runs ``URLSessionHostileMatrix`` and then ``URLSessionHeaderFlood`` (`TransportContract`'s
/// `HostileServerMatrix` over `URLSessionTransport`) in processes of their own (on Linux), and
/// relays their table.
///
/// Every `URLSession` in a process shares FoundationNetworking's one work queue. In the parallel
/// test run, hundreds of other transfers would queue in front of the matrix's, so its short
/// timeouts would measure the rest of the suite; and its 100,000-header response keeps that queue
/// busy for seconds, which would stall every other test. Child processes keep them all apart.
@Suite struct HostileServerTests {
    @Test func theMatrixPassesInProcessesOfItsOwn() async throws {
        #if canImport(FoundationNetworking)
        // Every fault twice (request and stream), then the header flood alone.
        try await Self.run("matrix", suite: "URLSessionHostileMatrix", rows: HostileServerMatrix.faults.count * 2)
        try await Self.run("headers", suite: "URLSessionHeaderFlood", rows: 1)
        #endif
    }

    /// Runs this test binary filtered to `suite`, expects it to pass and print `rows` table rows,
    /// and reports them (``TestDetail``: printed with `REQUESTS_TEST_DETAIL=1`, else written to a file).
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
        // The rows are for whoever wants them (REQUESTS_TEST_DETAIL=1 prints them).
        TestDetail.report(rows.sorted().map(String.init), as: "hostile-\(suite)")
    }
}

// MARK: - HostileIsolation

/// Where ``URLSessionHostileMatrix`` and ``URLSessionHeaderFlood`` run: on Linux, only in the child
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

// MARK: - URLSessionHostileMatrix

/// `TransportContract`'s `HostileServerMatrix` over `URLSessionTransport`: every call ends within
/// its timeout with a ``RequestError`` of the right code and kind (or, where HTTP allows it, with
/// the right response), and the next request on the same ``Session`` succeeds. Each case prints a
/// row (`hostile | path | call | outcome | time | next`) for the table in the documentation.
///
/// On top of the shared checks, the errors must quote FoundationNetworking's (libcurl's) words,
/// checked on Linux only: Apple's `URLSession` words the same failures differently. On Linux the
/// suite runs only inside ``HostileServerTests``' child process.
@Suite(.enabled(if: HostileIsolation.runs("matrix")))
struct URLSessionHostileMatrix {
    /// libcurl's words for each fault that fails in the transport: for a request, and for a
    /// stream when they differ. Timeouts are the session's, which the shared matrix checks.
    static let causes: [String: (request: String, stream: String?)] = [
        "/reset-in-head": ("networkConnectionLost (-1005): Recv failure: Connection reset by peer", nil),
        "/reset-in-body": ("networkConnectionLost (-1005): Recv failure: Connection reset by peer", nil),
        "/close-in-body": ("transfer closed with 99000 bytes remaining to read", nil),
        "/truncated-chunked": ("transfer closed with outstanding read data remaining", nil),
        "/bad-chunk-size": ("Illegal or missing hexadecimal sequence in chunked-encoding", nil),
        "/huge-chunk-size": ("Too long hexadecimal number in chunked-encoding", nil),
        "/long-header": ("URLError unknown (-1): Out of memory", nil),
        "/not-http": ("Received HTTP/0.9 when not allowed", nil),
        "/bad-status": ("Unsupported HTTP version in response", nil),
        "/no-response": ("networkConnectionLost (-1005): Empty reply from server", nil),
    ]

    @Test(arguments: HostileServerMatrix.faults)
    func aRequestEndsWithANamedErrorAndTheNextOneSucceeds(fault: HostileServerMatrix.Fault) async throws {
        try await Self.exercise(fault, as: .request)
    }

    @Test(arguments: HostileServerMatrix.faults)
    func aStreamEndsWithANamedErrorAndTheNextOneSucceeds(fault: HostileServerMatrix.Fault) async throws {
        try await Self.exercise(fault, as: .stream)
    }

    /// Runs the shared check on a transport of its own, then checks libcurl's words, and prints
    /// the table row.
    private static func exercise(_ fault: HostileServerMatrix.Fault, as call: HostileServerMatrix.Call) async throws {
        let outcome = try await withURLSessionTransport { transport in
            try await HostileServerMatrix(transport: transport, server: LoopbackServer.hostile.get().baseURL).check(fault, as: call)
        }
        #if canImport(FoundationNetworking)
        if let error = outcome.error, let cause = causes[fault.path] {
            let words = call == .stream ? cause.stream ?? cause.request : cause.request
            #expect("\(error)".contains(words), "\(fault.path): \(error)")
        }
        #endif
        print(outcome.row)
    }

    /// A keep-alive connection the server closes between requests, whether the client notices
    /// before reusing it (the pause) or sends its next request into the closing socket (no pause).
    @Test(arguments: [Duration.zero, .milliseconds(150)])
    func keepAliveConnectionsClosedBetweenRequestsAreNotAnError(pause: Duration) async throws {
        try await withURLSessionTransport { transport in
            try await HostileServerMatrix(transport: transport, server: LoopbackServer.hostile.get().baseURL)
                .checkKeepAliveClosedBetweenRequests(pause: pause)
        }
    }
}

// MARK: - URLSessionHeaderFlood

/// The 100,000-header response, alone in its process: while FoundationNetworking works through
/// the headers, every transfer that starts in the process waits for its queue (the shared check
/// allows the next request a minute).
@Suite(.enabled(if: HostileIsolation.runs("headers")))
struct URLSessionHeaderFlood {
    @Test func aHundredThousandHeadersEndInTime() async throws {
        let outcome = try await withURLSessionTransport { transport in
            try await HostileServerMatrix(transport: transport, server: LoopbackServer.hostile.get().baseURL).checkHeaderFlood()
        }
        print(outcome.row)
    }
}

/// Runs `body` with a `URLSessionTransport` of its own, shut down afterwards whether `body`
/// returned or threw.
private func withURLSessionTransport<T>(_ body: (URLSessionTransport) async throws -> T) async throws -> T {
    try await withShutdown(URLSessionTransport(), body)
}
