import Foundation

// MARK: - LoopbackServer

/// Starts `loopback_server.py` or `hostile_server.py` (beside this file) on 127.0.0.1 with an
/// ephemeral port.
///
/// The server prints its port once it accepts connections and exits as soon as its stdin closes,
/// which happens when ``stop()`` runs or when this process exits for any reason, so it never
/// outlives the tests or benchmarks that started it.
public final class LoopbackServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    private let stdin: FileHandle
    private let processID: Int32

    /// One server shared by everything in this process, started on first use.
    public static let shared: Result<LoopbackServer, any Error> = Result { try LoopbackServer() }

    /// One fault-injecting server (`hostile_server.py`) shared by everything in this process.
    public static let hostile: Result<LoopbackServer, any Error> = Result {
        try LoopbackServer(script: "hostile_server.py")
    }

    /// Starts a server and waits until it accepts connections.
    ///
    /// - Parameter script: The python3 script beside this file to run.
    /// - Throws: An error naming what went wrong when python3 cannot start or reports no port.
    public init(script scriptName: String = "loopback_server.py") throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent(scriptName)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw ServerError(message: "\(scriptName) did not report a port (printed \"\(text)\")")
        }
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            process.terminate()
            throw ServerError(message: "port \(port) does not form a URL")
        }
        self.port = port
        self.baseURL = baseURL
        self.stdin = input.fileHandleForWriting
        self.processID = process.processIdentifier
    }

    /// The URL of a path on this server, such as `/anything?x=1`.
    ///
    /// - Parameter path: A path starting with `/`, optionally with a query.
    /// - Returns: The absolute URL.
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path) ?? baseURL
    }

    /// Stops the server by closing its stdin.
    public func stop() {
        try? stdin.close()
    }

    /// An error starting the server.
    public struct ServerError: Error, CustomStringConvertible {
        /// What went wrong.
        public let message: String
        /// The message.
        public var description: String { message }
    }
}
