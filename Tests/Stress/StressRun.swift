import Foundation
import LoopbackFixture
import Requests

// MARK: - StressRun

/// Thousands of mixed operations, `inFlight` at a time, over every target, a share of them
/// cancelled at a random moment; a ``HangWatch`` ends the run when the calls stop ending.
struct StressRun {
    struct Settings {
        var operations: Int
        var inFlight: Int
        var seed: UInt64
        var stallLimit: Duration
        var transports: [String]
        var cancelRate: Double
        /// Whether random cancellation applies over `URLSessionTransport` too: off by default,
        /// since FoundationNetworking then crashes on its own (Documentation/Timeouts.md, "Known
        /// limits"); on to reproduce that.
        var cancelsOverURLSession = false
        /// The operations to draw from; every one unless given (`--only query,json`).
        var operationKinds: [Operation] = Operation.allCases
        var maxDescriptorGrowth: Int?
        var maxMemoryGrowth: Int?
        /// Whether the calls report spans and metrics (`--traced`, trait Tracing), and no span
        /// may be left open at the end.
        var traced = false
    }

    #if AsyncHTTPClient
    static let defaultTransports = "stub,urlsession,ahc,stub+recording,urlsession+recording,ahc+recording"
    #else
    static let defaultTransports = "stub,urlsession,stub+recording,urlsession+recording"
    #endif

    let settings: Settings

    init(_ settings: Settings) {
        self.settings = settings
    }

    /// Runs the operations; `true` when every check held.
    func run() async throws -> Bool {
        print("Stress: seed \(settings.seed), \(settings.operations) operations, \(settings.inFlight) in flight, "
              + "transports \(settings.transports.joined(separator: ",")), cancel rate \(settings.cancelRate)"
              + (settings.cancelsOverURLSession ? " (URLSession too)" : " (not over URLSession)"))
        let loopback = try LoopbackServer.shared.get()
        let hostile = try LoopbackServer.hostile.get()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("requests-stress-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let telemetry = settings.traced ? StressTelemetry() : nil
        let targets = try Target.make(settings.transports, loopback: loopback.baseURL, hostile: hostile.baseURL, scratch: scratch,
                                      options: telemetry?.options ?? RequestOptions())
        for target in targets {
            try await target.prepare()
        }
        let watch = HangWatch(limit: settings.stallLimit)
        watch.start()
        let tally = Tally()
        let warmUp = min(max(settings.operations / 10, 200), settings.operations)
        var afterWarmUp: Resources?
        let started = ContinuousClock.now
        var random = SplitMix64(seed: settings.seed)
        await withTaskGroup(of: Void.self) { group in
            var launched = 0
            func launch() {
                let id = launched
                launched += 1
                let seed = random.next()
                var cancelAfter: Duration? = Double(random.next() % 10_000) / 10_000 < settings.cancelRate
                    ? .microseconds(Int(random.next() % 60_000)) : nil
                var pick = SplitMix64(seed: seed)
                let operation = settings.operationKinds[pick.next(upTo: settings.operationKinds.count)]
                let target = targets[pick.next(upTo: targets.count)]
                if target.name.hasPrefix("urlsession"), !settings.cancelsOverURLSession {
                    cancelAfter = nil
                }
                watch.started(id, HangWatch.Running(operation: operation, target: target.name, seed: seed, start: .now))
                group.addTask {
                    let outcome = await Self.perform(operation, on: target, seed: pick, cancelAfter: cancelAfter)
                    tally.add(operation, outcome)
                    watch.finished(id)
                }
            }
            for _ in 0..<min(settings.inFlight, settings.operations) { launch() }
            var finished = 0
            for await _ in group {
                finished += 1
                // What the stub and the recorder keep by design goes now and then (and before
                // each measure), so that memory growth is the library's.
                if finished % 250 == 0 || finished == warmUp {
                    for target in targets { target.dropRecords() }
                    telemetry?.drop()
                }
                if finished == warmUp { afterWarmUp = Resources.now() }
                if finished % 1000 == 0 {
                    print("Stress: \(finished) finished after \(ContinuousClock.now - started); \(Resources.now())")
                }
                if launched < settings.operations { launch() }
            }
        }
        // What transfers left behind winds down: connections close, spill files go.
        try? await Task.sleep(for: .seconds(2))
        for target in targets { target.dropRecords() }
        telemetry?.drop()
        let end = Resources.now()
        print("Stress: \(watch.finishedCount) operations ended in \(ContinuousClock.now - started)")
        print(tally.summary)
        var passed = true
        if let afterWarmUp {
            let memory = end.residentBytes - afterWarmUp.residentBytes
            let descriptors = end.descriptors - afterWarmUp.descriptors
            print("Stress: after warm-up \(afterWarmUp); at the end \(end): "
                  + String(format: "%+.1f MiB, %+d descriptors", Double(memory) / 1_048_576, descriptors))
            if let limit = settings.maxDescriptorGrowth, descriptors > limit {
                print("FAIL: \(descriptors) more descriptors than after warm-up (limit \(limit))")
                passed = false
            }
            if let limit = settings.maxMemoryGrowth, memory > limit {
                print("FAIL: resident memory grew \(memory) bytes after warm-up (limit \(limit))")
                passed = false
            }
        }
        if let telemetry {
            // A background revalidation may still be on its way: it has 10 s to end.
            let deadline = ContinuousClock.now + .seconds(10)
            while telemetry.openSpans > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(100))
            }
            let open = telemetry.openSpans
            print("Stress: traced; \(open) spans left open")
            if open > 0 {
                print("FAIL: \(open) spans were started and never ended")
                passed = false
            }
        }
        for target in targets {
            await target.shutdown()
        }
        return passed
    }

    /// Runs one operation, cancelling it after `cancelAfter` when given; says how it ended.
    static func perform(_ operation: Operation, on target: Target, seed: SplitMix64, cancelAfter: Duration?) async -> String {
        let task = Task {
            var random = seed
            try await operation.run(on: target, random: &random)
        }
        if let cancelAfter {
            try? await Task.sleep(for: cancelAfter)
            task.cancel()
        }
        switch await task.result {
        case .success:
            return "ok"
        case .failure(let error as RequestError):
            return "\(error.code)"
        case .failure(is CancellationError):
            return "cancelled"
        case .failure(let error):
            return "\(type(of: error))"
        }
    }
}

// MARK: - Tally

/// How the operations ended, by kind and outcome.
final class Tally: Sendable {
    private let counts = Guarded<[String: [String: Int]]>([:])

    func add(_ operation: Operation, _ outcome: String) {
        counts.withLock { $0[operation.rawValue, default: [:]][outcome, default: 0] += 1 }
    }

    var summary: String {
        counts.withLock { counts in
            counts.sorted { $0.key < $1.key }.map { operation, outcomes in
                "  \(operation): " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }.joined(separator: "\n")
        }
    }
}
