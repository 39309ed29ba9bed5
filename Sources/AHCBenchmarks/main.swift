import Foundation

// AHCBenchmarks: `Session` over AsyncHTTPClient against raw AsyncHTTPClient and URLSession, all
// measured in one run against an nginx this run starts on 127.0.0.1. Built with the package's
// `AsyncHTTPClient` trait:
//
//   swift run -c release --traits AsyncHTTPClient AHCBenchmarks              the full run (about a minute)
//   swift run -c release --traits AsyncHTTPClient AHCBenchmarks --quick      every row, smaller (CI)
//   swift run -c release --traits AsyncHTTPClient AHCBenchmarks --profile session-ahc 20   one client, for perf record
//   swift run -c release --traits AsyncHTTPClient AHCBenchmarks --help

#if AsyncHTTPClient

/// What the issue asks, quoted in the output.
let issue = """
    "Speed and memory (an executable in the second package, one run, the four clients alternating \
    in windows: raw `URLSession.data(for:)`, `Session` over URLSession, raw AsyncHTTPClient, \
    `Session` over AsyncHTTPClient; nginx on loopback, started by the benchmark). Targets: \
    `Session` over AsyncHTTPClient ≥ 0.95x raw AsyncHTTPClient and ≥ 3.5x raw URLSession, at 16 \
    and at 64 in flight. Resident memory growth over 20,000 requests (64 in flight) < 1 MiB. \
    1 GiB streamed chunk by chunk ≥ 0.95x raw AsyncHTTPClient, peak < 64 MiB; a slow reader holds \
    memory flat."
    """

@Sendable func progress(_ line: String) {
    FileHandle.standardError.write(Data("  \(line)\n".utf8))
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("AHCBenchmarks: \(message)\n".utf8))
    exit(status)
}

/// One client, 64 in flight, for `--profile`: a steady load for a profiler.
func profile(_ kind: Client.Kind, url: URL, options: Options) async throws {
    let client = Client.make(kind, url: url, connections: options.connections ?? 64)
    try await Load.requests(client, count: 1_000, inFlight: 64)
    progress("warmed up with 1,000 requests; measuring \(kind.argument) for \(options.profileSeconds) s")
    let (requests, seconds) = try await Load.counted(client, inFlight: 64, duration: .seconds(options.profileSeconds))
    try await client.shutdown()
    let rate = MarkdownTable.grouped(Double(requests) / seconds)
    print("\(kind.name), 64 in flight: \(rate) req/s (\(requests) requests in \(String(format: "%.1f", seconds)) s)")
}

let options: Options
do {
    guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(Options.usage)
        exit(0)
    }
    options = parsed
} catch {
    fail("\(error)", status: 2)
}

guard let nginx = NginxServer.locate() else {
    fail("""
        nginx was not found on the PATH or in /usr/sbin, /usr/local/sbin, /opt/homebrew/bin.
        The benchmark starts its own nginx on 127.0.0.1; install it first:
            apt-get install nginx-light      (Debian, Ubuntu; or: apt-get install nginx)
            brew install nginx               (macOS)
        """, status: 1)
}

#if DEBUG
print("warning: a debug build; run `swift run -c release --traits AsyncHTTPClient AHCBenchmarks` for meaningful numbers\n")
#endif

let server: NginxServer
do {
    server = try NginxServer(executable: nginx, blobSize: options.streamSize)
} catch {
    fail("could not start nginx: \(error)", status: 1)
}

let clock = ContinuousClock()
let began = clock.now
do {
    if let kind = options.profile {
        try await profile(kind, url: server.url(NginxServer.smallPath), options: options)
        server.stop()
        exit(0)
    }

    var report = Report()
    report.slowBytesPerSecond = options.slowBytesPerSecond
    let small = server.url(NginxServer.smallPath)
    let blob = server.url(NginxServer.blobPath)

    // Streaming first, while the heap is small: its rows report the process's peak.
    progress("streaming \(Report.label(options.streamSize)), \(options.streamRounds) round(s) per client")
    report.stream = try await StreamingBenchmark(url: blob, size: options.streamSize, rounds: options.streamRounds)
        .run(progress: progress)
    progress("slow reader, \(Report.label(options.slowSize))")
    report.slowReader = try await SlowReaderBenchmark(url: blob, size: options.slowSize, bytesPerSecond: options.slowBytesPerSecond)
        .run()
    let memory = MemoryGrowthBenchmark(url: small, requests: options.memoryRequests, warmUp: options.memoryWarmUp, inFlight: 64)
    progress("memory, \(Client.Kind.sessionOverAsyncHTTPClient.name)")
    report.memory.append(try await memory.run(.sessionOverAsyncHTTPClient))
    var throughput = ThroughputBenchmark(url: small, window: options.window, rounds: options.rounds, connections: options.connections)
    if options.split {
        throughput.kinds.append(.transportAlone)
    }
    for inFlight in options.inFlightLevels {
        progress("requests, \(inFlight) in flight")
        report.throughput.append(try await throughput.run(inFlight: inFlight, progress: progress))
    }
    // URLSession last: FoundationNetworking's memory would otherwise be in every row after it.
    progress("memory, \(Client.Kind.sessionOverURLSession.name)")
    report.memory.append(try await memory.run(.sessionOverURLSession))
    server.stop()

    let elapsed = Load.seconds(clock.now - began)
    let connections = options.connections.map { "\($0) connections per client" } ?? "one connection per request in flight"
    print("""
        # AHCBenchmarks\(options.quick ? " --quick" : "")

        > \(issue)

        \(ProcessInfo.processInfo.activeProcessorCount) processors, \(ProcessInfo.processInfo.operatingSystemVersionString); \
        \(server.version()), one process, on 127.0.0.1; \(connections); \
        \(options.rounds) rounds of one \(options.windowMilliseconds) ms window per client, the order rotating; \
        medians over the rounds; took \(String(format: "%.0f", elapsed)) s.

        \(report.requestsTable())

        \(report.memoryAndStreamingTable())

        \(report.summary)
        """)
} catch {
    server.stop()
    fail("benchmark failed: \(error)", status: 1)
}
#else
FileHandle.standardError.write(Data(
    "AHCBenchmarks: built without the package's AsyncHTTPClient trait; run it with `swift run -c release --traits AsyncHTTPClient AHCBenchmarks`\n".utf8))
exit(2)
#endif
