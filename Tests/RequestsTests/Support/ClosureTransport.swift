import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Requests

// MARK: - ClosureTransport

/// A transport made of a closure that sees the whole ``TransportRequest`` (body, progress,
/// handle) and the trip's number, from 1; it counts trips and shutdowns.
final class ClosureTransport: Transport {
    typealias Answer = @Sendable (_ request: TransportRequest, _ trip: Int) async throws -> (ResponseHead, ResponseBody)

    private let answer: Answer
    private let counts = Guarded((trips: 0, shutdowns: 0))
    let behavior: TransportBehavior

    init(behavior: TransportBehavior = TransportBehavior(), answer: @escaping Answer) {
        self.behavior = behavior
        self.answer = answer
    }

    /// Answers every trip with a status, headers and a body in memory.
    convenience init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.init { request, _ in
            (ResponseHead(statusCode: status, headers: headers, url: request.url), ResponseBody(body))
        }
    }

    /// Trips made so far.
    var trips: Int { counts.withLock { $0.trips } }
    /// Calls of ``shutdown()`` so far.
    var shutdowns: Int { counts.withLock { $0.shutdowns } }

    func send(_ request: TransportRequest) async throws -> (ResponseHead, ResponseBody) {
        let trip = counts.withLock { counts in
            counts.trips += 1
            return counts.trips
        }
        return try await answer(request, trip)
    }

    func shutdown() async throws {
        counts.withLock { $0.shutdowns += 1 }
    }
}

// MARK: - Waiting on a transfer handle

/// Sleeps up to `limit`, ending early when `handle` or the calling task is cancelled; throws
/// `CancellationError` then, as a transport whose transfer was stopped does.
func waitUntilCancelled(_ handle: TransferHandle, atMost limit: Duration = .seconds(30)) async throws {
    try await handle.sleep(for: limit)
}

/// Reads a request body whole, as a transport that sends it would.
func readAll(_ body: RequestBody, chunkSize: Int = 64 << 10) async throws -> Data {
    var data = Data()
    let chunks = body.chunks(size: chunkSize)
    while let chunk = try await chunks.next() {
        data.append(chunk)
    }
    return data
}

/// Runs `operation`, failing with ``Hung`` when it has not finished after `limit`; the operation
/// is cancelled then and not waited for, so that a test of a hang fails instead of hanging the
/// suite, even when the operation ignores cancellation.
func failingIfHung<Value: Sendable>(
    after limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let waiting = Guarded<CheckedContinuation<Value, any Error>?>(nil)
    return try await withCheckedThrowingContinuation { continuation in
        waiting.withLock { $0 = continuation }
        let work = Task {
            do {
                let value = try await operation()
                waiting.withLock { $0.take() }?.resume(returning: value)
            } catch {
                waiting.withLock { $0.take() }?.resume(throwing: error)
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            guard let continuation = waiting.withLock({ $0.take() }) else { return }
            work.cancel()
            continuation.resume(throwing: Hung(limit: limit))
        }
    }
}

/// An operation ran past the time a test allowed it.
struct Hung: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "still running after \(limit); cancelled" }
}
