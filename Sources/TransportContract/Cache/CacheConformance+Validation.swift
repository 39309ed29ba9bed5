import Foundation
import Requests

// MARK: - Validation (RFC 9111 §4.3) and the request's directives (§5.2.1)

extension CacheConformance {
    static let validation: [Case] = [
        Case("§4.3.1 ETag: a stale response is validated with If-None-Match; the 304 updates the stored fields (§4.3.4)") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=10", "ETag": "\"v1\"", "X-Version": "1", "Content-Type": "text/plain"], body: "one"),
                f.answer(304, ["Cache-Control": "max-age=60", "ETag": "\"v1\"", "X-Version": "2"], dated: 20),
                f.answer(body: "unexpected"),
            ])
            _ = try await f.send(url)
            f.clock.advance(20)
            let revalidated = try await f.send(url)
            try expectAnswer(revalidated, cache: .revalidated, body: "one", "after the 304")
            try expect(revalidated.headers.value(for: "X-Version") == "2", "X-Version is \(revalidated.headers.value(for: "X-Version") ?? "missing"), expected the 304's 2")
            try expect(revalidated.headers.value(for: "Content-Type") == "text/plain", "the stored Content-Type is kept")
            try expect(revalidated.headers.values(for: "X-Version").count == 1, "the 304's field replaces the stored one")
            f.clock.advance(30)
            try expectAnswer(try await f.send(url), cache: .hit, body: "one", "fresh again by the 304's max-age")
            let received = try await f.received(url)
            try expectReceived(received, 2, "one validation")
            try expect(received[1].headers.value(for: "If-None-Match") == "\"v1\"", "If-None-Match was \(received[1].headers.value(for: "If-None-Match") ?? "missing")")
        },
        Case("§4.3.4 a 304 freshens the age: the origin's old Age and Date no longer count") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=60", "Age": "50", "ETag": "\"a\""], body: "one"),
                ScriptedAnswer(status: 304, headers: ["ETag": "\"a\""]),
            ])
            _ = try await f.send(url)
            f.clock.advance(20)
            try expectAnswer(try await f.send(url), cache: .revalidated, body: "one", "age 70 of 60")
            f.clock.advance(30)
            let hit = try await f.send(url)
            try expectAnswer(hit, cache: .hit, body: "one", "30 s after the 304")
            try expect(hit.headers.value(for: "Age") == "30", "Age is \(hit.headers.value(for: "Age") ?? "missing"), expected 30")
        },
        Case("§4.3.1 Last-Modified: a stale response is validated with If-Modified-Since") { c in
            let f = try c.fixture()
            let modified = f.date(-5000)
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=0", "Last-Modified": modified], body: "one"),
                f.answer(304, ["Cache-Control": "max-age=0"]),
            ])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .revalidated, body: "one", "after the 304")
            let received = try await f.received(url)
            try expect(received.count == 2 && received[1].headers.value(for: "If-Modified-Since") == modified,
                       "If-Modified-Since was \(received.last?.headers.value(for: "If-Modified-Since") ?? "missing"), expected \(modified)")
        },
        Case("§4.3.3 a full response to a validation replaces the stored one") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=0", "ETag": "\"v1\""], body: "one"),
                f.answer(200, ["Cache-Control": "max-age=0", "ETag": "\"v2\""], body: "two"),
                f.answer(304, ["Cache-Control": "max-age=0", "ETag": "\"v2\""]),
            ])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "the changed resource")
            try expectAnswer(try await f.send(url), cache: .revalidated, body: "two", "the new one validated")
            let received = try await f.received(url)
            try expect(received.count == 3 && received[2].headers.value(for: "If-None-Match") == "\"v2\"", "the newer ETag is the one validated")
        },
        Case("§5.2.2.4 no-cache in the response: validated before every reuse") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "no-cache, max-age=600", "ETag": "\"a\""], body: "one"),
                f.answer(304, ["ETag": "\"a\""]),
            ])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), cache: .revalidated, body: "one", "fresh but no-cache")
            try expectAnswer(try await f.send(url), cache: .revalidated, body: "one", "and again")
            try expectReceived(try await f.received(url), 3, "no-cache")
        },
        Case("§5.2.2.2 must-revalidate: once stale, validated even when the request accepts stale") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=1, must-revalidate", "ETag": "\"a\""], body: "one"),
                f.answer(304, ["ETag": "\"a\""]),
            ])
            _ = try await f.send(url)
            f.clock.advance(5)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "max-stale=100"]), cache: .revalidated, body: "one", "stale, max-stale=100")
        },
    ]

    static let requestDirectives: [Case] = [
        Case("§5.2.1.4 no-cache in the request (and §5.4 Pragma: no-cache): validated although fresh") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=600", "ETag": "\"a\""], body: "one"), f.answer(304, ["ETag": "\"a\""])])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "no-cache"]), cache: .revalidated, body: "one", "Cache-Control: no-cache")
            try expectAnswer(try await f.send(url, headers: ["Pragma": "no-cache"]), cache: .revalidated, body: "one", "Pragma: no-cache")
            try expectAnswer(try await f.send(url), cache: .hit, body: "one", "a plain request")
        },
        Case("§5.2.1.1 max-age in the request: an older response is not used") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=600"], body: "one"), f.answer(200, ["Cache-Control": "max-age=600"], body: "two", dated: 30)])
            _ = try await f.send(url)
            f.clock.advance(30)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "max-age=40"]), cache: .hit, body: "one", "age 30, max-age=40")
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "max-age=10"]), cache: .miss, body: "two", "age 30, max-age=10")
        },
        Case("§5.2.1.2 max-stale: a response stale by less is used") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=10"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            f.clock.advance(15)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "max-stale=10"]), cache: .staleHit, body: "one", "stale by 5, max-stale=10")
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "max-stale"]), cache: .staleHit, body: "one", "max-stale without a value")
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "max-stale=2"]), cache: .miss, body: "two", "stale by 5, max-stale=2")
        },
        Case("§5.2.1.3 min-fresh: a response fresh for less is not used") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(body: "two")])
            _ = try await f.send(url)
            f.clock.advance(40)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "min-fresh=10"]), cache: .hit, body: "one", "20 s left, min-fresh=10")
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "min-fresh=30"]), cache: .miss, body: "two", "20 s left, min-fresh=30")
        },
        Case("§5.2.1.7 only-if-cached: a stored response answers, else a 504 and nothing is sent") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one")])
            let empty = try await f.send(url, headers: ["Cache-Control": "only-if-cached"])
            try expectAnswer(empty, status: 504, cache: .miss, "nothing stored")
            try expectReceived(try await f.received(url), 0, "only-if-cached with nothing stored")
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "only-if-cached"]), cache: .hit, body: "one", "stored")
        },
        Case("§4.3.5 HEAD is answered from a stored GET, without a body") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "X-Kind": "get"], body: "one")])
            _ = try await f.send(url)
            let head = try await f.send(url, method: .head)
            try expectAnswer(head, cache: .hit, body: "", "HEAD")
            try expect(head.headers.value(for: "X-Kind") == "get", "the stored GET's fields answer the HEAD")
            try expectReceived(try await f.received(url), 1, "HEAD from the stored GET")
        },
        Case("§4.3.5 a HEAD's 200 freshens the stored GET it matches, and retires one it does not") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=1", "ETag": "\"v1\""], body: "one"),
                f.answer(200, ["Cache-Control": "max-age=60", "ETag": "\"v1\"", "X-Seen": "head", "Content-Length": "3"]),
            ])
            _ = try await f.send(url)
            f.clock.advance(2)
            try expectAnswer(try await f.send(url, method: .head), cache: .miss, body: "", "HEAD of a stale GET")
            let freshened = try await f.send(url)
            try expectAnswer(freshened, cache: .hit, body: "one", "the GET the HEAD freshened")
            try expect(freshened.headers.value(for: "X-Seen") == "head", "the HEAD's fields update the stored GET")
            try expectReceived(try await f.received(url), 2, "GET, HEAD")
            let other = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=1", "ETag": "\"v1\""], body: "one"),
                f.answer(200, ["Cache-Control": "max-age=60", "ETag": "\"v2\"", "Content-Length": "3"]),
                f.answer(200, ["Cache-Control": "max-age=60", "ETag": "\"v2\""], body: "two"),
            ])
            _ = try await f.send(other)
            f.clock.advance(2)
            _ = try await f.send(other, method: .head)
            try expectAnswer(try await f.send(other), cache: .miss, body: "two", "the GET after a HEAD with another ETag")
            let last = try await f.received(other).last
            try expect(last?.headers.value(for: "If-None-Match") == nil,
                       "the stored GET the HEAD retired was validated instead of dropped: \(last?.headers.value(for: "If-None-Match") ?? "")")
        },
        Case("a caller's own conditional request goes to the origin, and its 304 comes back") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "ETag": "\"a\""], body: "one"), f.answer(304, ["ETag": "\"a\""])])
            _ = try await f.send(url)
            let own = try await f.send(url, headers: ["If-None-Match": "\"a\""])
            try expectAnswer(own, status: 304, cache: nil, "the caller's If-None-Match")
        },
    ]
}
