import Foundation
import Stress
import Testing

/// The deterministic reproductions of hangs found so far (`Tests/Stress/Regressions.swift`), in
/// the debug suite; `Stress regressions` runs them in a release build, where the first of them
/// showed (CI runs both).
@Suite struct HangRegressionTests {
    @Test(arguments: Regressions.all.map(\.name))
    func doesNotHang(name: String) {
        guard let run = Regressions.all.first(where: { $0.name == name })?.run else {
            Issue.record("no regression \(name)")
            return
        }
        if let failure = run() {
            Issue.record("\(name): \(failure)")
        }
    }
}
