import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - TLSServer

/// A TLS test server from `Tests/Fixtures/` (`tls_server.py` or `h2_server.py`), run by python3 as a
/// child process on 127.0.0.1 with a port the OS picks.
///
/// The server prints `PORT <n>` once it accepts connections and exits when its standard input
/// closes; ``stop()`` closes it and sends SIGTERM, and so does the end of the test process
/// (``ExitCleanup``). Its standard output and error are read on threads of their own, never on
/// Swift's cooperative pool, and kept for ``standardError``.
public final class TLSServer: Sendable {
    /// Which certificate the server presents, and how.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// HTTP/1.1 with `server.pem` (127.0.0.1 and localhost, by the test CA).
        case trusted
        /// HTTP/1.1 with `expired.pem`.
        case expired
        /// HTTP/1.1 with `wrong-host.pem` (other.example only).
        case wrongHost
        /// HTTP/1.1 with `server.pem`, refusing connections without a certificate from
        /// `client-ca.pem`.
        case clientCertificateRequired
        /// hypercorn with `server.pem`: HTTP/2 by ALPN (HTTP/1.1 otherwise), closing connections
        /// idle for `keepAlive` seconds without a GOAWAY.
        case http2(keepAlive: Double)
        /// `sse_server.py`: endless server-sent events from sse-starlette on hypercorn, HTTP/2 by
        /// ALPN, or HTTP/1.1 only; it reports when it saw each stream's client go.
        case serverSentEvents(http1Only: Bool)
        /// `websocket_server.py`: Python's websockets over TLS with `server.pem` (wss).
        case webSocket

        public var description: String {
            switch self {
            case .trusted: "trusted"
            case .expired: "expired"
            case .wrongHost: "wrong-host"
            case .clientCertificateRequired: "client-certificate-required"
            case .http2(let keepAlive): "http2 (keep-alive \(keepAlive) s)"
            case .serverSentEvents(let http1Only): http1Only ? "server-sent events over HTTP/1.1" : "server-sent events over HTTP/2"
            case .webSocket: "websockets over TLS"
            }
        }

        /// The script and its arguments.
        public func command(_ certificates: TLSCertificates) -> (script: String, arguments: [String]) {
            func serving(_ name: String) -> [String] {
                ["--cert", certificates.path("\(name).pem"), "--key", certificates.path("\(name).key")]
            }
            return switch self {
            case .trusted: ("tls_server.py", serving("server"))
            case .expired: ("tls_server.py", serving("expired"))
            case .wrongHost: ("tls_server.py", serving("wrong-host"))
            case .clientCertificateRequired:
                ("tls_server.py", serving("server") + ["--client-ca", certificates.path("client-ca.pem")])
            case .http2(let keepAlive): ("h2_server.py", serving("server") + ["--keep-alive", "\(keepAlive)"])
            case .serverSentEvents(let http1Only): ("sse_server.py", serving("server") + (http1Only ? ["--http1"] : []))
            case .webSocket: ("websocket_server.py", serving("server"))
            }
        }
    }

    /// The HTTP/2 server the tests share: idle connections close after 1 second.
    public static let http2 = Kind.http2(keepAlive: 1)

    /// What the server serves.
    public let kind: Kind
    /// The port it listens on.
    public let port: Int
    private let stdin: FileHandle
    private let processID: Int32
    private let output: OutputLog

    /// One server of each kind, shared by the tests of this process and started on first use.
    ///
    /// - Parameter kind: The kind.
    /// - Returns: The running server.
    /// - Throws: ``FixtureError`` when the certificates cannot be made or the server reports no
    ///   port (python3 or hypercorn missing, say).
    public static func shared(_ kind: Kind) async throws -> TLSServer {
        try await SharedServers.instance.server(kind)
    }

    /// Starts a server of its own for one test; ``stop()`` it at the end.
    ///
    /// - Parameters:
    ///   - kind: The kind.
    ///   - certificates: The certificates it serves.
    /// - Returns: The server, accepting connections.
    /// - Throws: ``FixtureError`` naming the script and its standard error when it reports no
    ///   port, or the error of `Process.run()`.
    public static func start(_ kind: Kind, certificates: TLSCertificates) async throws -> TLSServer {
        let (script, arguments) = kind.command(certificates)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", FixtureFiles.url(script).path] + arguments
        let input = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = input
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        ExitCleanup.terminateAtExit(process.processIdentifier)
        let output = OutputLog()
        output.drain(stderr.fileHandleForReading, into: .standardError)
        let line = await output.firstLine(of: stdout.fileHandleForReading)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            stop(stdin: input.fileHandleForWriting, processID: process.processIdentifier)
            // The reason is on standard error, which ends once the child has exited.
            let reason = await output.waitForEnd()
            throw FixtureError("\(script) (\(kind)) reported no port (stdout \"\(line)\"); stderr: \(reason)")
        }
        return TLSServer(kind: kind, port: port, stdin: input.fileHandleForWriting, processID: process.processIdentifier, output: output)
    }

    private init(kind: Kind, port: Int, stdin: FileHandle, processID: Int32, output: OutputLog) {
        self.kind = kind
        self.port = port
        self.stdin = stdin
        self.processID = processID
        self.output = output
    }

    /// `https://127.0.0.1:<port><path>`.
    public func url(_ path: String, host: String = "127.0.0.1") -> String {
        "https://\(host):\(port)\(path)"
    }

    /// What the server wrote to standard error so far, such as its failed handshakes.
    public var standardError: String {
        output.text(.standardError)
    }

    /// Stops the server: closes its standard input and sends SIGTERM.
    public func stop() {
        Self.stop(stdin: stdin, processID: processID)
    }

    private static func stop(stdin: FileHandle, processID: Int32) {
        try? stdin.close()
        kill(processID, SIGTERM)
        ExitCleanup.forget(processID)
    }
}

