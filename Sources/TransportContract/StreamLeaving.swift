import Foundation
import Requests

// MARK: - StreamLeaving

/// How a reader leaves an endless stream: the four ways a user streaming server-sent events does.
/// Each must end the transfer, so that the server sees the client go, over HTTP/1.1 and HTTP/2.
public enum StreamLeaving: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `break` out of the loop after five items, the stream value still held.
    case breakWhileHeld = "break-held"
    /// `break` out of the loop after five items, then the stream value released.
    case breakThenRelease = "break-released"
    /// The task reading the stream cancelled after five items (the reader ends with
    /// `CancellationError`), the stream value still held.
    case cancelTask = "cancel-task"
    /// The stream dropped once its head arrived, its body never read.
    case dropUnread = "drop-unread"

    public var description: String { rawValue }
}

/// What a reader reads a body as.
public enum StreamView: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The body's chunks (`for try await chunk in stream.body`).
    case chunks
    /// Its lines (`stream.body.lines`).
    case lines
    /// Its server-sent events (`stream.body.events`).
    case events

    public var description: String { rawValue }
}

// MARK: - StreamLeavingCheck

/// Streams an endless event stream of `Tests/Fixtures/sse_server.py` (sse-starlette on hypercorn),
/// leaves it one of the four ways, and asks the server, over a session of its own, when it saw
/// the client go (the ASGI way: `http.disconnect`, on an RST_STREAM or a closed connection).
public enum StreamLeavingCheck {
    /// What the server saw of one stream.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// The HTTP version the stream went over, as the server names it: `2` or `1.1`.
        public let httpVersion: String
        /// Whether the server saw the client go within the wait.
        public let disconnected: Bool
        /// Seconds from the reader leaving to the server seeing it go (wall clock, both on this
        /// machine); `nil` when it did not.
        public let secondsToDisconnect: Double?
        /// How many events the server sent.
        public let sent: Int

        /// One line of `name=value` fields, values without spaces.
        public var description: String {
            "version=\(httpVersion) disconnected=\(disconnected) after=\(secondsToDisconnect.map { String(format: "%.3f", $0) } ?? "none") sent=\(sent)"
        }
    }

    /// What `/status` reports.
    private struct Status: Decodable {
        var started: Bool
        var disconnected: Bool?
        var disconnectedAt: Double?
        var sent: Int?
        var httpVersion: String?
    }

    /// Runs the check.
    ///
    /// - Parameters:
    ///   - leaving: How the reader leaves.
    ///   - view: What it reads the body as.
    ///   - base: The server's base URL (`https://127.0.0.1:<port>`).
    ///   - session: The session under test, over the transport under test.
    ///   - observer: A session with connections of its own, for `/status`: a request on the
    ///     stream's own HTTP/2 connection could itself make its client send what it owes there.
    ///   - wait: How long to wait for the server to see the client go; 5 seconds by default.
    /// - Returns: What the server saw.
    /// - Throws: The session's error when the stream cannot start or fails before the reader
    ///   leaves.
    public static func run(
        _ leaving: StreamLeaving, reading view: StreamView, base: String, session: Session, observer: Session,
        wait: Duration = .seconds(5)
    ) async throws -> Outcome {
        let id = "\(leaving)-\(view)-\(UUID().uuidString)"
        let url = "\(base)/events?id=\(id)"
        var held: ResponseStream?
        let left: Date
        switch leaving {
        case .breakWhileHeld:
            let stream = try await session.stream(url, timeout: .seconds(10))
            try await readFive(stream, view)
            left = Date()
            held = stream
        case .breakThenRelease:
            do {
                let stream = try await session.stream(url, timeout: .seconds(10))
                try await readFive(stream, view)
            }
            left = Date()
        case .cancelTask:
            let stream = try await session.stream(url, timeout: .seconds(10))
            let (fiveRead, signal) = AsyncStream<Void>.makeStream()
            let reader = Task {
                var count = 0
                try await forEachItem(stream, view) {
                    count += 1
                    if count == 5 { signal.yield() }
                    return true
                }
            }
            for await _ in fiveRead { break }
            reader.cancel()
            left = Date()
            _ = await reader.result
            held = stream
        case .dropUnread:
            do {
                let stream = try await session.stream(url, timeout: .seconds(10))
                _ = stream.statusCode
            }
            left = Date()
        }
        let outcome = try await serverView(id, base: base, observer: observer, left: left, wait: wait)
        withExtendedLifetime(held) {}
        return outcome
    }

    /// Reads five items of the body, then leaves the loop.
    private static func readFive(_ stream: ResponseStream, _ view: StreamView) async throws {
        var count = 0
        try await forEachItem(stream, view) {
            count += 1
            return count < 5
        }
    }

    /// Reads items as `view` says while `body` returns true; returns at the end of the body.
    private static func forEachItem(_ stream: ResponseStream, _ view: StreamView, _ body: () -> Bool) async throws {
        switch view {
        case .chunks:
            for try await _ in stream.body where !body() { break }
        case .lines:
            for try await _ in stream.body.lines where !body() { break }
        case .events:
            for try await _ in stream.body.events where !body() { break }
        }
    }

    /// Asks `/status` until the server saw the client go, or `wait` passed.
    private static func serverView(_ id: String, base: String, observer: Session, left: Date, wait: Duration) async throws -> Outcome {
        let limit = ContinuousClock.now + wait
        var status = Status(started: false)
        while ContinuousClock.now < limit {
            status = try await observer.request("\(base)/status?id=\(id)").validate().decode(Status.self)
            if status.disconnected == true { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let after = status.disconnectedAt.map { $0 - left.timeIntervalSince1970 }
        return Outcome(httpVersion: status.httpVersion ?? "unknown", disconnected: status.disconnected == true,
                       secondsToDisconnect: after, sent: status.sent ?? 0)
    }
}
