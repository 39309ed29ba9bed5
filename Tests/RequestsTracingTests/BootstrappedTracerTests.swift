#if Tracing
import Foundation
import LoopbackFixture
import Testing

/// With a tracer and a metrics backend bootstrapped for the whole process, as an application
/// does, a call reports to them without any option; over AsyncHTTPClient, whose client reads the
/// global tracer when it is configured, the trip still has one span: ours (the engine's own is
/// turned off). Each run is a process of its own (`URLSessionProbe traced`), since a bootstrap
/// lasts for the process.
@Suite struct BootstrappedTracerTests {
    static var engines: [String] {
        #if AsyncHTTPClient
        ["urlsession", "asynchttpclient"]
        #else
        ["urlsession"]
        #endif
    }

    @Test(arguments: engines)
    func oneSpanPerCallAndPerTripWithTheGlobalTracer(engine: String) async throws {
        let base = try LoopbackServer.shared.get().baseURL.absoluteString
        let probe = try builtExecutable("URLSessionProbe")
        let output = try await ChildProcess.run(probe, arguments: ["traced", base, engine])
        #expect(output.status == 0, "\(String(decoding: output.stderr, as: UTF8.self))")
        let text = String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let fields = Dictionary(text.split(separator: " ").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
        #expect(fields["spans"] == "2", "\(text)")
        #expect(fields["roots"] == "1", "\(text)")
        #expect(fields["trips"] == "1", "\(text)")
        #expect(fields["server_span"] != "none" && fields["server_span"] == fields["trip_span"], "\(text)")
        #expect(fields["durations"] == "1", "\(text)")
        #expect(fields["active"] == "0.0", "\(text)")
    }
}
#endif
