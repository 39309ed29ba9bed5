import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - TransportContract

/// The behaviour every ``Transport`` owes the pipeline, as checks that run against a real server.
///
/// The checks talk to a server at the address you give: the reference server of this
/// repository, `Tests/Fixtures/loopback_server.py` (python3, standard library only; it listens on
/// 127.0.0.1 on a free port and prints `PORT <n>`), or anything that answers its endpoints the
/// same way. The library depends on no server of its own. Run each case from a test of your own,
/// so that a failure names the case:
///
/// ```swift
/// import Testing
/// import TransportContract
///
/// @Test(arguments: TransportContract.cases)
/// func myTransportMeetsTheContract(_ check: TransportContract.Case) async throws {
///     let server = URL(string: ProcessInfo.processInfo.environment["CONTRACT_SERVER"] ?? "http://127.0.0.1:8080")!
///     try await TransportContract(transport: MyTransport(), server: server).check(check)
/// }
/// ```
public struct TransportContract: Sendable {
    /// The transport under test.
    public let transport: any Transport
    /// The server's base URL, such as `http://127.0.0.1:8080`.
    public let server: URL
    /// A URL where nothing listens, for the refused-connection check; by default port 1 of the
    /// server's host.
    public let unreachable: URL

    /// Prepares the checks of one transport against one server.
    ///
    /// - Parameters:
    ///   - transport: The transport under test.
    ///   - server: The server's base URL.
    ///   - unreachable: A URL where nothing listens; port 1 of the server's host by default.
    public init(transport: any Transport, server: URL, unreachable: URL? = nil) {
        self.transport = transport
        self.server = server
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)
        components?.port = 1
        self.unreachable = unreachable ?? components?.url ?? server
    }

    /// One check of the contract.
    public struct Case: Sendable, CustomStringConvertible {
        /// What the check shows, as a sentence.
        public let name: String
        let body: @Sendable (TransportContract) async throws -> Void

        /// The check's name.
        public var description: String { name }
    }

    /// Runs one check.
    ///
    /// - Parameter check: The check, one of ``cases``.
    /// - Throws: ``ContractViolation`` saying what the transport did instead, or the error it threw
    ///   where none was due.
    public func check(_ check: Case) async throws {
        try await check.body(self)
    }

    /// Every check, in a stable order.
    public static let cases: [Case] = Self.exchanges + Self.bodies + Self.lifecycle + Self.failures + Self.sessionTime

    // MARK: Helpers for the checks

    /// The server URL for a path (with its query).
    func url(_ path: String) throws -> URL {
        guard let url = URL(string: path, relativeTo: server)?.absoluteURL else {
            throw ContractViolation("cannot make a URL of \(path) on \(server)")
        }
        return url
    }

    /// A request for a path.
    func request(_ path: String, method: String = "GET", headers: [String: String] = [:], body: RequestBody = .empty) throws -> OutgoingRequest {
        OutgoingRequest(url: try url(path), method: HTTPMethod(rawValue: method), headers: HTTPHeaders(headers), body: body)
    }

    /// Sends a request and reads the whole body.
    func exchange(_ request: TransportRequest) async throws -> (ResponseHead, Data) {
        let (head, body) = try await transport.send(request)
        return (head, try await body.collect(upTo: 256 << 20))
    }

    /// What the server's `/anything` sends back: the request as it arrived.
    struct Echo: Decodable {
        let method: String
        /// The path, percent-encoded as sent.
        let path: String
        /// The query, as sent (without `?`).
        let query: String
        /// Every header field as `[name, value]`, in the order received.
        let headers: [[String]]
        /// The body, in Base64.
        let body: String

        /// The first value of a header, ignoring the name's case.
        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }

        /// The body's bytes.
        var bodyData: Data { Data(base64Encoded: body) ?? Data() }
    }

    func echo(_ data: Data) throws -> Echo {
        do {
            return try JSONDecoder().decode(Echo.self, from: data)
        } catch {
            throw ContractViolation("the server's echo could not be read: \(error); body \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
    }

    /// A key no other check uses, for the server's counters.
    static func key(_ name: String) -> String {
        "\(name)-\(UUID().uuidString.prefix(8))"
    }

    /// Checks that `waited` is within `limit`, allowing twice the worst lateness `beside` saw.
    static func expectWithin(_ limit: Duration, waited: Duration, beside: LatenessProbe, _ what: String) async throws {
        let late = await beside.stop()
        try expect(waited <= limit + late * 2, "\(what) after \(waited) (bound \(limit), the runtime was \(late) late)")
    }

    /// Polls `condition` until it holds or `limit` passes.
    static func eventually(within limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }
}

// MARK: - ContractViolation

/// What a transport did that the contract does not allow.
public struct ContractViolation: Error, CustomStringConvertible, LocalizedError {
    /// What happened instead of what was due.
    public let description: String

    /// Creates a violation.
    ///
    /// - Parameter description: What happened instead of what was due.
    public init(_ description: String) {
        self.description = description
    }

    /// The ``description``.
    public var errorDescription: String? { description }
}

/// Throws a violation unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition {
        throw ContractViolation(message())
    }
}

// MARK: - withShutdown

/// Runs `body` with `transport` and shuts the transport down afterwards, whether `body` returned
/// or threw, for tests that make a transport of their own.
///
/// ```swift
/// let status = try await withShutdown(MyTransport()) { transport in
///     try await Session(transport: transport).request(url).statusCode
/// }
/// ```
///
/// - Parameters:
///   - transport: The transport.
///   - body: What to do with it.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw (the shutdown's error is then dropped), or the shutdown's error.
public func withShutdown<T: Transport, Value>(_ transport: T, _ body: (T) async throws -> Value) async throws -> Value {
    let value: Value
    do {
        value = try await body(transport)
    } catch {
        try? await transport.shutdown()
        throw error
    }
    try await transport.shutdown()
    return value
}
