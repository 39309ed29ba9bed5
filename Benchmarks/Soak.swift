import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackFixture
import Requests

// MARK: - Soak

/// `Benchmarks --soak [N]`: N requests (10,000 by default) through one `Session`, 64 in flight, to
/// the loopback server. Each carries a unique id in its query and in its JSON body, and each
/// response must echo both: the run counts requests lost (an error) and mismatched (another
/// request's echo), and compares the process's resident memory before and after.
///
/// With `SOAK_URLSESSION=1` the same requests go through `URLSession.shared.data(for:)` instead,
/// which shows what FoundationNetworking itself does to the process's memory.
struct Soak {
    let count: Int
    let inFlight = 64

    struct Outcome {
        var lost = 0
        var mismatched = 0
        var firstProblem: String?
    }

    /// Runs the soak and prints its figures; returns whether it passed.
    func run() async throws -> Bool {
        let server = try LoopbackServer()
        defer { server.stop() }
        let session = Session(cookies: .none)
        // Warm up: connections, caches and allocator arenas reach their working size first.
        _ = try await send(0..<(inFlight * 4), session, server)
        let before = Self.residentMemory()
        let start = ContinuousClock.now
        let outcome = try await send(0..<count, session, server)
        let elapsed = ContinuousClock.now - start
        // URLSession lets go of finished tasks on its own queue, shortly after they complete.
        try await Task.sleep(for: .seconds(1))
        let after = Self.residentMemory()
        let growth = before.flatMap { before in after.map { Double($0 - before) / Double(before) } }
        print("soak: \(count) requests, \(inFlight) in flight, \(String(format: "%.1f", Double(count) / (Measure.nanoseconds(elapsed) / 1e9))) requests/s")
        print("  lost:       \(outcome.lost)")
        print("  mismatched: \(outcome.mismatched)")
        if let before, let after, let growth {
            print("  memory:     \(PeakMemory.format(before)) before, \(PeakMemory.format(after)) after (\(String(format: "%+.1f", growth * 100)) %)")
        } else {
            print("  memory:     not measured on this platform")
        }
        if let problem = outcome.firstProblem { print("  first problem: \(problem)") }
        return outcome.lost == 0 && outcome.mismatched == 0 && (growth ?? 0) <= 0.10
    }

    private func send(_ range: Range<Int>, _ session: Session, _ server: LoopbackServer) async throws -> Outcome {
        try await withThrowingTaskGroup(of: String?.self) { group in
            var outcome = Outcome()
            var next = range.lowerBound
            func add() {
                let number = next
                next += 1
                group.addTask { await Self.exchange(number, session, server) }
            }
            while next < range.upperBound, next - range.lowerBound < inFlight { add() }
            while let problem = try await group.next() {
                if let problem {
                    if problem.hasPrefix("lost") { outcome.lost += 1 } else { outcome.mismatched += 1 }
                    outcome.firstProblem = outcome.firstProblem ?? problem
                }
                if next < range.upperBound { add() }
            }
            return outcome
        }
    }

    /// One request; `nil` when its response echoes its own id, else what went wrong.
    private static func exchange(_ number: Int, _ session: Session, _ server: LoopbackServer) async -> String? {
        struct Echo: Decodable {
            let query: String
            let json: Body?
        }
        struct Body: Decodable {
            let id: String
            let n: Int
        }
        let id = UUID().uuidString
        if ProcessInfo.processInfo.environment["SOAK_URLSESSION"] == "1" {
            do {
                var request = URLRequest(url: server.url("/anything?id=\(id)"))
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = try JSONSerialization.data(withJSONObject: ["id": id, "n": number])
                let (data, _) = try await URLSession.shared.data(for: request)
                let echo = try JSONDecoder().decode(Echo.self, from: data)
                return echo.query == "id=\(id)" && echo.json?.id == id ? nil : "mismatch: \(number)"
            } catch {
                return "lost: request \(number): \(error)"
            }
        }
        do {
            let response = try await session.request(server.url("/anything?id=\(id)"), method: .post,
                                                     parameters: ["id": id, "n": number], encoding: JSONEncoding.default)
            let echo = try response.validate().decode(Echo.self)
            guard echo.query == "id=\(id)", echo.json?.id == id, echo.json?.n == number else {
                return "mismatch: request \(number) \(id) got query \(echo.query), body \(String(describing: echo.json))"
            }
            return nil
        } catch {
            return "lost: request \(number): \(error)"
        }
    }

    /// The process's resident memory now, in bytes (Linux; `nil` elsewhere), after handing the
    /// allocator's free pages back to the system: glibc keeps freed heap mapped in its arenas,
    /// which would count memory nothing uses any more.
    static func residentMemory() -> Int? {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        return PeakMemory.statusField("VmRSS:")
        #else
        return nil
        #endif
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (declared in `<malloc.h>`, which the Glibc module does not export).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
