#if AsyncHTTPClient
import Foundation

// MARK: - Options

/// The command line, and the sizes of a full or a `--quick` run.
struct Options {
    var quick = false
    /// Connections each client may open, or `nil` for one per request in flight.
    var connections: Int?
    /// Whether the request rows also measure the transport without `Session`.
    var split = false
    /// Only this client, 64 in flight, for `profileSeconds`: a steady load to attach `perf` to.
    var profile: Client.Kind?
    var profileSeconds = 10.0

    static let usage = """
        usage: AHCBenchmarks [--quick] [--split] [--connections N] [--profile CLIENT [SECONDS]]

          (no option)        the full run, about a minute: requests per second of the four
                             clients at 16 and 64 in flight, memory over 20,000 requests, 1 GiB
                             streamed, a slow reader
          --quick            a short run for CI (about 5 seconds): every row, smaller sizes
          --connections N    connections each client may open (default: one per request in flight)
          --split            the request rows also measure `AsyncHTTPClientTransport.send` alone
                             (no Session), to tell what the session adds from what the transport does
          --profile CLIENT   only CLIENT, 64 in flight, for SECONDS (10), printing its requests
                             per second: a steady load for `perf record`. CLIENT is one of
                             raw-urlsession, session-urlsession, raw-ahc, session-ahc, or
                             transport-ahc (the transport's send without Session)
          --help             this text

        nginx must be installed (`apt-get install nginx-light`); the benchmark starts it on
        127.0.0.1 with a configuration of its own and stops it at the end.
        """

    /// Reads the arguments.
    ///
    /// - Throws: ``BenchmarkError`` naming the argument it does not understand.
    /// - Returns: The options, or `nil` for `--help`.
    static func parse(_ arguments: [String]) throws -> Options? {
        var options = Options()
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick":
                options.quick = true
            case "--split":
                options.split = true
            case "--connections":
                guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
                    throw BenchmarkError("--connections takes a positive number")
                }
                options.connections = value
            case "--profile":
                let name = arguments.popFirst() ?? ""
                guard let kind = Client.Kind.allCases.first(where: { $0.argument == name }) else {
                    throw BenchmarkError("--profile takes one of \(Client.Kind.allCases.map(\.argument).joined(separator: ", "))")
                }
                options.profile = kind
                if let seconds = arguments.first.flatMap({ Double($0) }), seconds > 0 {
                    options.profileSeconds = seconds
                    arguments.removeFirst()
                }
            case "--help", "-h":
                return nil
            default:
                throw BenchmarkError("unknown argument \(argument); try --help")
            }
        }
        return options
    }

    // MARK: Sizes

    /// Requests in flight of the request rows.
    var inFlightLevels: [Int] { [16, 64] }
    /// How long one client sends in one window, and how many rounds of four windows.
    var window: Duration { .milliseconds(windowMilliseconds) }
    var windowMilliseconds: Int { quick ? 60 : 250 }
    var rounds: Int { quick ? 3 : 15 }
    /// The requests the memory rows measure, after their warm-up.
    var memoryRequests: Int { quick ? 2_000 : 20_000 }
    var memoryWarmUp: Int { quick ? 1_000 : 5_000 }
    /// The file streamed, and how many times by each client.
    var streamSize: Int { quick ? 64 << 20 : 1 << 30 }
    var streamRounds: Int { quick ? 2 : 5 }
    /// What the slow reader reads, and its pace.
    var slowSize: Int { quick ? 8 << 20 : 64 << 20 }
    var slowBytesPerSecond: Int { quick ? 8 << 20 : 16 << 20 }
}
#endif
