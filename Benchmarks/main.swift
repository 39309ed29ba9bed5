import Foundation

// Benchmarks: every encoder against its Foundation baseline, measured in one run.
//
//   swift run -c release Benchmarks            the full default workload
//   swift run -c release Benchmarks --quick    fewer, shorter samples (used by CI)
//   swift run -c release Benchmarks --filter escape
//   swift run -c release Benchmarks --json results.json   also write the rows as JSON
//   swift run -c release Benchmarks --profile --filter "query nested"   only our side, for perf
//   swift run -c release Benchmarks --profile --filter "session in-memory"   the bare session, 20 s
//   swift run -c release Benchmarks --profile --filter "session in-memory chain"   with the whole chain
//   swift run -c release Benchmarks --soak [N]   N requests (10,000), 64 in flight, every echo checked

var arguments = CommandLine.arguments.dropFirst()
var quick = false
var filter: String?
var jsonPath: String?
var profile = false
var profileRequests: Int?
var soak: Int?
while let argument = arguments.popFirst() {
    switch argument {
    case "--soak":
        soak = arguments.first.flatMap(Int.init) ?? 10_000
        if arguments.first.flatMap(Int.init) != nil { arguments.removeFirst() }
    case "--quick":
        quick = true
    case "--filter":
        filter = arguments.popFirst()
    case "--profile":
        profile = true
        // `--profile N`: exactly N requests instead of 20 seconds, for CPU time per request
        // (`perf stat -e task-clock` at N and 5N, start-up subtracted).
        if let count = arguments.first.flatMap(Int.init) {
            profileRequests = count
            arguments.removeFirst()
        }
    case "--json":
        jsonPath = arguments.popFirst()
    case "--help", "-h":
        print("usage: Benchmarks [--quick] [--filter TEXT] [--json PATH] [--profile [N]] [--soak [N]]")
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument); try --help\n".utf8))
        exit(2)
    }
}

#if DEBUG
print("warning: a debug build; run `swift run -c release Benchmarks` for meaningful numbers\n")
#endif

if let soak {
    do {
        exit(try await Soak(count: soak).run() ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("soak failed: \(error)\n".utf8))
        exit(1)
    }
}

let measure: Measure = quick ? .quick : .standard
do {
    // Session rows first: after the million-pair scaling rows the heap is large and fragmented,
    // which would charge the session for the encoders' garbage.
    let sessionRows = try await SessionBenchmarks(
        measure: measure, quick: quick, profile: profile, profileChain: filter?.localizedCaseInsensitiveContains("chain") == true,
        profileRequests: profileRequests
    ).run(filter: filter.map { $0.replacingOccurrences(of: " chain", with: "") })
    let encodingRows = try EncodingBenchmarks(measure: measure, includeLargeScaling: !quick, oursOnly: profile).run(filter: filter)
    // The table lists the session and upload rows last.
    let rows = encodingRows + sessionRows
    Table.print(rows)
    if let jsonPath {
        try Report.data(rows, quick: quick).write(to: URL(fileURLWithPath: jsonPath))
        print("wrote \(rows.count) rows to \(jsonPath)")
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
