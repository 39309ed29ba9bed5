// A program the tests run under a private mount namespace whose system trust store holds the
// test CA: FoundationNetworking on Linux trusts nothing else, so `URLSessionTransport` can meet
// a TLS server on loopback (HTTP/2 by ALPN) only from a process that sees such a store.
//
//     URLSessionProbe leave-loop <base URL>     break out of an event loop after two events
//     URLSessionProbe cancel-task <base URL>    cancel the task reading the events
//     URLSessionProbe silence <base URL>        a body that goes silent past the idle limit
//     URLSessionProbe idle-reuse <base URL> <rounds> <gap seconds>
//                                               one request per round, gap + 0…60 ms apart
//     URLSessionProbe get <URL>                 one GET, and how it ended
//     URLSessionProbe fields <base URL> urlsession|asynchttpclient
//                                               WireFields' call to the loopback server over the
//                                               engine named (asynchttpclient needs the trait);
//                                               prints the fields the server received, in order
//     URLSessionProbe traced <base URL> urlsession|asynchttpclient
//                                               one call with an in-memory tracer and metrics
//                                               bootstrapped for the process (trait Tracing);
//                                               prints the spans, what the server received and
//                                               the metrics recorded
//     URLSessionProbe leave-stream <how> <view> <base URL>
//                                               sse_server.py's endless events, left as <how>
//                                               says (StreamLeaving), read as <view> (StreamView)
//
// Each prints one line of `name=value` fields (values without spaces) for the test to check; a
// check that cannot run at all exits with status 2 and the reason on standard error.
// `<base URL>` is h2_server.py's, whose /drip and /drip-status endpoints report what the server
// saw of the stream.

import Foundation
import Requests
import RequestsAsyncHTTPClient
import TransportContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `/drip-status` says of one drip.
struct DripStatus: Decodable {
    var started: Bool
    var ended: Bool?
    var disconnected: Bool?
    var sent: Int?
    var elapsed: Double?
    var httpVersion: String?
}

