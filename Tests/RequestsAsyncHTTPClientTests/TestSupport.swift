#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Requests
import RequestsAsyncHTTPClient
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Servers

/// The loopback server (`loopback_server.py`) shared by the tests of this process.
func server() throws -> LoopbackServer {
    try LoopbackServer.shared.get()
}

/// The fault-injecting server (`hostile_server.py`) shared by the tests of this process.
func hostileServer() throws -> LoopbackServer {
    try LoopbackServer.hostile.get()
}

/// A key no other test uses, for the server's counters.
func uniqueKey(_ name: String) -> String {
    "\(name)-\(UUID().uuidString.prefix(8))"
}

// MARK: - Transports

/// Runs `body` with a transport of its own and shuts the transport down afterwards, whether
/// `body` returned or threw.
///
/// - Parameters:
///   - configuration: The transport's configuration; the defaults unless given.
///   - body: The test.
/// - Returns: What `body` returned.
func withTransport<T>(
    _ configuration: AsyncHTTPClientTransport.Configuration = AsyncHTTPClientTransport.Configuration(),
    _ body: (AsyncHTTPClientTransport) async throws -> T
) async throws -> T {
    try await withShutdown(AsyncHTTPClientTransport(configuration: configuration), body)
}

/// Sends a request on the transport alone, without a session, and reads the whole body.
func exchange(_ transport: any Transport, _ request: OutgoingRequest) async throws -> (ResponseHead, Data) {
    let (head, body) = try await transport.send(TransportRequest(request))
    return (head, try await body.collect(upTo: 256 << 20))
}

// MARK: - Echo

/// What the loopback server's `/anything` sends back.
typealias Echo = LoopbackEcho

// MARK: - Timing

/// A duration as seconds with three decimals, such as `3.012 s`, for the printed tables.
func seconds(_ duration: Duration) -> String {
    String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}

/// Checks `waited` against `limit` plus twice the lateness `probe` saw beside it, as the root's
/// timing tests do.
func isWithin(_ limit: Duration, _ waited: Duration, beside probe: LatenessProbe) async -> (Bool, String) {
    let late = await probe.stop()
    return (waited <= limit + late * 2, "took \(waited) (bound \(limit), the runtime was \(late) late)")
}

/// Polls `condition` every 20 ms until it holds or `limit` passes.
///
/// - Returns: Whether it held.
func eventually(within limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

// MARK: - Memory

/// The process's resident memory in bytes (`VmRSS` of `/proc/self/status`), or `nil` where the
/// system has no `/proc`.
func residentMemory() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let fields = line.split(separator: " ")
        guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
        return kilobytes * 1024
    }
    return nil
}

/// Megabytes, for messages.
func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1_000_000)
}

// MARK: - Results

/// Runs `body` and keeps what it returned or threw.
func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

extension Result {
    /// The error, for a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

// MARK: - Temporary directories

/// Runs `body` with a fresh directory, removed afterwards whether `body` returned or threw.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

// MARK: - Bodies

/// Bytes that are not a repeating pattern a short buffer could fake.
func sampleBytes(_ count: Int) -> Data {
    var state: UInt32 = 2_463_534_242
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
        for index in buffer.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            buffer[index] = UInt8(truncatingIfNeeded: state)
        }
    }
    return data
}

/// Every value of a progress stream, to its end.
func collect<Element: Sendable>(_ stream: AsyncStream<Element>) async -> [Element] {
    var values: [Element] = []
    for await value in stream { values.append(value) }
    return values
}

extension RequestOptions {
    /// Every progress value the transfer has, for a test that looks at more than the first and
    /// the last.
    static var unpacedProgress: RequestOptions {
        var options = RequestOptions()
        options.progressPacing = .unpaced
        return options
    }
}
#endif
