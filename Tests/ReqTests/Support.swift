import Foundation
import LoopbackFixture

// MARK: - Running req

/// What one run of `req` left behind.
struct Run {
    let status: Int32
    let stdout: Data
    let stderr: String

    var output: String { String(decoding: stdout, as: UTF8.self) }
}

/// The loopback server shared by these tests.
func server() throws -> LoopbackServer {
    try LoopbackServer.shared.get()
}

/// The `req` executable SwiftPM built beside the tests.
func reqExecutable() throws -> URL {
    try builtExecutable("req")
}

/// Runs `req` with `arguments`, its output piped, and waits for it off the cooperative pool.
/// Its standard input is `/dev/null` unless `input` says otherwise.
func req(
    _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil, input: ChildProcess.Input = .nullDevice
) async throws -> Run {
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = nil
    for (name, value) in environment { env[name] = value }
    let output = try await ChildProcess.run(try reqExecutable(), arguments: arguments, environment: env, in: directory, input: input)
    return Run(status: output.status, stdout: output.stdout, stderr: String(decoding: output.stderr, as: UTF8.self))
}

/// A fresh directory for one test.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("req-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// What `/anything` echoes, as far as these tests read it.
struct Echo: Decodable {
    let method: String
    let path: String
    let query: String
    let headers: [[String]]
    let body: String
    let form: [[String]]?
    let json: AnyJSON?
    let multipart: Multipart?

    struct Multipart: Decodable {
        let parts: [Part]
        struct Part: Decodable {
            let name: String?
            let filename: String?
            let base64: String?
            var text: String { String(decoding: Data(base64Encoded: base64 ?? "") ?? Data(), as: UTF8.self) }
        }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    var bodyText: String { String(decoding: bodyData, as: UTF8.self) }
    /// The body exactly as the server received it.
    var bodyData: Data { Data(base64Encoded: body) ?? Data() }
}

/// Any JSON value, compared structurally.
indirect enum AnyJSON: Decodable, Equatable {
    case string(String), number(Double), bool(Bool), null, array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([AnyJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: AnyJSON].self)) }
    }
}

/// Runs `req` with its standard output on `/dev/null` (neither a terminal nor a pipe), its
/// standard error captured.
func reqWithoutOutput(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = nil
    let output = try await ChildProcess.run(
        URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exec \"$0\" \"$@\" > /dev/null", try reqExecutable().path] + arguments,
        environment: env, in: directory
    )
    return Run(status: output.status, stdout: output.stdout, stderr: String(decoding: output.stderr, as: UTF8.self))
}

// MARK: - What the transport adds

/// The headers req's transport adds to a request without them, which `req` shows (offline too):
/// `URLSession`'s on this platform, or AsyncHTTPClient's when req is built with the trait. Written
/// out here rather than read from the library, so that a change there shows.
let transportHeaders: [(name: String, value: String)] = {
    #if AsyncHTTPClient
    [("Accept-Encoding", "gzip, deflate")]
    #elseif canImport(FoundationNetworking)
    [("Accept", "*/*"), ("Accept-Encoding", "deflate, gzip, br, zstd"), ("Accept-Language", "en"), ("Connection", "keep-alive")]
    #else
    [("Accept-Encoding", "gzip, deflate, br"), ("Connection", "keep-alive")]
    #endif
}()

/// `expected`, a request as `req` prints it, with ``transportHeaders`` added where its head has no
/// field of that name, the fields after `Host` in name order as `req` prints them.
func withTransportHeaders(_ expected: String) -> String {
    var lines = expected.components(separatedBy: "\n")
    guard let blank = lines.firstIndex(of: ""), blank >= 2 else { return expected }
    var fields = Array(lines[2..<blank])
    let names = Set(fields.compactMap { $0.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } })
    for header in transportHeaders where !names.contains(header.name.lowercased()) {
        fields.append("\(header.name): \(header.value)")
    }
    fields.sort { ($0.split(separator: ":").first.map { $0.lowercased() } ?? "") < ($1.split(separator: ":").first.map { $0.lowercased() } ?? "") }
    lines.replaceSubrange(2..<blank, with: fields)
    return lines.joined(separator: "\n")
}
