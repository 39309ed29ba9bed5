import Foundation
import TransportContract
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
@testable import Requests

// MARK: - Loopback server

/// The loopback server shared by every integration test in this process.
func server() throws -> LoopbackServer {
    try LoopbackServer.shared.get()
}

// MARK: - Echo

/// What `/anything` sends back.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let headers: [[String]]
    let body: String
    let form: [[String]]?
    let json: JSONValue?
    let plist: JSONValue?
    let parseError: String?

    /// The first value of a header, ignoring the name's case.
    func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    /// The raw body bytes.
    var bodyData: Data { Data(base64Encoded: body) ?? Data() }
}

// MARK: - JSONValue

/// Any JSON value, decodable and comparable, for checking what the server parsed.
enum JSONValue: Decodable, Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    case string(String), number(Double), bool(Bool), null, array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(nilLiteral: ()) { self = .null }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}

// MARK: - MockTransport

/// An in-memory transport: answers with a closure and records every request it sees.
struct MockTransport: Transport {
    let sent = Guarded<[URLRequest]>([])
    let answer: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

    init(answer: @escaping @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)) {
        self.answer = answer
    }

    /// Answers every request with the given status, headers and body.
    init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.init { request in
            let url = request.url ?? URL(fileURLWithPath: "/")
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            guard let response else { throw URLError(.badServerResponse) }
            return (body, response)
        }
    }

    /// A transport that never answers; it sets `cancelled` when its task is cancelled.
    static func hanging(noting cancelled: Guarded<Bool>) -> MockTransport {
        MockTransport { _ in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
            throw URLError(.unknown)
        }
    }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        sent.withLock { $0.append(request.urlRequest) }
        // The answer runs in a task the transfer's handle cancels too, as an engine stops when the
        // session's clock cancels the handle (a deadline, an idle limit).
        let urlRequest = request.urlRequest
        let answering = Task { [answer] in try await answer(urlRequest) }
        request.handle.onCancel { answering.cancel() }
        let (data, response) = try await withTaskCancellationHandler {
            try await answering.value
        } onCancel: {
            answering.cancel()
        }
        return (ResponseHead(response), ResponseBody(data))
    }

    var requests: [URLRequest] { sent.withLock { $0 } }
}

/// A response value for unit tests.
func makeResponse(status: Int = 200, headers: [String: String] = [:], body: String = "") throws -> Response {
    let url = URL(string: "http://127.0.0.1/test") ?? URL(fileURLWithPath: "/")
    let request = OutgoingRequest(url: url)
    guard let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers) else {
        throw URLError(.badServerResponse)
    }
    return Response(request: request, httpResponse: http, data: Data(body.utf8))
}

// MARK: - Scheduler lateness

/// Starts watching how late the runtime is, beside a timed step; read `value` once the step is done.
///
/// Timing tests start one beside the request they time: when the machine is busy (two cores shared
/// with the rest of the parallel test run), every wake-up is late by as much as the runtime's own
/// delay, which no library can beat, so the bounds allow for it and still catch a library that is
/// slow. The probe watches the whole step (a single sleep of the step's length missed a stall that
/// began after it woke: one run in 20 under load).
func schedulerLateness() -> LatenessProbe {
    // The probe lives in TransportContract, whose checks bound their waits the same way.
    LatenessProbe()
}

/// The bound a timing test checks: `bound` plus twice the lateness a plain sleep saw beside it.
///
/// Twice, because the library's path after its own timer fires (cancel the transport, unwind, throw)
/// is at least one more scheduling hop, which a loaded machine delays by about as much again. A hang
/// or a library that ignores its timeout still fails by far.
func allowingLateness(_ bound: Duration, _ lateness: Duration) -> Duration {
    bound + lateness * 2
}
