import Foundation
import Stress
import TestScheduling
import Testing

/// The deterministic reproductions of hangs found so far (`Tests/Stress/Regressions.swift`), in
/// the debug suite; `Stress regressions` runs them in a release build, where the first of them
/// showed (CI runs both).
@Suite struct HangRegressionTests {
    @Test(arguments: Regressions.all.map(\.name))
    func doesNotHang(name: String) async throws {
        guard let run = Regressions.all.first(where: { $0.name == name })?.run else {
            Issue.record("no regression \(name)")
            return
        }
        // On a thread of its own: a reproduction blocks while it waits, and the cooperative pool
        // (a thread per core) is the other tests' and its own readers'.
        if let failure = try await onThread(run) {
            Issue.record("\(name): \(failure)")
        }
    }
}
