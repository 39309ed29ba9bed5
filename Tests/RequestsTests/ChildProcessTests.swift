import Foundation
import LoopbackFixture
import Testing

/// The test fixture that runs helper programs stops one that hangs, so that a hung child fails its
/// test instead of holding the whole run.
@Suite struct ChildProcessTests {
    @Test func aChildPastItsTimeLimitIsStoppedAndReported() async throws {
        let started = ContinuousClock.now
        do {
            _ = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo started; sleep 300"], timeLimit: .seconds(1)
            )
            Issue.record("a child sleeping 300 s ended within its 1 s limit")
        } catch let error as ChildProcess.TimedOut {
            #expect(error.report.contains("sleep 300"), "\(error.report)")
            #expect(String(decoding: error.output.stdout, as: UTF8.self) == "started\n")
        }
        #expect(ContinuousClock.now - started < .seconds(120), "the child was not stopped")
    }
}
