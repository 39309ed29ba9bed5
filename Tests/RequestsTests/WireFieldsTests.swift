import Foundation
import LoopbackFixture
import Testing
import TransportContract

/// The same call sends the same header fields in every process: each run is a process of its
/// own (`URLSessionProbe fields`), because the order a dictionary gives changes from process to
/// process.
@Suite struct WireFieldsTests {
    /// Over `URLSessionTransport` the fields pass through `URLRequest`'s dictionary, so their order
    /// is Foundation's; every value arrives, a repeated name joined with ", " and `Cookie` with
    /// "; ", and a call's field replaces the session's of the same name.
    @Test func overURLSessionEveryValueArrivesInEveryRun() async throws {
        let runs = try await Self.runs(engine: "urlsession")
        for run in runs {
            #expect(Set(run) == ["X-Session: s", "X-Zeta: 1", "X-Alpha: 2, 4", "X-Mid: 3", "Cookie: b=2; a=1"], "\(run)")
            #expect(run.count == 5, "a field arrived twice: \(run)")
        }
    }

    /// Runs the probe twice, each in a process of its own, and returns the fields each run's
    /// server received, in order.
    static func runs(engine: String) async throws -> [[String]] {
        let base = try LoopbackServer.shared.get().baseURL.absoluteString
        let probe = try builtExecutable("URLSessionProbe")
        var runs: [[String]] = []
        for _ in 0..<2 {
            let output = try await ChildProcess.run(probe, arguments: ["fields", base, engine])
            let text = String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard output.status == 0 else {
                throw FixtureError("URLSessionProbe fields exited with \(output.status): \(String(decoding: output.stderr, as: UTF8.self))")
            }
            TestDetail.report(["\(engine): \(text)"], as: "wire-fields-\(engine)")
            runs.append(text.components(separatedBy: " | "))
        }
        return runs
    }
}
