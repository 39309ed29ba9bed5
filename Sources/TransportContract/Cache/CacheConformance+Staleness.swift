import Foundation
import Requests

// MARK: - Invalidation (RFC 9111 §4.4), RFC 5861, and per-request policies

extension CacheConformance {
    static let invalidation: [Case] = [
        Case("§4.4 a successful unsafe method invalidates its target URI") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(204), f.answer(200, ["Cache-Control": "max-age=60"], body: "two"),
            ])
            _ = try await f.send(url)
            let post = try await f.send(url, method: .post)
            try expectAnswer(post, status: 204, cache: nil, "the POST")
            try expectAnswer(try await f.send(url), cache: .miss, body: "two", "after the POST")
        },
        Case("§4.4 Location and Content-Location of the same origin are invalidated too") { c in
            let f = try c.fixture()
            let first = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(body: "one again")])
            let second = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "two"), f.answer(body: "two again")])
            let target = try await f.origin.script([f.answer(201, ["Location": first.path, "Content-Location": second.absoluteString])])
            _ = try await f.send(first)
            _ = try await f.send(second)
            _ = try await f.send(target, method: .put)
            try expectAnswer(try await f.send(first), cache: .miss, body: "one again", "the Location")
            try expectAnswer(try await f.send(second), cache: .miss, body: "two again", "the Content-Location")
        },
        Case("§4.4 an unsafe method that fails invalidates nothing") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(500, body: "failed")])
            _ = try await f.send(url)
            _ = try await f.send(url, method: .delete)
            try expectAnswer(try await f.send(url), cache: .hit, body: "one", "after a failed DELETE")
        },
    ]

    static let staleExtensions: [Case] = [
        Case("RFC 5861 stale-while-revalidate: the stale response answers at once and is revalidated in the background") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=1, stale-while-revalidate=60"], body: "one"),
                f.answer(200, ["Cache-Control": "max-age=60"], body: "two", dated: 5),
            ])
            _ = try await f.send(url)
            f.clock.advance(5)
            try expectAnswer(try await f.send(url), cache: .staleHit, body: "one", "within the window")
            // The background request and its storing take what the machine takes: poll, bounded.
            let limit = ContinuousClock.now + .seconds(20)
            var latest = try await f.send(url, headers: ["Cache-Control": "only-if-cached"])
            while latest.text != "two", ContinuousClock.now < limit {
                try await Task.sleep(for: .milliseconds(20))
                latest = try await f.send(url, headers: ["Cache-Control": "only-if-cached"])
            }
            try expectAnswer(latest, cache: .hit, body: "two", "after the background revalidation")
            try expectReceived(try await f.received(url), 2, "one background revalidation")
        },
        Case("RFC 5861 stale-if-error: a 5xx or a failed connection gets the stale response within the window") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([
                f.answer(200, ["Cache-Control": "max-age=1, stale-if-error=60"], body: "one"), f.answer(503, body: "down"), .drop, f.answer(503, body: "down"),
            ])
            _ = try await f.send(url)
            f.clock.advance(5)
            try expectAnswer(try await f.send(url), cache: .staleHit, body: "one", "a 503")
            try expectAnswer(try await f.send(url), cache: .staleHit, body: "one", "a dropped connection")
            f.clock.advance(100)
            try expectAnswer(try await f.send(url), status: 503, cache: .miss, body: "down", "past the window")
        },
        Case("RFC 5861 stale-if-error never answers for a response that must be validated (no-cache, CachePolicy.revalidate)") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "no-cache, stale-if-error=600", "ETag": "\"a\""], body: "one"), f.answer(503, body: "down")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url), status: 503, cache: .miss, body: "down", "no-cache and a 503")
            let other = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=600, stale-if-error=600"], body: "one"), f.answer(503, body: "down")])
            _ = try await f.send(other)
            try expectAnswer(try await f.send(other, policy: .revalidate), status: 503, cache: .miss, body: "down", "revalidate and a 503")
        },
        Case("RFC 5861 stale-if-error in the request works the same") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=1"], body: "one"), f.answer(502, body: "down")])
            _ = try await f.send(url)
            f.clock.advance(5)
            try expectAnswer(try await f.send(url, headers: ["Cache-Control": "stale-if-error=30"]), cache: .staleHit, body: "one", "stale-if-error=30")
            try expectAnswer(try await f.send(url), status: 502, cache: .miss, body: "down", "without it")
        },
    ]

    static let policies: [Case] = [
        Case("CachePolicy.reloadIgnoringCacheData goes to the origin and stores what it returns") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(200, ["Cache-Control": "max-age=60"], body: "two")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url, policy: .reloadIgnoringCacheData), cache: .miss, body: "two", "reload")
            try expectAnswer(try await f.send(url), cache: .hit, body: "two", "stored by the reload")
        },
        Case("CachePolicy.revalidate validates a fresh response") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60", "ETag": "\"a\""], body: "one"), f.answer(304, ["ETag": "\"a\""])])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url, policy: .revalidate), cache: .revalidated, body: "one", "revalidate")
        },
        Case("CachePolicy.returnCacheDataElseLoad and returnCacheDataDontLoad use a stale response; without one, load or 504") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=1"], body: "one"), f.answer(body: "two")])
            let none = try await f.send(url, policy: .returnCacheDataDontLoad)
            try expectAnswer(none, status: 504, cache: .miss, "nothing stored, don't load")
            try expectAnswer(try await f.send(url, policy: .returnCacheDataElseLoad), cache: .miss, body: "one", "nothing stored, load")
            f.clock.advance(100)
            try expectAnswer(try await f.send(url, policy: .returnCacheDataElseLoad), cache: .staleHit, body: "one", "stale, else load")
            try expectAnswer(try await f.send(url, policy: .returnCacheDataDontLoad), cache: .staleHit, body: "one", "stale, don't load")
            try expectReceived(try await f.received(url), 1, "the stale-accepting policies")
        },
        Case("§5.2.2.2 must-revalidate holds under the stale-accepting policies: validated, or 504 without the network") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=1, must-revalidate", "ETag": "\"a\""], body: "one"), f.answer(304, ["ETag": "\"a\""])])
            _ = try await f.send(url)
            f.clock.advance(10)
            try expectAnswer(try await f.send(url, policy: .returnCacheDataDontLoad), status: 504, cache: .miss, "stale, must-revalidate, don't load")
            try expectAnswer(try await f.send(url, policy: .returnCacheDataElseLoad), cache: .revalidated, body: "one", "stale, must-revalidate, else load")
            let noCache = try await f.origin.script([f.answer(200, ["Cache-Control": "no-cache, max-age=600", "ETag": "\"b\""], body: "two"), f.answer(304, ["ETag": "\"b\""])])
            _ = try await f.send(noCache)
            try expectAnswer(try await f.send(noCache, policy: .returnCacheDataElseLoad), cache: .revalidated, body: "two", "fresh, no-cache, else load")
        },
        Case("CachePolicy.disabled neither reads nor writes the cache") { c in
            let f = try c.fixture()
            let url = try await f.origin.script([f.answer(200, ["Cache-Control": "max-age=60"], body: "one"), f.answer(200, ["Cache-Control": "max-age=60"], body: "two")])
            _ = try await f.send(url)
            try expectAnswer(try await f.send(url, policy: .disabled), cache: nil, body: "two", "disabled")
            try expectAnswer(try await f.send(url), cache: .hit, body: "one", "the stored response is untouched")
        },
    ]
}
