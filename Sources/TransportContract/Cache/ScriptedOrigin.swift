import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests
import RequestsTesting

// MARK: - ScriptedOrigin

/// A server whose answers a check scripts, one URL a script, and that tells what it received:
/// the loopback server's `/script/<id>` endpoint (``LoopbackOrigin``) or a ``StubTransport``
/// (``StubOrigin``).
public protocol ScriptedOrigin: Sendable {
    /// The transport that reaches the origin.
    var transport: any Transport { get }

    /// Scripts a new URL's answers: each request gets the next, the last repeating.
    ///
    /// - Parameter answers: The answers in turn.
    /// - Returns: The URL that answers them, fresh for each call.
    /// - Throws: When the origin cannot be scripted.
    func script(_ answers: [ScriptedAnswer]) async throws -> URL

    /// The requests a scripted URL received, in order.
    ///
    /// - Parameter url: A URL ``script(_:)`` returned.
    /// - Returns: Each request's method and fields.
    /// - Throws: When the origin cannot be asked.
    func requests(to url: URL) async throws -> [ScriptedRequest]
}

// MARK: - ScriptedAnswer

/// One scripted answer: a response written as given (no `Date` added), or a dropped connection.
public struct ScriptedAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// The fields, in order.
    public var headers: HTTPHeaders
    /// The body.
    public var body: String
    /// Whether the connection is dropped instead of answering.
    public var drops: Bool
    /// How long the origin waits before it answers, in seconds.
    public var delay: Double = 0

    /// An answer.
    ///
    /// - Parameters:
    ///   - status: The status code; 200 by default.
    ///   - headers: The fields.
    ///   - body: The body.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
        self.drops = false
    }

    /// A dropped connection: the request fails without a response.
    public static var drop: ScriptedAnswer {
        var answer = ScriptedAnswer(status: 0)
        answer.drops = true
        return answer
    }
}

// MARK: - ScriptedRequest

/// A request a scripted URL received.
public struct ScriptedRequest: Sendable {
    /// The method.
    public let method: String
    /// The fields as received.
    public let headers: HTTPHeaders
}

// MARK: - LoopbackOrigin

/// The loopback server's `/script/<id>` endpoint over a transport.
public struct LoopbackOrigin: ScriptedOrigin {
    /// The transport under test.
    public let transport: any Transport
    /// The server's base URL.
    public let server: URL
    private let control: Session

    /// An origin on the loopback server.
    ///
    /// - Parameters:
    ///   - transport: The transport the checks send over.
    ///   - server: The loopback server's base URL.
    public init(transport: any Transport, server: URL) {
        self.transport = transport
        self.server = server
        self.control = Session(transport: transport, cookies: .none)
    }

    /// Scripts `/script/<new id>` on the server.
    ///
    /// - Parameter answers: The answers in turn.
    /// - Returns: The scripted URL.
    /// - Throws: When the server refuses the script.
    public func script(_ answers: [ScriptedAnswer]) async throws -> URL {
        let id = UUID().uuidString.lowercased()
        let script: [[String: any Sendable]] = answers.map { answer in
            ["status": answer.status, "headers": answer.headers.map { [$0.name, $0.value] }, "body": answer.body, "drop": answer.drops, "delay": answer.delay]
        }
        let body = try JSONSerialization.data(withJSONObject: script)
        let response = try await control.request(server.appendingPathComponent("script-set/\(id)"), method: .post, body: DataBody(body, additionalHeaders: ["Content-Type": "application/json"]))
        guard response.statusCode == 200 else {
            throw ContractViolation("the loopback server refused a script: \(response.statusCode) \(response.text)")
        }
        return server.appendingPathComponent("script/\(id)")
    }

    /// Asks the server for what `/script/<id>` received.
    ///
    /// - Parameter url: A scripted URL.
    /// - Returns: The requests.
    /// - Throws: When the log cannot be read.
    public func requests(to url: URL) async throws -> [ScriptedRequest] {
        let id = url.lastPathComponent
        let response = try await control.request(server.appendingPathComponent("script-log/\(id)"))
        struct Log: Decodable {
            struct Entry: Decodable {
                let method: String
                let headers: [[String]]
            }
            let requests: [Entry]
        }
        return try response.decode(Log.self).requests.map { entry in
            var headers = HTTPHeaders()
            for pair in entry.headers where pair.count == 2 {
                headers.append(name: pair[0], value: pair[1])
            }
            return ScriptedRequest(method: entry.method, headers: headers)
        }
    }
}

// MARK: - StubOrigin

/// Scripted answers from a ``StubTransport``: the same checks with no server at all.
public struct StubOrigin: ScriptedOrigin {
    /// The stub.
    public let stub: StubTransport
    /// The stub, as the transport the checks send over.
    public var transport: any Transport { stub }
    /// The base of the stub's URLs; nothing is sent there.
    public static let base = "http://127.0.0.1:9"

    /// An origin over a new stub.
    public init() {
        stub = StubTransport()
    }

    /// Adds a route for `/script/<new id>`.
    ///
    /// - Parameter answers: The answers in turn.
    /// - Returns: The scripted URL.
    /// - Throws: Never; the signature is the protocol's.
    public func script(_ answers: [ScriptedAnswer]) async throws -> URL {
        let path = "/script/\(UUID().uuidString.lowercased())"
        let responses: [StubResponse] = answers.map { answer in
            answer.drops ? .failure(.connectionLost, detail: "scripted drop")
                : .status(answer.status, headers: answer.headers, body: Data(answer.body.utf8)).delayed(by: .milliseconds(Int(answer.delay * 1000)))
        }
        stub.on(nil, .path(path), respond: responses)
        guard let url = URL(string: Self.base + path) else { throw ContractViolation("no URL for \(path)") }
        return url
    }

    /// What the stub received for a scripted URL.
    ///
    /// - Parameter url: A scripted URL.
    /// - Returns: The requests.
    /// - Throws: Never; the signature is the protocol's.
    public func requests(to url: URL) async throws -> [ScriptedRequest] {
        stub.requests(matching: RequestMatcher(nil, .path(url.path))).map { ScriptedRequest(method: $0.method.rawValue, headers: $0.headers) }
    }
}

// MARK: - TestClock

/// A clock a check moves by hand, for freshness and ages.
public final class TestClock: Sendable {
    private let current: Guarded<Date>

    /// A clock at the present, to the whole second.
    public init() {
        current = Guarded(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    /// The clock's present.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock on.
    ///
    /// - Parameter seconds: How far.
    public func advance(_ seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
