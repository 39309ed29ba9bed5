#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import Testing
import TransportContract

/// Over `AsyncHTTPClientTransport` the caller's fields reach the wire in the caller's order, the
/// same in every process: each run is a process of its own (`URLSessionProbe fields`, built with
/// the trait).
@Suite struct WireFieldsTests {
    @Test func theCallersFieldsGoOutInTheCallersOrderInEveryRun() async throws {
        let base = try LoopbackServer.shared.get().baseURL.absoluteString
        let probe = try builtExecutable("URLSessionProbe")
        var runs: [[String]] = []
        for _ in 0..<2 {
            let output = try await ChildProcess.run(probe, arguments: ["fields", base, "asynchttpclient"])
            let text = String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(output.status == 0, "\(String(decoding: output.stderr, as: UTF8.self))")
            print("AsyncHTTPClient: \(text)")
            runs.append(text.components(separatedBy: " | "))
        }
        for run in runs {
            #expect(run == WireFields.inCallersOrder)
        }
    }
}
#endif
