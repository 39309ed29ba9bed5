import Foundation
import LoopbackFixture
import Requests

// The stress suite: hunts hangs, crashes and leaks in release builds (what users ship).
//
//   Stress regressions                      the deterministic reproductions of hangs found so far
//   Stress run [--operations 5000] [--in-flight 48] [--seed N] [--stall-limit 60]
//              [--transports stub,urlsession,stub+recording,urlsession+recording]
//              [--cancel-rate 0.25] [--cancel-over-urlsession] [--max-descriptor-growth 4]
//              [--max-memory-growth-mib 0] [--traced]
//
// --traced (a build with the Tracing trait): every call reports spans and metrics to in-memory
// backends, and the run fails when a span was left open at the end.
//
// Random cancellation applies to every transport but URLSession's unless --cancel-over-urlsession
// is given: FoundationNetworking then crashes in its own code (Documentation/Timeouts.md).
//
// A run prints its seed first; the same seed and settings make the same operations in the same
// order (their interleaving is the machine's). Exit status: 0 when every operation ended and the
// limits held, 1 for a failed check, 2 when the watchdog saw no operation finish for the stall
// limit (it prints every thread's stack first).

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

switch arguments.contains("--help") || arguments.contains("-h") ? "--help" : arguments.first {
case "regressions":
    var failed = 0
    for (name, run) in Regressions.all {
        if let failure = run() {
            failed += 1
            print("FAIL \(name): \(failure)")
        } else {
            print("ok   \(name)")
        }
    }
    exit(failed == 0 ? 0 : 1)
case "run":
    let settings = StressRun.Settings(
        operations: option("operations").flatMap(Int.init) ?? 5000,
        inFlight: option("in-flight").flatMap(Int.init) ?? 48,
        seed: option("seed").flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max),
        stallLimit: .seconds(option("stall-limit").flatMap(Int.init) ?? 60),
        transports: (option("transports") ?? StressRun.defaultTransports).split(separator: ",").map(String.init),
        cancelRate: option("cancel-rate").flatMap(Double.init) ?? 0.25,
        cancelsOverURLSession: arguments.contains("--cancel-over-urlsession"),
        operationKinds: option("only").map { $0.split(separator: ",").compactMap { Operation(rawValue: String($0)) } } ?? Operation.allCases,
        maxDescriptorGrowth: option("max-descriptor-growth").flatMap(Int.init),
        maxMemoryGrowth: option("max-memory-growth-mib").flatMap(Double.init).map { Int($0 * 1_048_576) },
        traced: arguments.contains("--traced")
    )
    if settings.traced, !StressTelemetry.isAvailable {
        print("Stress: --traced needs a build with the Tracing trait")
        exit(64)
    }
    do {
        let passed = try await StressRun(settings).run()
        exit(passed ? 0 : 1)
    } catch {
        print("Stress: \(error)")
        exit(1)
    }
default:
    print("""
    usage: Stress regressions
           Stress run [--operations N] [--in-flight N] [--seed N] [--transports a,b] [--stall-limit s]
                      [--cancel-rate r] [--cancel-over-urlsession] [--only op,op] [--max-descriptor-growth n]
                      [--max-memory-growth-mib m] [--traced]
    """)
    exit(arguments.first == "--help" || arguments.first == "-h" ? 0 : 64)
}
