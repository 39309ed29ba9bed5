#if MCP
import Foundation
import MCP
import Requests
import RequestsMCP
import RequestsTesting
import Testing

/// A scripted MCP server over `StubTransport`: `initialize` answers JSON with a session id,
/// notifications and responses get 202, `tools/list` answers with an event stream (a
/// notification, then the answer; with `breaks`, the stream fails after the notification and the
/// answer comes on the `GET` that resumes it), the `GET` stream is refused with 405 (or, with
/// `expired`, every request of the session gets 404 once initialized).
private func scriptedServer(breaks: Bool = false, expired: Bool = false) -> StubTransport {
    let stub = StubTransport()
    let initialized = Guarded(false)
    // The id of the last `tools/list`, as JSON text (the SDK's ids are strings).
    let listID = Guarded("0")
    stub.on(respond: .computed { request in
        let sse: HTTPHeaders = ["Content-Type": "text/event-stream"]
        switch request.method {
        case .delete: return .status(204)
        case .get where request.headers["Last-Event-ID"] == "2":
            let id = listID.withLock { $0 }
            return .stream([Data(#"id: 3\#ndata: {"jsonrpc":"2.0","id":\#(id),"result":{"tools":[]}}\#n\#n"#.utf8)], headers: sse)
        case .get: return .status(405)
        default: break
        }
        let message = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
        let method = message?["method"] as? String
        let id = message?["id"].flatMap { try? JSONSerialization.data(withJSONObject: $0, options: .fragmentsAllowed) }
            .map { String(decoding: $0, as: UTF8.self) } ?? "null"
        if expired, initialized.withLock({ $0 }), method != "initialize" { return .status(404) }
        switch method {
        case "initialize":
            let body = #"{"jsonrpc":"2.0","id":\#(id),"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stub","version":"1"}}}"#
            return .text(body, headers: ["Content-Type": "application/json", "Mcp-Session-Id": "s1"])
        case "notifications/initialized":
            initialized.withLock { $0 = true }
            return .status(202)
        case "tools/list":
            listID.withLock { $0 = id }
            let note = #"id: 2\#ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listing"}}\#n\#n"#
            let answer = #"id: 3\#ndata: {"jsonrpc":"2.0","id":\#(id),"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}}\#n\#n"#
            return breaks
                ? .stream([Data("retry: 10\n\n".utf8), Data(note.utf8)], failingWith: .connectionLost, headers: sse)
                : .stream([Data(note.utf8), Data(answer.utf8)], headers: sse)
        case "tools/call":
            // The head of a call still running: `HangingCall` gives its body.
            return .stream([], headers: ["Content-Type": "text/event-stream", "X-Stub-Body": "hanging"])
        default:
            return .status(202)
        }
    })
    return stub
}

/// A stub whose answers marked `X-Stub-Body: hanging` get a body that gives one progress
/// notification and then waits until it is stopped, as a tool still working does; `stopped`
/// tells when the transport stopped it.
private final class HangingCall: Requests.Transport {
    let stub: StubTransport
    let stopped = Guarded(false)
    var behavior: TransportBehavior { stub.behavior }

    init(_ stub: StubTransport) { self.stub = stub }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let (head, body) = try await stub.send(request)
        guard head.headers["X-Stub-Body"] == "hanging" else { return (head, body) }
        return (head, ResponseBody(source: Source(stopped: stopped)))
    }

    private final class Source: ResponseBodySource {
        let stopped: Guarded<Bool>
        let gave = Guarded(false)
        init(stopped: Guarded<Bool>) { self.stopped = stopped }

        func next() async throws -> Data? {
            if !gave.withLock({ was in defer { was = true }; return was }) {
                return Data(#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\#n\#n"#.utf8)
            }
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                stopped.withLock { $0 = true }
                throw error
            }
            return nil
        }

        func cancel() { stopped.withLock { $0 = true } }
    }
}

/// The JSON-RPC method of a recorded `POST`.
private func method(of request: RecordedRequest) -> String? {
    ((try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any])?["method"] as? String
}

private func client(over stub: some Requests.Transport) async throws -> (Client, SessionMCPTransport) {
    let transport = SessionMCPTransport(endpoint: URL(string: "https://tools.example.com/mcp")!, session: Session(transport: stub))
    let client = Client(name: "stub-tests", version: "1.0")
    try await client.connect(transport: transport)
    return (client, transport)
}

/// `SessionMCPTransport`'s rules, each over `StubTransport`, without a server.
@Suite struct StubServerTests {
    @Test func everyMessageIsAPostThatAcceptsJSONAndEventStreamsAndCarriesTheSessionAndVersion() async throws {
        let stub = scriptedServer()
        let (client, transport) = try await client(over: stub)
        let (tools, _) = try await client.listTools()
        #expect(tools.map(\.name) == ["add"], "the answer read from an event stream")
        #expect(await transport.sessionID == "s1")
        #expect(await transport.protocolVersion == "2025-06-18")

        let posts = stub.requests.filter { $0.method == .post }
        #expect(posts.count == 3, "initialize, notifications/initialized, tools/list")
        for post in posts {
            #expect(post.headers["Accept"] == "application/json, text/event-stream")
            #expect(post.headers["Content-Type"] == "application/json")
        }
        #expect(posts[0].headers["Mcp-Session-Id"] == nil)
        #expect(posts[0].headers["MCP-Protocol-Version"] == nil)
        for later in posts.dropFirst() {
            #expect(later.headers["Mcp-Session-Id"] == "s1")
            #expect(later.headers["MCP-Protocol-Version"] == "2025-06-18")
        }
        await client.disconnect()
    }

    @Test func theServerStreamIsAGetAfterInitializationAnd405MeansNone() async throws {
        let stub = scriptedServer()
        let (client, _) = try await client(over: stub)
        _ = try await client.listTools()
        let deadline = ContinuousClock.now + .seconds(10)
        while !stub.requests.contains(where: { $0.method == .get }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let get = try #require(stub.requests.first { $0.method == .get })
        #expect(get.headers["Accept"] == "text/event-stream")
        #expect(get.headers["Mcp-Session-Id"] == "s1")
        // Refused with 405: the client goes on without it.
        _ = try await client.listTools()
        await client.disconnect()
    }

    @Test func disconnectDeletesTheSession() async throws {
        let stub = scriptedServer()
        let (client, transport) = try await client(over: stub)
        await client.disconnect()
        let delete = try #require(stub.requests.first { $0.method == .delete })
        #expect(delete.headers["Mcp-Session-Id"] == "s1")
        #expect(await transport.sessionID == nil)
    }

    @Test func a404OfAKnownSessionIsSessionExpired() async throws {
        let stub = scriptedServer(expired: true)
        let (client, transport) = try await client(over: stub)
        let error = await #expect(throws: MCPError.self) { _ = try await client.listTools() }
        #expect(error?.localizedDescription.contains("Session expired") == true, "\(String(describing: error))")
        #expect(await transport.sessionID == nil)
        await client.disconnect()
    }

    @Test func aBrokenStreamIsResumedWithLastEventIDAfterTheServersRetry() async throws {
        let stub = scriptedServer(breaks: true)
        let (client, _) = try await client(over: stub)
        let (tools, _) = try await client.listTools()
        #expect(tools.isEmpty, "the answer the resumed stream gave")
        let resumed = try #require(stub.requests.first { $0.headers["Last-Event-ID"] != nil })
        #expect(resumed.method == .get)
        #expect(resumed.headers["Last-Event-ID"] == "2")
        #expect(resumed.headers["Mcp-Session-Id"] == "s1")
        await client.disconnect()
    }

    @Test func cancellingACallStopsItsStreamAndTellsTheServer() async throws {
        let stub = scriptedServer()
        let engine = HangingCall(stub)
        let (client, _) = try await client(over: engine)
        let call: MCP.RequestContext<CallTool.Result> = try await client.callTool(name: "slow")
        // The call's stream is open once its POST has an answer head.
        let deadline = ContinuousClock.now + .seconds(30)
        while !stub.requests.contains(where: { method(of: $0) == "tools/call" }),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Whether its answer's head came yet or not, the cancel stops its stream.
        try await client.cancelRequest(call.requestID, reason: "the user went away")
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        while !engine.stopped.withLock({ $0 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(engine.stopped.withLock { $0 }, "the call's event stream was stopped")
        let notice = try #require(stub.requests.first { method(of: $0) == "notifications/cancelled" })
        let params = (try JSONSerialization.jsonObject(with: notice.body) as? [String: Any])?["params"] as? [String: Any]
        #expect(params?["reason"] as? String == "the user went away", "the server is told")
        await client.disconnect()
    }

    @Test func aMessageSentBeforeConnectingIsAnError() async throws {
        let transport = SessionMCPTransport(endpoint: URL(string: "https://tools.example.com/mcp")!, session: Session(transport: StubTransport()))
        await #expect(throws: MCPError.self) { try await transport.send(Data("{}".utf8)) }
    }
}
#endif
