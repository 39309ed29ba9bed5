#if AsyncHTTPClient
import Foundation
import LoopbackFixture
import RequestsAsyncHTTPClient
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

    /// The response's fields arrive in the server's order, repeats apart (`ResponseHead`'s
    /// promise; only `HTTPURLResponse` keeps no order).
    @Test func theServersFieldsArriveInTheServersOrder() async throws {
        try await withTransport { transport in
            var fields = HTTPHeaders()
            for (name, value) in [("X-Zebra", "1"), ("X-Apple", "2"), ("X-Zebra", "3"), ("X-Mango", "4")] {
                fields.append(name: name, value: value)
            }
            let origin = LoopbackOrigin(transport: transport, server: try server().baseURL)
            let url = try await origin.script([ScriptedAnswer(headers: fields, body: "ok")])
            let response = try await Session(transport: transport).request(url)
            let received = response.headers.filter { $0.name.hasPrefix("X-") }.map { "\($0.name): \($0.value)" }
            #expect(received == ["X-Zebra: 1", "X-Apple: 2", "X-Zebra: 3", "X-Mango: 4"])
        }
    }
}
#endif
