#if MCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MCP
import Requests
import RequestsMCP
import Testing

/// How a step ended: its result, its error, or no end within its bound.
enum StepOutcome<Value: Sendable>: Sendable {
    case finished(Value)
    case failed(String)
    case unfinished(Duration)

    var summary: String {
        switch self {
        case .finished(let value): "\(value)"
        case .failed(let error): "failed: \(error)"
        case .unfinished(let bound): "did not finish within \(bound)"
        }
    }
}

/// Runs `work` in a task of its own and waits at most `bound` for it. A step that does not end
/// is left running (a call the SDK does not let one cancel cannot be abandoned any other way).
func bounded<Value: Sendable>(_ bound: Duration, _ work: @escaping @Sendable () async throws -> Value) async -> StepOutcome<Value> {
    let waiter = Guarded<CheckedContinuation<StepOutcome<Value>, Never>?>(nil)
    return await withCheckedContinuation { continuation in
        waiter.withLock { $0 = continuation }
        let finish: @Sendable (StepOutcome<Value>) -> Void = { outcome in
            let taken = waiter.withLock { waiting -> CheckedContinuation<StepOutcome<Value>, Never>? in
                defer { waiting = nil }
                return waiting
            }
            taken?.resume(returning: outcome)
        }
        Task {
            do { finish(.finished(try await work())) } catch { finish(.failed("\(error)")) }
        }
        Task {
            try? await Task.sleep(for: bound)
            finish(.unfinished(bound))
        }
    }
}

/// What a transport hands the SDK for `initialize`'s answer: JSON, or something else.
func firstMessage(over transport: some MCP.Transport) async throws -> String {
    try await transport.connect()
    let initialize = #"{"jsonrpc":"2.0","id":"side-1","method":"initialize","params":{"protocolVersion":"\#(Version.latest)","capabilities":{},"clientInfo":{"name":"side-by-side","version":"1"}}}"#
    try await transport.send(Data(initialize.utf8))
    for try await message in await transport.receive() {
        let isJSON = (try? JSONSerialization.jsonObject(with: message)) != nil
        let text = String(decoding: message.prefix(40), as: UTF8.self).replacingOccurrences(of: "\n", with: "\\n")
        return isJSON ? "one JSON message" : "one message that is not JSON (\(message.count) bytes: \"\(text)…\")"
    }
    return "no message"
}

/// The reference scenario's first steps over the SDK's own `HTTPClientTransport` and over
/// `SessionMCPTransport`, side by side: what each hands the SDK. The SDK's column is recorded,
/// not judged (it is the SDK's behaviour on this platform); ours must deliver every step.
@Suite(.serialized) struct SideBySideTests {
    @Test func theSDKsOwnTransportBesideOurs() async throws {
        let endpoint = try referenceServer.get().url("/mcp")
        // Ours has a generous bound (its steps take milliseconds); the SDK's a short one, since on
        // Linux its connect is known not to end.
        let ours: Duration = .seconds(60)
        let theirs: Duration = .seconds(10)

        let sdkFirst = await bounded(theirs) { try await firstMessage(over: HTTPClientTransport(endpoint: endpoint, streaming: true)) }
        let ourFirst = await bounded(ours) { try await firstMessage(over: SessionMCPTransport(endpoint: endpoint)) }

        let sdkConnect = await bounded(theirs) { () -> String in
            let client = Client(name: "side-by-side", version: "1")
            _ = try await client.connect(transport: HTTPClientTransport(endpoint: endpoint, streaming: true))
            let (content, _) = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
            await client.disconnect()
            return "initialized; add(2, 3) = \(text(content))"
        }
        let ourConnect = await bounded(ours) { () -> String in
            let client = Client(name: "side-by-side", version: "1")
            _ = try await client.connect(transport: SessionMCPTransport(endpoint: endpoint))
            let (content, _) = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
            await client.disconnect()
            return "initialized; add(2, 3) = \(text(content))"
        }

        print("""
            MCP side by side against Tests/Fixtures/mcp_server.py (an event-stream answer to every POST):
            | step | SDK HTTPClientTransport | SessionMCPTransport |
            | initialize's answer, at the transport | \(sdkFirst.summary) | \(ourFirst.summary) |
            | Client.connect, then a tool call | \(sdkConnect.summary) | \(ourConnect.summary) |
            """)
        guard case .finished(let first) = ourFirst, case .finished(let connected) = ourConnect else {
            Issue.record("SessionMCPTransport did not deliver: \(ourFirst.summary); \(ourConnect.summary)")
            return
        }
        #expect(first == "one JSON message")
        #expect(connected == "initialized; add(2, 3) = 5")
    }
}
#endif
