import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - LoggingMonitor

/// An ``EventMonitor`` that logs each request as a `curl` command you can paste into a shell, and
/// each outcome as one line.
///
/// ```swift
/// let session = Session(monitors: [LoggingMonitor()])              // to standard error
/// let session = Session(monitors: [LoggingMonitor { logger.debug("\($0)") }])
/// ```
///
/// ```text
/// curl -X POST -H 'Authorization: Bearer <redacted>' -H 'Content-Type: application/json' --data-binary '{"a":1}' 'https://api.example.com/items'
/// < 201 POST https://api.example.com/items: 18 bytes in 42.1 ms [connect 5.2 ms, server 30.1 ms]
/// < 200 GET https://api.example.com/export.csv: head in 12.0 ms, body streamed (1048576 bytes announced)
/// ~ GET https://api.example.com/items: retry in 250.0 ms after status 503 (attempt 1)
/// ! GET https://api.example.com/items failed after 3.02 s (attempt 3): Transport failed …
/// = 200 GET https://api.example.com/items: 512 bytes from the cache (hit, age 42 s)
/// x GET https://api.example.com/items: retry budget exhausted: the retry budget of https://api.example.com is spent: …
/// ```
///
/// The values of `Authorization`, `Proxy-Authorization` and `Cookie` are redacted unless
/// ``redactsCredentials`` is off; bodies are shown up to ``bodyLimit`` bytes.
public struct LoggingMonitor: EventMonitor {
    /// Whether credential header values are hidden; `true` by default.
    public let redactsCredentials: Bool
    /// The most body bytes a `curl` line shows.
    public let bodyLimit: Int
    private let write: @Sendable (String) -> Void

    /// Creates a monitor that hands each line to a closure.
    ///
    /// - Parameters:
    ///   - redactsCredentials: Whether credential header values are hidden; `true` by default.
    ///   - bodyLimit: The most body bytes to show; 1,024 by default.
    ///   - write: Receives each line, without a line break; standard error by default.
    public init(
        redactsCredentials: Bool = true,
        bodyLimit: Int = 1024,
        write: @escaping @Sendable (String) -> Void = LoggingMonitor.standardError
    ) {
        self.redactsCredentials = redactsCredentials
        self.bodyLimit = bodyLimit
        self.write = write
    }

    /// Writes a line to standard error.
    ///
    /// - Parameter line: The line, without a line break.
    @Sendable public static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes the request as a `curl` command.
    ///
    /// - Parameters:
    ///   - request: The request as it will be sent.
    ///   - attempt: Unused.
    public func requestWillSend(_ request: OutgoingRequest, attempt: RequestAttempt) {
        let curl = CurlCommand(request: request, redactsCredentials: redactsCredentials, bodyLimit: bodyLimit).text
        write(request.options.operationName.map { curl + (curl.contains(" # ") ? "; " : " # ") + "operation " + $0 } ?? curl)
    }

    /// Writes the status, size and duration, then the trip's phases that are known
    /// (``Response/timings``): the throttle's wait, the connection, the server's time from the
    /// request sent to the first byte. A body still to be read (a stream, a download) is not
    /// counted as 0 bytes: the line says the head came, and the length the server announced.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - attempt: The trip, for its duration.
    public func requestDidReceive(_ response: Response, attempt: RequestAttempt) {
        let name = Self.name(response.outgoingRequest)
        let duration = Self.format(attempt.duration)
        let phases = Self.phases(response.timings, first: attempt.number == 1)
        guard response.body != nil else {
            write("< \(response.statusCode) \(name): \(response.data.count) bytes in \(duration)\(phases)")
            return
        }
        let announced = response.headers.value(for: "Content-Length").flatMap(Int.init)
        write("< \(response.statusCode) \(name): head in \(duration), body streamed (\(announced.map { "\($0) bytes announced" } ?? "length not announced"))\(phases)")
    }

    /// ` [queued 3.0 ms, connect 5.2 ms, server 30.1 ms]`: the known phases of the newest trip
    /// (the queue on the first only), or nothing.
    static func phases(_ timings: Timings, first: Bool) -> String {
        var parts: [String] = []
        if first, let queued = timings.queued {
            parts.append("queued \(format(queued))")
        }
        if let trip = timings.trips.last {
            if let connection = trip.connection {
                let made = [connection.dns, connection.connect].compactMap { $0 }.reduce(.zero, +)
                parts.append(connection.isReused ? "reused connection" : "connect \(format(made))")
            }
            if let waiting = trip.waiting {
                parts.append("server \(format(waiting))")
            }
        }
        return parts.isEmpty ? "" : " [" + parts.joined(separator: ", ") + "]"
    }

    /// Writes the failure.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - error: Why it failed.
    ///   - attempt: The trip, for its number and duration.
    public func requestDidFail(_ request: OutgoingRequest, error: any Error, attempt: RequestAttempt) {
        write("! \(Self.name(request)) failed after \(Self.format(attempt.duration)) (attempt \(attempt.number)): \(error)")
    }

    /// Writes the coming retry.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - attempt: The trip that failed.
    ///   - delay: The wait before the next.
    ///   - reason: Why the trip failed.
    public func requestWillRetry(_ request: OutgoingRequest, attempt: RequestAttempt, delay: Duration, reason: String) {
        write("~ \(Self.name(request)): retry in \(Self.format(delay)) after \(reason) (attempt \(attempt.number))")
    }

    /// Writes where the cached answer came from, its size and age.
    ///
    /// - Parameters:
    ///   - response: The response the cache made.
    ///   - attempt: Unused.
    public func requestWasAnsweredFromCache(_ response: Response, attempt: RequestAttempt) {
        let status = response.cacheStatus.map(\.description) ?? "hit"
        let age = response.headers.value(for: "Age").map { ", age \($0) s" } ?? ""
        // A stream's body is still to be read: its length is the stored one.
        let length = response.body == nil ? response.data.count : Int(response.headers.value(for: "Content-Length") ?? "") ?? 0
        write("= \(response.statusCode) \(Self.name(response.outgoingRequest)): \(length) bytes from the cache (\(status)\(age))")
    }

    /// Writes what a stage that protects a server decided.
    ///
    /// - Parameters:
    ///   - event: The decision.
    ///   - request: The request it concerns.
    ///   - attempt: The call's trips so far.
    public func resilienceEvent(_ event: ResilienceEvent, request: OutgoingRequest, attempt: RequestAttempt) {
        write("x \(Self.name(request)): \(event) (attempt \(attempt.number))")
    }

    private static func name(_ request: OutgoingRequest) -> String {
        request.method.rawValue + " " + request.url.absoluteString + (request.options.operationName.map { " (\($0))" } ?? "")
    }

    /// `850 µs`, `42.1 ms`, `3.02 s`.
    static func format(_ duration: Duration) -> String {
        let seconds = duration.seconds
        if seconds < 0.001 {
            return "\(Int((seconds * 1_000_000).rounded())) µs"
        }
        if seconds < 1 {
            return String(format: "%.1f ms", seconds * 1000)
        }
        return String(format: "%.2f s", seconds)
    }
}
