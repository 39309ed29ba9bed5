#if AsyncHTTPClient
import Foundation

// MARK: - NginxServer

/// nginx on 127.0.0.1, started by the benchmark in a temporary directory of its own and stopped
/// at the end: a 2-byte answer for the request rows and a sparse file for the streaming rows.
///
/// One process (`master_process off`), no access log, keep-alive for as many requests as a run
/// sends, every path it writes inside the temporary directory, so that it runs without root.
final class NginxServer {
    /// The path of the small answer, and its body.
    static let smallPath = "/small"
    static let smallBody = "ok"
    /// The path of the sparse file the streaming rows read.
    static let blobPath = "/blob"

    let executable: URL
    let port: Int
    private let directory: URL
    private let process: Process

    /// Writes the configuration and the sparse file, starts nginx and waits until it accepts.
    ///
    /// - Parameters:
    ///   - executable: nginx, from ``locate()``.
    ///   - blobSize: The size of the file at ``blobPath``; it takes no disk space.
    /// - Throws: ``BenchmarkError`` when nginx does not start on any of three free ports.
    init(executable: URL, blobSize: Int) throws {
        self.executable = executable
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-benchmarks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try Self.makeSparseFile(at: directory.appendingPathComponent("blob"), size: blobSize)
            var attempt = 1
            while true {
                let port = try Loopback.freePort()
                let process = try Self.start(executable, port: port, in: directory)
                if Loopback.waitUntilAccepting(port: port, while: { process.isRunning }) {
                    self.port = port
                    self.process = process
                    return
                }
                if process.isRunning {
                    process.terminate()
                    process.waitUntilExit()
                }
                // Another process may have taken the port between its probe and nginx's bind.
                guard attempt < 3 else {
                    let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                    throw BenchmarkError("nginx did not start on 127.0.0.1:\(port); its log says: \(log.isEmpty ? "nothing" : log)")
                }
                attempt += 1
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
    }

    /// The URL of a path on the server.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops nginx and removes its directory; calling it again does nothing.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// nginx's version line, such as `nginx/1.22.1`, or `nginx` when it cannot be read.
    func version() -> String {
        let probe = Process()
        let pipe = Pipe()
        probe.executableURL = executable
        probe.arguments = ["-v"]
        probe.standardError = pipe
        probe.standardOutput = pipe
        guard (try? probe.run()) != nil else { return "nginx" }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        probe.waitUntilExit()
        let line = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "nginx"
    }

    // MARK: Finding and starting nginx

    /// nginx on the `PATH` or in the sbin directories a package manager puts it in (often not on a
    /// user's `PATH`), or `nil`.
    static func locate() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init)
            + ["/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin", "/sbin"]
        return directories
            .map { URL(fileURLWithPath: $0).appendingPathComponent("nginx") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The configuration: one process in the foreground, everything it writes in `directory`.
    static func configuration(port: Int, directory: URL) -> String {
        let root = directory.path
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(root)/error.log warn;
            pid \(root)/nginx.pid;
            events {
                worker_connections 1024;
            }
            http {
                access_log off;
                client_body_temp_path \(root)/client_body;
                proxy_temp_path \(root)/proxy;
                fastcgi_temp_path \(root)/fastcgi;
                uwsgi_temp_path \(root)/uwsgi;
                scgi_temp_path \(root)/scgi;
                keepalive_requests 100000000;
                keepalive_timeout 300s;
                sendfile on;
                server {
                    listen 127.0.0.1:\(port);
                    location = \(smallPath) {
                        default_type text/plain;
                        return 200 "\(smallBody)";
                    }
                    location = \(blobPath) {
                        default_type application/octet-stream;
                        alias \(root)/blob;
                    }
                }
            }

            """
    }

    private static func start(_ executable: URL, port: Int, in directory: URL) throws -> Process {
        let file = directory.appendingPathComponent("nginx.conf")
        try Data(configuration(port: port, directory: directory).utf8).write(to: file)
        let process = Process()
        process.executableURL = executable
        // `-e` names the error log before the configuration is read, so that nginx never tries
        // the system's log directory; `-p` makes the directory its prefix.
        process.arguments = ["-p", directory.path, "-c", file.path, "-e", directory.appendingPathComponent("error.log").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A file of `size` zero bytes that takes no disk space: its length is set, nothing written.
    private static func makeSparseFile(at url: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchmarkError("could not create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
    }
}
#endif
