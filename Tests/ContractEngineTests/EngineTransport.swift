import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// The transport of the `WritingATransport` article, built as a third party builds one: outside
// the `Requests` module, on its public transfer core (`TransferStream`) alone.

/// One exchange of an engine: it can pause between chunks, go on, and stop.
protocol EngineCall: AnyObject, Sendable {
    func pause()
    func resume()
    func cancel()
}

/// What an engine calls back with, one event at a time.
struct EngineEvents: Sendable {
    let head: @Sendable (_ status: Int, _ fields: [(String, String)]) -> Void
    let chunk: @Sendable (_ chunk: Data, _ call: any EngineCall) -> Void
    let end: @Sendable ((any Error)?) -> Void
}

/// An engine: starts an exchange, reading the request body from `body` as it sends it.
protocol Engine: Sendable {
    /// Whether a call can be held back between chunks (else the transfer spills to disk).
    var pauses: Bool { get }
    func start(_ request: OutgoingRequest, body: ChunkStream, events: EngineEvents) throws -> any EngineCall
}

struct EngineTransport: Transport {
    let engine: any Engine

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        // The trip's one cancel point: the request's handle (the session's clock) cancels it.
        let transfer = TransferStream(for: request, buffering: TransferBuffering(bytes: 1 << 20, enginePauses: engine.pauses))
        let events = EngineEvents(
            head: { status, fields in
                transfer.receive(head: EngineHead(status: status, fields: fields, url: request.url))
            },
            chunk: { chunk, call in
                if transfer.receive(chunk) {                     // the reader is behind
                    call.pause()
                    transfer.paused { call.resume() }
                }
            },
            end: { error in
                // A URLError is classified by the session; anything else is named here.
                transfer.finish(error.map { $0 is URLError ? $0 : TransportError(TransportError.kind(of: $0), detail: "\($0)", underlyingError: $0) })
            }
        )
        let call = try engine.start(request.request, body: request.body.chunks(), events: events)
        transfer.attach(CallEngine(call: call))                  // stopped when the transfer is
        let head = try await transfer.head()                     // the caller's task cancels it too
        request.progress?(request.body.length ?? 0, request.body.length)
        return (head, ResponseBody(source: transfer))
    }
}

/// What stops the engine's exchange; the transfer calls it off its lock, on a thread of its own.
struct CallEngine: TransferEngine {
    let call: any EngineCall
    func stop() { call.cancel() }
}

/// The engine's head, made into a `ResponseHead` on the reader's thread.
struct EngineHead: TransferHead {
    let status: Int
    let fields: [(String, String)]
    let url: URL

    func responseHead() -> ResponseHead {
        var headers = HTTPHeaders()
        for (name, value) in fields {
            headers.append(name: name, value: value)            // repeated fields kept
        }
        return ResponseHead(statusCode: status, headers: headers, url: url)
    }
}
