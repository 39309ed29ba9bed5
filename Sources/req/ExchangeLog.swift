import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - ExchangeLog

/// `--all` (and `-v`): every trip of one call printed as it happens, each request as it goes to
/// the transport and each response that led to another trip (a redirect followed, a retry).
///
/// The session's ``EventMonitor`` callbacks are synchronous, so they only pass events down an
/// `AsyncStream`; one task prints them in order. A response is printed when the next request
/// goes, so the last one, which the caller prints with its body, is never printed here.
struct ExchangeLog {
    /// One thing the session reported.
    enum Event: Sendable {
        case sent(OutgoingRequest)
        case received(Response)
        /// The cache answered: nothing was sent, and the request is shown marked so.
        case cached(Response)
    }

    /// The monitor to give the session.
    struct Monitor: EventMonitor {
        let continuation: AsyncStream<Event>.Continuation

        func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
            continuation.yield(.sent(request))
        }

        func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
            continuation.yield(.received(response))
        }

        func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt) {
            continuation.yield(.cached(response))
        }
    }

    let monitor: Monitor
    private let printing: Task<Void, any Error>

    /// Starts printing.
    ///
    /// - Parameters:
    ///   - output: Where to print.
    ///   - printer: How.
    ///   - parts: The `--print` letters.
    ///   - added: The headers the transport adds to a request that has none.
    init(output: Output, printer: Printer, parts: String, added: HTTPHeaders) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        monitor = Monitor(continuation: continuation)
        printing = Task {
            var pending: Response?
            for await event in stream {
                switch event {
                case .sent, .cached:
                    if let response = pending {
                        try Self.write(response, to: output, printer: printer, parts: parts)
                        pending = nil
                    }
                    let request: OutgoingRequest
                    switch event {
                    case .sent(let sent):
                        request = sent
                    case .cached(let response), .received(let response):
                        let status = response.cacheStatus.map(\.description) ?? "hit"
                        let age = response.headers.value(for: "Age").map { ", age \($0) s" } ?? ""
                        Terminal.error("req: note: answered from the cache (\(status)\(age)); this request was not sent\n")
                        request = response.outgoingRequest
                    }
                    if parts.contains("H") {
                        try output.write(printer.requestHead(request, added: added))
                    }
                    if parts.contains("B") {
                        // A blank line between the request and the response that follows it.
                        try output.write(printer.requestBody(request.httpBody ?? Data(), mimeType: request.value(forHTTPHeaderField: "Content-Type")))
                        try output.write("\n")
                    }
                case .received(let response):
                    pending = response
                }
            }
        }
    }

    /// Stops taking events and waits until everything before the last response is printed.
    ///
    /// - Throws: The error writing the output.
    func finish() async throws {
        monitor.continuation.finish()
        try await printing.value
    }

    /// An intermediate response: its head and body, then a blank line.
    private static func write(_ response: Response, to output: Output, printer: Printer, parts: String) throws {
        if parts.contains("h") {
            try output.write(printer.responseHead(response.head))
        }
        if parts.contains("b"), !response.data.isEmpty {
            try output.write(printer.responseBody(response.data, mimeType: response.mimeType, last: false))
            try output.write("\n")
        }
    }
}
