import Foundation
import LoopbackFixture
import TestScheduling
import Testing

/// `req` under a pseudo-terminal (Python's `pty`), where it colours its output and draws a
/// progress bar, against the same run piped, where it does neither.
@Suite(.backgroundPriority) struct ReqTerminalTests {
    /// Runs `req` with its stdout and stderr on one pseudo-terminal; returns what it wrote there.
    private func underTerminal(_ arguments: [String], environment: [String: String] = [:], in directory: URL) async throws -> String {
        let script = """
        import os, pty, sys
        output = bytearray()
        def read(fd):
            data = os.read(fd, 65536)
            output.extend(data)
            return data
        status = pty.spawn(sys.argv[1:], read)
        sys.stdout.buffer.write(bytes(output))
        sys.exit(os.waitstatus_to_exitcode(status))
        """
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (name, value) in environment { env[name] = value }
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["python3", "-c", script, try reqExecutable().path] + arguments,
            environment: env, in: directory
        )
        let data = output.stdout
        return String(decoding: data, as: UTF8.self)
    }

    @Test func colourAndTheProgressBarAppearOnATerminalOnly() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try server().port
        let coloured = try await underTerminal(["127.0.0.1:\(port)/json"], in: directory)
        #expect(coloured.contains("\u{1B}[34m\"slideshow\"\u{1B}[0m"), "no coloured key in \(coloured.debugDescription)")
        #expect(coloured.contains("\u{1B}[32mHTTP/1.1 200 OK"))
        let plain = try await underTerminal(["--no-color", "127.0.0.1:\(port)/json"], in: directory)
        #expect(!plain.contains("\u{1B}["))
        let noColorEnv = try await underTerminal(["127.0.0.1:\(port)/json"], environment: ["NO_COLOR": "1"], in: directory)
        #expect(!noColorEnv.contains("\u{1B}["))

        let download = try await underTerminal(["-d", "127.0.0.1:\(port)/drip/pty-\(UUID().uuidString.prefix(6))?bytes=400000&chunk=40000&interval_ms=50"], in: directory)
        #expect(download.contains("\r"), "no progress bar in \(download.debugDescription)")
        #expect(download.contains("KiB"))
        #expect(download.contains("Saved to "))
        let binary = try await underTerminal(["127.0.0.1:\(port)/bytes/300"], in: directory)
        #expect(binary.contains("binary data not shown"))
        let piped = try await req(["127.0.0.1:\(port)/bytes/300"])
        #expect(piped.stdout.count == 300)
    }
}
