import Foundation
import Testing

/// `req` under a pseudo-terminal (Python's `pty`), where it colours its output and draws a
/// progress bar, against the same run piped, where it does neither.
@Suite struct ReqTerminalTests {
    /// Runs `req` with its stdout and stderr on one pseudo-terminal; returns what it wrote there.
    private func underTerminal(_ arguments: [String], environment: [String: String] = [:], in directory: URL) throws -> String {
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, try reqExecutable().path] + arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (name, value) in environment { env[name] = value }
        process.environment = env
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func colourAndTheProgressBarAppearOnATerminalOnly() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try server().port
        let coloured = try underTerminal(["127.0.0.1:\(port)/json"], in: directory)
        #expect(coloured.contains("\u{1B}[34m\"slideshow\"\u{1B}[0m"), "no coloured key in \(coloured.debugDescription)")
        #expect(coloured.contains("\u{1B}[32mHTTP/1.1 200 OK"))
        let plain = try underTerminal(["--no-color", "127.0.0.1:\(port)/json"], in: directory)
        #expect(!plain.contains("\u{1B}["))
        let noColorEnv = try underTerminal(["127.0.0.1:\(port)/json"], environment: ["NO_COLOR": "1"], in: directory)
        #expect(!noColorEnv.contains("\u{1B}["))

        let download = try underTerminal(["-d", "127.0.0.1:\(port)/drip/pty-\(UUID().uuidString.prefix(6))?bytes=400000&chunk=40000&interval_ms=50"], in: directory)
        #expect(download.contains("\r"), "no progress bar in \(download.debugDescription)")
        #expect(download.contains("KiB"))
        #expect(download.contains("Saved to "))
        let binary = try underTerminal(["127.0.0.1:\(port)/bytes/300"], in: directory)
        #expect(binary.contains("binary data not shown"))
        let piped = try req(["127.0.0.1:\(port)/bytes/300"])
        #expect(piped.stdout.count == 300)
    }
}
