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
        default:
            return .status(202)
        }
    })
    return stub
}

private func client(over stub: StubTransport) async throws -> (Client, SessionMCPTransport) {
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

    @Test func aMessageSentBeforeConnectingIsAnError() async throws {
        let transport = SessionMCPTransport(endpoint: URL(string: "https://tools.example.com/mcp")!, session: Session(transport: StubTransport()))
        await #expect(throws: MCPError.self) { try await transport.send(Data("{}".utf8)) }
    }
}
#endif
