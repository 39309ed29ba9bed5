import Foundation
import Requests
import RequestsTesting

// MARK: - StubEngine

/// A `StubTransport` that answers the loopback server's paths the stress run uses, in memory:
/// echoes, bytes, redirects, flaky answers, drips, stalls, resets and event streams.
enum StubEngine {
    static func make() -> StubTransport {
        let stub = StubTransport()
        let attempts = Guarded<[String: Int]>([:])
        let scripts = Guarded<[String: Int]>([:])
        stub.on(respond: .computed { request in
            let parts = request.url.path.split(separator: "/").map(String.init)
            let head = parts.first ?? ""
            let arg = parts.count > 1 ? parts[1] : ""
            switch head {
            case "anything", "delay":
                let answer = StubResponse.data(request.body)
                return head == "delay" ? answer.delayed(by: .milliseconds(10)) : answer
            case "bytes":
                return .data(Data(repeating: 7, count: Int(arg) ?? 0))
            case "redirect":
                let left = Int(arg) ?? 0
                return left > 0 ? .status(302, headers: ["Location": "/redirect/\(left - 1)"]) : .text("done")
            case "flaky":
                let times = parts.count > 2 ? Int(parts[2]) ?? 0 : 0
                let attempt = attempts.withLock { counts in
                    counts[arg, default: 0] += 1
                    return counts[arg, default: 0]
                }
                return attempt > times ? .text("ok") : (attempt % 2 == 0 ? .reset : .status(503))
            case "drip":
                return .stream(Array(repeating: Data(repeating: 1, count: 512), count: 8), every: .milliseconds(3))
            case "stream":
                let lines = (0..<(Int(arg) ?? 0)).map { Data("{\"id\": \($0)}\n".utf8) }
                return .stream(lines)
            case "stall-after-head", "informational", "no-response":
                return .stream([Data("x".utf8)], every: .seconds(30)).delayed(by: .seconds(30))
            case "stall-in-body":
                return .stream([Data("0123456789".utf8), Data("rest".utf8)], every: .seconds(30))
            case "reset-in-body", "close-in-body", "truncated-chunked":
                return .stream([Data(repeating: 2, count: 1000)], failingWith: .connectionLost)
            case "reset-in-head":
                return .reset
            case "eventsource":
                // Each connection of a stream: a broken one, a refused one, then the end.
                let connection = attempts.withLock { counts in
                    counts["events-" + arg, default: 0] += 1
                    return counts["events-" + arg, default: 0]
                }
                let headers: HTTPHeaders = ["Content-Type": "text/event-stream"]
                let first = Int(request.headers["Last-Event-ID"] ?? "") ?? 0
                let events = (first + 1...first + 2).map { Data("id: \($0)\ndata: event \($0)\n\n".utf8) }
                switch connection {
                case 1: return .stream(events + [Data("id: 9\ndata: half".utf8)], failingWith: .connectionLost, headers: headers)
                case 2: return .reset
                case 3: return .stream(events, every: .milliseconds(2), headers: headers)
                default: return .status(204)
                }
            case "script-set":
                return .text("{\"ok\": true}")
            case "script":
                if arg.hasPrefix("bearer") {
                    let count = scripts.withLock { counts in
                        counts[arg, default: 0] += 1
                        return counts[arg, default: 0]
                    }
                    return count == 1 ? .status(401, headers: ["WWW-Authenticate": "Bearer"]) : .text("ok")
                }
                return .text("cached", headers: ["Cache-Control": "max-age=1"]).delayed(by: .milliseconds(20))
            default:
                return .text("ok")
            }
        })
        return stub
    }
}
