import Foundation
import Requests

// MARK: - Streamed bodies, concurrency and what the cache tells

extension CacheConformance {
    static let bodies: [Case] = [
        Case("a streamed body is stored as it is read, once read whole; a body left midway is not stored") { c in
            let f = try c.fixture()
            let big = String(repeating: "0123456789abcdef", count: 16_384)
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: big), f.answer(200, ["Cache-Control": "max-age=60"], body: "second")])
            let first = try await f.session.stream(url)
            // Leave after the first chunk: the entry must not be stored.
            for try await _ in first.body { break }
            try expectAnswer(try await f.send(url), cache: .miss, body: "second", "after a stream left midway")
            let abandoned = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: big), f.answer(body: "unexpected")])
            let whole = try await f.session.stream(abandoned)
            try expect(whole.response.cacheStatus == .miss, "the stream's head says miss")
            let data = try await whole.body.collect()
            try expect(data.count == big.utf8.count, "the stream delivered \(data.count) bytes of \(big.utf8.count)")
            let hit = try await f.send(abandoned)
            try expectAnswer(hit, cache: .hit, "after a stream read whole")
            try expect(hit.data == Data(big.utf8), "the stored body is the streamed one, byte for byte")
            let streamedHit = try await f.session.stream(abandoned)
            try expect(streamedHit.response.cacheStatus == .hit, "a stream answered from the cache")
            try expect(try await streamedHit.body.collect() == Data(big.utf8), "a stored body streams back whole")
        },
        Case("200 concurrent identical GETs: 200 correct answers, one network request") { c in
            let f = try c.fixture()
            var answer = f.answer(200, ["Cache-Control": "max-age=600"], body: "shared")
            answer.delay = 0.2
            let url = try await f.origin.script([answer, f.answer(body: "unexpected")])
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await f.send(url).text }
                }
                var bodies: [String] = []
                for try await body in group { bodies.append(body) }
                return bodies
            }
            try expect(bodies.count == 200 && bodies.allSatisfy { $0 == "shared" }, "answers: \(Set(bodies))")
            try expectReceived(try await f.received(url), 1, "200 concurrent GETs")
        },
        Case("monitors hear of answers from the cache; LoggingMonitor writes them") { c in
            let lines = LineLog()
            let f = try c.fixture(monitors: [LoggingMonitor(write: { lines.append($0) })])
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "ETag": "\"a\""], body: "one"), f.answer(304, ["ETag": "\"a\""])])
            _ = try await f.send(url)
            f.clock.advance(3)
            _ = try await f.send(url)
            // The 304 is dated when it was scripted, 3 s ago by the clock: its age is 3 s.
            _ = try await f.send(url, policy: .revalidate)
            let cached = lines.lines.filter { $0.hasPrefix("= ") }
            try expect(cached.count == 2, "cache lines: \(cached)")
            try expect(cached.first.map { $0.hasPrefix("= 200 GET \(url.absoluteString): 3 bytes from the cache (hit, age 3 s)") } == true, "the hit's line: \(cached.first ?? "none")")
            try expect(cached.last.map { $0.contains("(revalidated, age 3 s)") } == true, "the revalidation's line: \(cached.last ?? "none")")
            try expect(lines.lines.filter { $0.hasPrefix("curl ") }.count == 2, "two trips reached the transport: \(lines.lines)")
        },
    ]
}

/// Lines a ``LoggingMonitor`` wrote, kept for a check to read.
final class LineLog: Sendable {
    private let stored = Guarded<[String]>([])

    func append(_ line: String) {
        stored.withLock { $0.append(line) }
    }

    var lines: [String] { stored.withLock { $0 } }
}
