import Foundation
import Requests

// MARK: - Freshness and storing (RFC 9111 §3, §4.2)

extension CacheConformance {
    static let freshness: [Case] = [
        Case("§4.2.1 max-age: a fresh response answers from the cache, with its current Age (§5.1)") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(body: "two")])
            try expectAnswer(try await f.send(url), cache: .miss, body: "one", "first request")
            f.clock.advance(10)
            let second = try await f.send(url)
            try expectAnswer(second, cache: .hit, body: "one", "10 s later")
            try expect(second.headers.value(for: "Age") == "10", "Age is \(second.headers.value(for: "Age") ?? "missing"), expected 10")
            try expectReceived(try await f.received(url), 1, "a fresh hit")
        },
        Case("§4.2 a response past its max-age goes to the origin again (no validator: unconditionally)") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(200, ["Cache-Control": "max-age=60"], body: "two", dated: 61),
            ])
            _ = try await f.send(url)
            f.clock.advance(61)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "61 s later")
            f.clock.advance(1)
            try expectAnswer(try await f.send(url), cache: .hit, body: "two", "the new response is stored")
            let received = try await f.received(url)
            try expectReceived(received, 2, "stale, then fresh again")
            try expect(received[1].headers.value(for: "If-None-Match") == nil, "a response without validators is not validated")
        },
        Case("§4.2.1 Expires counts from Date") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Expires": f.date(30)], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            f.clock.advance(20)
            try expectAnswer(try await f.send(url), cache: .hit, body: "one", "20 s of 30")
            f.clock.advance(11)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "31 s of 30")
        },
        Case("§5.3 an Expires that is not a date (\"0\") is in the past") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Expires": "0"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "Expires: 0")
        },
        Case("§4.2.3 the origin's Age counts towards the response's age") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "Age": "50"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            f.clock.advance(5)
            let hit = try await f.send(url)
            try expectAnswer(hit, cache: .hit, body: "one", "age 55 of 60")
            try expect(hit.headers.value(for: "Age") == "55", "Age is \(hit.headers.value(for: "Age") ?? "missing"), expected 55")
            f.clock.advance(6)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "age 61 of 60")
        },
        Case("§5.1 an Age that is a list counts its first member") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=3600", "Age": "7200, 0"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "Age 7200 of max-age 3600, written \"7200, 0\"")
        },
        Case("§4.2.3 a Date in the past makes the response older (apparent age)") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one", dated: -58), f.answer(body: "two")])
            _ = try await f.send(url)
            f.clock.advance(3)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "dated 61 s ago")
        },
        Case("§4.2.2 heuristic freshness: 10% of the time since Last-Modified") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Last-Modified": f.date(-1000)], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            f.clock.advance(90)
            try expectAnswer(try await f.send(url), cache: .hit, body: "one", "90 s of a heuristic 100")
            f.clock.advance(20)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "110 s of a heuristic 100")
        },
    ]

    /// RFC 9111 §5.1: an `Age` that is not a non-negative integer is ignored (cache-tests.fyi's
    /// `age-parse-nonnumeric`, `age-parse-negative`, `age-parse-float`, and a unit suffix): the
    /// response is as fresh as its `max-age` and `Date` make it.
    static let invalidAges: [Case] = ["abc", "-7200", "7200.0", "7200s"].map { age in
        Case("§5.1 an invalid Age (\(age)) is ignored") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=3600", "Age": age], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            let again = try await f.send(url)
            try expectAnswer(again, cache: .hit, body: "one", "Age: \(age), ignored, within max-age 3600")
            let sent = again.headers.value(for: "Age").flatMap { Int($0) } ?? -1
            try expect((0..<60).contains(sent), "Age sent is \(again.headers.value(for: "Age") ?? "missing"), expected the time since the response, not \(age)")
        }
    }

    static let storing: [Case] = [
        Case("§3 no-store in the response: not stored") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "no-store, max-age=60"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "after no-store")
        },
        Case("§5.2.1.5 no-store in the request: the response is not stored") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url, headers: ["Cache-Control": "no-store"])
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "after a no-store request")
        },
        Case("§5.2.2.7 private, and §3.5 a request with Authorization: a private cache stores them") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "private, max-age=60"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url, headers: ["Authorization": "Bearer abc"])
            try expectAnswer(try await f.send(url, headers: ["Authorization": "Bearer abc"]), cache: .hit, body: "one", "private, with Authorization")
        },
        Case("§3 a status not cacheable by default is stored only with explicit freshness") { c in
            let f = try c.fixture()
            let plain = try await f.origin.script([f.answer(201, ["Last-Modified": f.date(-1000)], body: "one"), f.answer(201, body: "two")])
            _ = try await f.send(plain)
            try expectAnswer(try await f.send(plain), status: 201, cache: .miss, body: "two", "201 with only Last-Modified")
            let explicit = try await f.origin.script([f.answer(201, ["Cache-Control": "max-age=60"], body: "one"), f.answer(201, body: "two")])
            _ = try await f.send(explicit)
            try expectAnswer(try await f.send(explicit), status: 201, cache: .hit, body: "one", "201 with max-age")
        },
        Case("§3.1 Set-Cookie is not stored: an answer from the cache sets no cookie again") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "Set-Cookie": "session=abc; Path=/"], body: "one")])
            let first = try await f.send(url)
            try expect(first.headers.value(for: "Set-Cookie") != nil, "the network's response keeps its Set-Cookie")
            let hit = try await f.send(url)
            try expectAnswer(hit, cache: .hit, body: "one", "the stored response")
            try expect(hit.headers.value(for: "Set-Cookie") == nil, "the stored response kept Set-Cookie")
        },
        Case("§3.1 the proxy authentication fields are not stored") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, [
                "Cache-Control": "max-age=60", "Proxy-Authenticate": "Basic realm=\"proxy\"", "Proxy-Authentication-Info": "nextnonce=\"abc\"",
            ], body: "one")])
            _ = try await f.send(url)
            let hit = try await f.send(url)
            try expectAnswer(hit, cache: .hit, body: "one", "the stored response")
            for name in ["Proxy-Authenticate", "Proxy-Authentication-Info"] {
                try expect(hit.headers.value(for: name) == nil, "the stored response kept \(name)")
            }
        },
        Case("§3.5 responses to different credentials are different entries") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "private, max-age=60"], body: "alice's"), f.answer(200, ["Cache-Control": "private, max-age=60"], body: "bob's"),
            ])
            try expectAnswer(try await f.send(url, headers: ["Authorization": "Bearer alice"]), cache: .miss, body: "alice's", "alice")
            try expectAnswer(try await f.send(url, headers: ["Authorization": "Bearer bob"]), cache: .miss, body: "bob's", "bob")
            try expectAnswer(try await f.send(url, headers: ["Authorization": "Bearer alice"]), cache: .hit, body: "alice's", "alice again")
            try expectAnswer(try await f.send(url, headers: ["Authorization": "Bearer bob"]), cache: .hit, body: "bob's", "bob again")
        },
        Case("§3.3 a partial response (206) is not stored") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(206, ["Cache-Control": "max-age=60", "Content-Range": "bytes 0-2/10"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "after a 206")
        },
        Case("§4.1 Vary: one variant per value of the named field; Vary: * is never reused") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], body: "english"),
                f.answer(200, ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], body: "french"),
                f.answer(body: "third"),
            ])
            try expectAnswer(try await f.send(url, headers: ["Accept-Language": "en"]), cache: .miss, body: "english", "en")
            try expectAnswer(try await f.send(url, headers: ["Accept-Language": "fr"]), cache: .miss, body: "french", "fr")
            try expectAnswer(try await f.send(url, headers: ["Accept-Language": "en"]), cache: .hit, body: "english", "en again")
            try expectAnswer(try await f.send(url, headers: ["Accept-Language": "fr"]), cache: .hit, body: "french", "fr again")
            try expectAnswer(try await f.send(url), cache: .miss, body: "third", "no Accept-Language")
            let star = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "Vary": "*"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(star)
            try expectAnswer(try await f.send(star), cache: .miss, body: "two", "Vary: *")
        },
    ]
}