// MARK: - SharedServers

/// The servers ``TLSServer/shared(_:)`` hands out, one per kind, each started once.
private actor SharedServers {
    static let instance = SharedServers()

    private var starting: [TLSServer.Kind: Task<TLSServer, any Error>] = [:]

    func server(_ kind: TLSServer.Kind) async throws -> TLSServer {
        if let task = starting[kind] {
            return try await task.value
        }
        let task = Task {
            try await TLSServer.start(kind, certificates: try await TLSCertificates.shared.value)
        }
        starting[kind] = task
        return try await task.value
    }
}

// MARK: - OutputLog

/// A child's output, read to its end on threads of its own and kept under a lock.
private final class OutputLog: @unchecked Sendable {
    /// Which of the child's streams.
    enum Stream: Sendable {
        case standardOutput, standardError
    }

    struct Texts {
        var received: [Stream: Data] = [:]
        var openStreams = 0
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let lock = NSLock()
    private var texts = Texts()

    /// Reads `handle` to its end on a new thread, appending to `stream`.
    func drain(_ handle: FileHandle, into stream: Stream) {
        locked { $0.openStreams += 1 }
        Thread.detachNewThread {
            self.read(handle, into: stream) { _ in }
        }
    }

    /// Reads `handle` on a new thread until its first line, which it returns, then on to its end.
    ///
    /// - Returns: The first line without its line break, or all there was when it had none.
    func firstLine(of handle: FileHandle) async -> String {
        locked { $0.openStreams += 1 }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var resumed = false
                self.read(handle, into: .standardOutput) { data in
                    guard !resumed, let end = data.firstIndex(of: UInt8(ascii: "\n")) else { return }
                    resumed = true
                    continuation.resume(returning: String(decoding: data[..<end], as: UTF8.self))
                }
                if !resumed {
                    continuation.resume(returning: self.text(.standardOutput).trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
        }
    }

    /// Waits until every stream has ended.
    ///
    /// - Returns: Standard error.
    func waitForEnd() async -> String {
        await withCheckedContinuation { continuation in
            let ended = locked { texts in
                if texts.openStreams == 0 { return true }
                texts.endWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
        return text(.standardError)
    }

    /// What `stream` held so far, as text.
    func text(_ stream: Stream) -> String {
        String(decoding: locked { $0.received[stream] ?? Data() }, as: UTF8.self)
    }

    /// Appends what `handle` gives until its end, calling `received` with all of the stream so far
    /// after each chunk.
    private func read(_ handle: FileHandle, into stream: Stream, received: (Data) -> Void) {
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            let all = locked { texts in
                texts.received[stream, default: Data()].append(chunk)
                return texts.received[stream, default: Data()]
            }
            received(all)
        }
        let waiters = locked { texts in
            texts.openStreams -= 1
            guard texts.openStreams == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { texts.endWaiters = [] }
            return texts.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func locked<T>(_ body: (inout Texts) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&texts)
    }
}
