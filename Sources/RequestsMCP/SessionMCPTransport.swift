#if MCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import MCP
import Requests

// MARK: - SessionMCPTransport

/// The Model Context Protocol's streamable HTTP transport over a ``Requests/Session``: the MCP
/// Swift SDK's `Client` talks to a server through the session's whole pipeline (authentication
/// with refresh, retry, throttling, monitors, tracing, HAR recording, `StubTransport`), on either
/// engine, with event streams on Linux too.
///
/// ```swift
/// let session = Session(interceptors: [BearerAuthentication(provider: tokens)])
/// let transport = SessionMCPTransport(endpoint: URL(string: "https://tools.example.com/mcp")!, session: session)
/// let client = Client(name: "agent", version: "1.0")
/// try await client.connect(transport: transport)
/// let (content, _) = try await client.callTool(name: "search", arguments: ["query": "swift"])
/// ```
///
/// What it does, as the specification's streamable HTTP transport says:
/// - Each message is a `POST` of its JSON with `Accept: application/json, text/event-stream`. A
///   `202 Accepted` (a notification or a response) ends it; a JSON answer is one message; an event
///   stream's events (answers, notifications, the server's requests) are messages as they arrive.
/// - The `Mcp-Session-Id` the server gives is sent on every later request, and
///   `MCP-Protocol-Version` once `initialize` has negotiated it. A `404` for a known session
///   throws the SDK's `Session expired` error and forgets the session; `disconnect()` ends a
///   session with a `DELETE`.
/// - Once initialized, it opens the server-to-client stream (a `GET`; a `405` means the server
///   offers none) with ``Requests/Session/events(_:method:parameters:encoding:headers:timeout:interceptors:redirectPolicy:options:reconnection:)``,
///   which reconnects with `Last-Event-ID` after the server's `retry:`.
/// - A `POST`'s stream that breaks before its answer is resumed the same way (a `GET` with
///   `Last-Event-ID`), until the answer arrives: nothing is lost or repeated.
/// - A `notifications/cancelled` the SDK sends for a request also cancels that request's stream.
public actor SessionMCPTransport: MCP.Transport {
    /// The MCP endpoint, such as `https://tools.example.com/mcp`.
    public let endpoint: URL
    /// The session every request goes through.
    public let session: Session
    /// The session id the server gave in answer to `initialize`, until the session ends.
    public private(set) var sessionID: String?
    /// The protocol version `initialize` negotiated, sent as `MCP-Protocol-Version`.
    public private(set) var protocolVersion: String?
    /// Whether the server-to-client stream (`GET`) is opened after initialization.
    public let opensServerStream: Bool
    public nonisolated let logger: Logger

    private let messages: AsyncThrowingStream<Data, any Error>
    private let sink: AsyncThrowingStream<Data, any Error>.Continuation
    private var connected = false
    /// The `initialize` request's id, until its answer gives the negotiated version.
    private var initializeID: String?
    /// The readers of the POST streams, by the id of the request they answer (or a number of
    /// their own for a stream that answers no request), and the server-to-client stream's.
    private var readers: [String: Task<Void, Never>] = [:]
    private var serverStream: Task<Void, Never>?
    private var nextReader = 0
    /// The requests the SDK cancelled while their `POST` still waited for its head: their answer
    /// is dropped (and its stream stopped) when the head comes.
    private var cancelledBeforeHead: Set<String> = []
    /// The requests whose `POST` waits for its head.
    private var awaitingHead: Set<String> = []

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - endpoint: The MCP endpoint.
    ///   - session: The session to send through; a new default one if not given.
    ///   - opensServerStream: Whether to open the server-to-client stream after initialization;
    ///     `true` by default.
    ///   - logger: Where the transport logs; nowhere by default.
    public init(endpoint: URL, session: Session = Session(), opensServerStream: Bool = true, logger: Logger? = nil) {
        self.endpoint = endpoint
        self.session = session
        self.opensServerStream = opensServerStream
        self.logger = logger ?? Logger(label: "requests.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
        (messages, sink) = AsyncThrowingStream<Data, any Error>.makeStream()
    }

    /// Makes the transport ready to send; the server-to-client stream opens once initialized.
    public func connect() async throws {
        connected = true
    }

    /// Stops every stream, ends the server's session with a `DELETE`, and finishes ``receive()``.
    public func disconnect() async {
        guard connected else { return }
        connected = false
        let running = Array(readers.values) + (serverStream.map { [$0] } ?? [])
        readers = [:]
        serverStream = nil
        for task in running { task.cancel() }
        if let sessionID {
            var request = URLRequest(url: endpoint)
            request.httpMethod = "DELETE"
            for (name, value) in headers(sessionID: sessionID).sorted(by: { $0.key < $1.key }) { request.setValue(value, forHTTPHeaderField: name) }
            do {
                let response = try await session.request(request)
                if response.statusCode >= 400, response.statusCode != 405 {
                    logger.debug("DELETE of the MCP session answered \(response.statusCode)")
                }
            } catch {
                logger.debug("DELETE of the MCP session failed: \(error)")
            }
            self.sessionID = nil
        }
        sink.finish()
    }

    /// The messages from the server, in the order they arrive.
    ///
    /// - Returns: One stream for the transport's life; it finishes at ``disconnect()``.
    public func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    /// Sends one JSON-RPC message (or batch) as a `POST`.
    ///
    /// - Parameter data: The message's JSON.
    /// - Throws: `MCPError` for an answer the transport cannot use (`Session expired` for a `404`
    ///   of a known session, the status otherwise), or the session's ``Requests/RequestError``.
    public func send(_ data: Data) async throws {
        guard connected else { throw MCPError.internalError("Transport not connected") }
        let message = Envelope(data)
        if message.method == "initialize" { initializeID = message.id }
        if message.method == "notifications/cancelled", let cancelled = message.cancelledRequestID {
            readers.removeValue(forKey: cancelled)?.cancel()
            if awaitingHead.contains(cancelled) { cancelledBeforeHead.insert(cancelled) }
        }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.httpBody = data
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers(sessionID: sessionID).sorted(by: { $0.key < $1.key }) { request.setValue(value, forHTTPHeaderField: name) }

        let requestID = message.isRequest ? message.id : nil
        if let requestID { awaitingHead.insert(requestID) }
        defer {
            if let requestID {
                awaitingHead.remove(requestID)
                cancelledBeforeHead.remove(requestID)
            }
        }
        let answer = try await session.stream(request)
        if let requestID, cancelledBeforeHead.contains(requestID) {
            answer.body.cancel()
            return
        }
        if let id = answer.headers["Mcp-Session-Id"], !id.isEmpty { sessionID = id }
        try check(answer.statusCode, knownSession: request.value(forHTTPHeaderField: "Mcp-Session-Id") != nil)
        let type = answer.mimeType ?? ""
        if type == "text/event-stream" {
            let key = message.isRequest ? message.id ?? "" : "stream-\(nextReader)"
            nextReader += 1
            let answered = message.isRequest ? message.id : nil
            readers[key] = Task { await self.read(answer.body, answering: answered, key: key) }
        } else if type == "application/json" {
            let body = try await answer.body.collect(upTo: 64 << 20)
            deliver(body)
        } else if answer.statusCode != 202, !type.isEmpty {
            logger.warning("MCP answer of type \(type) ignored")
        }
        if message.method == "notifications/initialized" { openServerStream() }
    }

    // MARK: Streams

    /// Reads a POST's event stream, and resumes it with `Last-Event-ID` if it breaks before the
    /// answer to `answering` arrived.
    private func read(_ body: ResponseBody, answering id: String?, key: String) async {
        var lastEventID: String?
        var retry: Duration?
        var answered = false
        do {
            for try await event in body.events {
                if let eventID = event.id { lastEventID = eventID }
                if let delay = event.retry { retry = delay }
                if deliver(event, answering: id) { answered = true }
            }
        } catch {
            logger.debug("MCP stream broke: \(error)")
        }
        if !answered, id != nil, let lastEventID, connected, !Task.isCancelled {
            await resume(after: lastEventID, retry: retry, answering: id)
        }
        readers.removeValue(forKey: key)
    }

    /// A `GET` with `Last-Event-ID` that replays what the broken stream had not given, reading
    /// until the answer to `answering` arrives.
    private func resume(after lastEventID: String, retry: Duration?, answering id: String?) async {
        var headers = HTTPHeaders(self.headers(sessionID: sessionID))
        headers.update(name: "Last-Event-ID", value: lastEventID)
        let reconnection = EventSource.Reconnection(initialDelay: retry ?? .milliseconds(100), maximumAttempts: 5)
        if let retry { try? await Task.sleep(for: retry) }
        do {
            for try await event in session.events(endpoint, headers: headers, reconnection: reconnection) {
                if deliver(event, answering: id) { return }
            }
        } catch {
            logger.warning("MCP stream could not be resumed after event \(lastEventID): \(error)")
        }
    }

    /// Opens the server-to-client stream, once.
    private func openServerStream() {
        guard opensServerStream, serverStream == nil, connected else { return }
        let headers = HTTPHeaders(self.headers(sessionID: sessionID))
        let source = session.events(endpoint, headers: headers)
        serverStream = Task {
            do {
                for try await event in source { _ = self.deliver(event, answering: nil) }
            } catch let error as RequestError where error.statusCode == 405 {
                self.logger.debug("the MCP server offers no server-to-client stream")
            } catch {
                self.logger.debug("MCP server-to-client stream ended: \(error)")
            }
        }
    }

    // MARK: Messages

    /// Yields an event's message; `true` when it is the answer to `id`.
    private func deliver(_ event: ServerSentEvent, answering id: String?) -> Bool {
        guard !event.data.isEmpty, event.type == "message" else { return false }
        let data = Data(event.data.utf8)
        deliver(data)
        guard let id else { return false }
        let envelope = Envelope(data)
        return envelope.isResponse && envelope.id == id
    }

    private func deliver(_ data: Data) {
        if let initializeID {
            let envelope = Envelope(data)
            if envelope.isResponse, envelope.id == initializeID {
                protocolVersion = envelope.protocolVersion ?? protocolVersion
                self.initializeID = nil
            }
        }
        sink.yield(data)
    }

    /// The session's fields for a request: its id, and the negotiated version.
    private func headers(sessionID: String?) -> [String: String] {
        var fields: [String: String] = [:]
        if let sessionID { fields["Mcp-Session-Id"] = sessionID }
        if let protocolVersion { fields["MCP-Protocol-Version"] = protocolVersion }
        return fields
    }

    /// Throws for a status the transport cannot use, as the SDK's own HTTP transport names them.
    private func check(_ status: Int, knownSession: Bool) throws {
        switch status {
        case 200..<300: return
        case 404 where knownSession:
            sessionID = nil
            throw MCPError.internalError("Session expired")
        case 401: throw MCPError.internalError("Authentication required (401 from \(endpoint.absoluteString))")
        case 403: throw MCPError.internalError("Access forbidden (403 from \(endpoint.absoluteString))")
        default: throw MCPError.internalError("Unexpected HTTP status \(status) from \(endpoint.absoluteString)")
        }
    }
}

// MARK: - Envelope

/// What the transport reads of a JSON-RPC message: its method, its id (as JSON text, so that `1`
/// and `"1"` stay apart), and for `initialize`'s answer the negotiated version.
struct Envelope {
    let method: String?
    let id: String?
    let isResponse: Bool
    let protocolVersion: String?
    let cancelledRequestID: String?

    init(_ data: Data) {
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        method = object?["method"] as? String
        id = object?["id"].flatMap(Envelope.text)
        isResponse = object.map { $0["method"] == nil && ($0["result"] != nil || $0["error"] != nil) } ?? false
        protocolVersion = (object?["result"] as? [String: Any])?["protocolVersion"] as? String
        cancelledRequestID = (object?["params"] as? [String: Any])?["requestId"].flatMap(Envelope.text)
    }

    /// A request: a method and an id.
    var isRequest: Bool { method != nil && id != nil }

    private static func text(_ value: Any) -> String? {
        switch value {
        case let string as String: "\"\(string)\""
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }
}
#endif
