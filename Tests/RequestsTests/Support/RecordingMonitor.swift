import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Requests

// MARK: - RecordingMonitor

/// An ``EventMonitor`` that writes each event as a short line: `send 1 GET /path`,
/// `receive 1 200`, `fail 1 transportFailed`, `retry 1 status 503`.
struct RecordingMonitor: EventMonitor {
    let lines = Guarded<[String]>([])
    let attempts = Guarded<[RequestAttempt]>([])

    var events: [String] { lines.withLock { $0 } }

    func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
        record("send \(attempt.number) \(request.method.rawValue) \(request.url.path)", attempt)
    }

    func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        record("receive \(attempt.number) \(response.statusCode)", attempt)
    }

    func requestDidFail(_ request: OutgoingRequest, error: any Error, attempt: RequestAttempt) {
        let code = (error as? RequestError).map { "\($0.code)" } ?? "\(type(of: error))"
        record("fail \(attempt.number) \(code)", attempt)
    }

    func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String) {
        record("retry \(attempt.number) \(reason)", attempt)
    }

    func resilienceEvent(_ event: ResilienceEvent, request: OutgoingRequest, attempt: RequestAttempt) {
        record("\(event.kind) \(attempt.number) \(event.origin)", attempt)
    }

    private func record(_ line: String, _ attempt: RequestAttempt) {
        lines.withLock { $0.append(line) }
        attempts.withLock { $0.append(attempt) }
    }
}