/// Failure to run a check at all, as opposed to a check's result.
struct ProbeError: Error, CustomStringConvertible {
    let description: String
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> String {
    let elapsed = ContinuousClock.now - start
    return String(format: "%.3f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

/// Waits up to five seconds for the drip `name` to end on the server.
///
/// - Returns: The fields to print: `ended`, `disconnected`, `sent`, `stopped_after` (seconds from
///   `left` until the server was seen to have ended the drip) and `version` (the server's
///   `http_version`: `2` over HTTP/2).
func dripOutcome(_ session: Session, _ base: String, _ name: String, left: ContinuousClock.Instant) async throws -> String {
    var status = DripStatus(started: false)
    let limit = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < limit {
        status = try await session.request("\(base)/drip-status?id=\(name)").validate().decode(DripStatus.self)
        if status.ended == true { break }
        try await Task.sleep(for: .milliseconds(20))
    }
    return "version=\(status.httpVersion ?? "unknown") ended=\(status.ended ?? false) disconnected=\(status.disconnected ?? false) sent=\(status.sent ?? 0) stopped_after=\(seconds(since: left))"
}

/// Streams a drip of 200 events, 50 ms apart, and leaves after two.
func leaveLoop(_ base: String, cancellingTheTask: Bool) async throws -> String {
    let session = Session()
    let name = cancellingTheTask ? "cancel-task" : "leave-loop"
    let stream = try await session.stream("\(base)/drip?id=\(name)")
    var received = 0
    if cancellingTheTask {
        let (twoRead, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for try await _ in stream.body.events {
                received += 1
                if received == 2 { signal.yield() }
            }
        }
        for await _ in twoRead { break }
        reader.cancel()
        _ = await reader.result
    } else {
        for try await _ in stream.body.events {
            received += 1
            if received == 2 { break }
        }
    }
    let left = ContinuousClock.now
    // `stream` stays alive until after the check: dropping it must not be what stops the drip.
    let outcome = try await dripOutcome(session, base, name, left: left)
    withExtendedLifetime(stream) {}
    try await session.shutdown()
    return outcome
}

/// Streams one event then 10 s of silence, with a 2 s idle limit: the limit covers the wait for
/// the head too, which in this fresh process includes the TLS and HTTP/2 set-up, so it is wide
/// enough for a loaded machine and still far inside the silence.
func silence(_ base: String) async throws -> String {
    let session = Session(transport: URLSessionTransport(), idleTimeout: .seconds(2))
    let stream = try await session.stream("\(base)/drip?id=silence&count=1&silence=10")
    var received = 0
    var failure = "none"
    do {
        for try await _ in stream.body.events { received += 1 }
    } catch let error as RequestError {
        failure = "\(error.code)"
    }
    let outcome = try await dripOutcome(session, base, "silence", left: .now)
    withExtendedLifetime(stream) {}
    try await session.shutdown()
    return "received=\(received) error=\(failure) \(outcome)"
}

/// Sends one request per round, `gap` seconds apart plus 0 to 60 ms (a step of 10 ms per round, in
/// turn), and counts what failed: gaps about the server's keep-alive meet connections it is
/// closing just then.
func idleReuse(_ base: String, rounds: Int, gap: Double) async throws -> String {
    let session = Session()
    var failures: [String] = []
    var connections: [String] = []
    var versions = Set<String>()
    for round in 0..<rounds {
        do {
            let response = try await session.request("\(base)/hello").validate()
            connections.append(response.headers["x-connection"] ?? "?")
            versions.insert(response.text)
        } catch {
            failures.append("round\(round):\(String(describing: error).replacingOccurrences(of: " ", with: "_"))")
        }
        try await Task.sleep(for: .milliseconds(Int(gap * 1000) + round % 7 * 10))
    }
    try await session.shutdown()
    let spoken = versions.map { $0.replacingOccurrences(of: " ", with: "_") }.sorted().joined(separator: ",")
    return "failed=\(failures.count) connections=\(connections.joined(separator: ",")) bodies=\(spoken) failures=\(failures.joined(separator: "|"))"
}

/// One GET: its status, or its error's kind and transport kind.
func get(_ url: String) async throws -> String {
    let session = Session()
    defer { Task { try? await session.shutdown() } }
    do {
        let response = try await session.request(url)
        return "status=\(response.statusCode) body=\(response.text.replacingOccurrences(of: " ", with: "_"))"
    } catch let error as RequestError {
        let kind = error.transportErrorKind.map { "\($0)" } ?? "none"
        return "error=\(error.code) transport=\(kind) text=\(error.localizedDescription.replacingOccurrences(of: " ", with: "_"))"
    }
}

let arguments = CommandLine.arguments
do {
    let line: String
    switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
    case ("leave-loop", 3): line = try await leaveLoop(arguments[2], cancellingTheTask: false)
    case ("cancel-task", 3): line = try await leaveLoop(arguments[2], cancellingTheTask: true)
    case ("silence", 3): line = try await silence(arguments[2])
    case ("idle-reuse", 5):
        guard let rounds = Int(arguments[3]), let gap = Double(arguments[4]) else {
            throw ProbeError(description: "idle-reuse takes a whole number of rounds and a gap in seconds")
        }
        line = try await idleReuse(arguments[2], rounds: rounds, gap: gap)
    case ("get", 3): line = try await get(arguments[2])
    case ("fields", 4):
        guard let base = URL(string: arguments[2]) else { throw ProbeError(description: "\(arguments[2]) is not a URL") }
        let transport: any Transport
        switch arguments[3] {
        case "urlsession": transport = URLSessionTransport()
        #if AsyncHTTPClient
        case "asynchttpclient": transport = AsyncHTTPClientTransport()
        #endif
        default: throw ProbeError(description: "no transport \(arguments[3]) in this build")
        }
        let fields = try await WireFields.send(to: base, over: transport)
        try await transport.shutdown()
        line = fields.joined(separator: " | ")
    #if Tracing
    case ("traced", 4): line = try await traced(arguments[2], engine: arguments[3])
    #endif
    case ("leave-stream", 5):
        guard let how = StreamLeaving(rawValue: arguments[2]), let view = StreamView(rawValue: arguments[3]) else {
            throw ProbeError(description: "leave-stream takes one of \(StreamLeaving.allCases) and one of \(StreamView.allCases)")
        }
        // The stream over the default transport; the server asked over a session of its own.
        let session = Session()
        let observer = Session()
        line = try await StreamLeavingCheck.run(how, reading: view, base: arguments[4], session: session, observer: observer).description
        try await session.shutdown()
        try await observer.shutdown()
    default: throw ProbeError(description: "usage: URLSessionProbe leave-loop|cancel-task|silence|idle-reuse|get|fields|traced|leave-stream …")
    }
    print(line)
} catch {
    FileHandle.standardError.write(Data("URLSessionProbe: \(error)\n".utf8))
    exit(2)
}
