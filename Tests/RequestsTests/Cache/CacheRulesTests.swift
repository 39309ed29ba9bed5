import Foundation
@testable import Requests
import Testing

/// The cache's rules that need no I/O: storing fields, merging a 304, origins, credentials.
@Suite struct CacheRulesTests {
    @Test func storedFieldsLeaveOutHopByHopConnectionNamedAndSetCookie() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Connection": "keep-alive, X-Hop", "Keep-Alive": "timeout=5"]
        headers.append(name: "X-Hop", value: "1")
        headers.append(name: "Set-Cookie", value: "session=abc")
        headers.append(name: "X-Kept", value: "a")
        headers.append(name: "X-Kept", value: "b")
        headers.append(name: "Transfer-Encoding", value: "chunked")
        let stored = CacheRules.storedFields(headers)
        #expect(stored.map(\.name) == ["Content-Type", "X-Kept", "X-Kept"])
        #expect(stored.values(for: "X-Kept") == ["a", "b"])
    }

    @Test func aMergeKeepsTheStoredLengthAndStartsTheAgeAfresh() {
        let arrived = Date(timeIntervalSince1970: 1_800_000_000)
        let stored: HTTPHeaders = ["Content-Length": "3", "ETag": "\"a\"", "Age": "100", "Date": "Mon, 01 Jan 2024 00:00:00 GMT", "X-Old": "1"]
        let merged = CacheRules.merged(stored, with: ["Content-Length": "0", "ETag": "\"a\"", "X-Old": "2", "Connection": "close"], arrived: arrived)
        #expect(merged.value(for: "Content-Length") == "3")
        #expect(merged.values(for: "X-Old") == ["2"])
        #expect(merged.value(for: "Age") == nil)
        #expect(merged.value(for: "Date") == HTTPDate.format(arrived))
        #expect(merged.value(for: "Connection") == nil)
        let dated = CacheRules.merged(stored, with: ["Date": "Tue, 02 Jan 2024 00:00:00 GMT", "Age": "7"], arrived: arrived)
        #expect(dated.value(for: "Date") == "Tue, 02 Jan 2024 00:00:00 GMT")
        #expect(dated.value(for: "Age") == "7")
    }

    @Test(arguments: [
        ("https://a.example/x", "https://a.example:443/y", true),
        ("http://a.example/x", "http://A.EXAMPLE:80/y", true),
        ("http://a.example/x", "https://a.example/y", false),
        ("http://a.example:8080/x", "http://a.example/y", false),
        ("http://a.example/x", "http://b.example/x", false),
    ])
    func originsCompareEffectivePorts(_ lhs: String, _ rhs: String, _ same: Bool) throws {
        #expect(CacheRules.sameOrigin(try #require(URL(string: lhs)), try #require(URL(string: rhs))) == same)
    }

    @Test func credentialsAreAVariantOfTheirOwnAndAreNotStoredInTheClear() {
        let alice = CacheRules.varyValues([], of: ["Authorization": "Basic YWxpY2U6eA=="])
        let bob = CacheRules.varyValues([], of: ["Authorization": "Basic Ym9iOnk="])
        #expect(alice != bob)
        #expect(CacheRules.varyValues([], of: [:]).isEmpty)
        #expect(!alice.values.contains { $0?.contains("YWxpY2U") == true })
        let entry = CacheEntry(key: "k", statusCode: 200, headers: [:], varyValues: alice, requestTime: Date(), responseTime: Date())
        #expect(CacheRules.matches(entry, ["Authorization": "Basic YWxpY2U6eA=="]))
        #expect(!CacheRules.matches(entry, ["Authorization": "Basic Ym9iOnk="]))
        #expect(!CacheRules.matches(entry, [:]))
    }

    @Test(arguments: ["If-None-Match", "if-modified-since", "If-Match", "If-Unmodified-Since", "If-Range", "range"])
    func aConditionalOrPartialRequestIsTheCallers(name: String) {
        #expect(CacheRules.inspect([name: "x"]).isConditional)
    }

    @Test func theRequestsDirectivesAreReadWithPragmaOnlyWithoutCacheControl() {
        #expect(!CacheRules.inspect(["Accept": "*/*", "X-Client": "a", "Authorization": "b"]).isConditional)
        #expect(CacheRules.inspect(["Pragma": "no-cache"]).control.noCache)
        #expect(!CacheRules.inspect(["Pragma": "no-cache", "Cache-Control": "max-age=5"]).control.noCache)
        #expect(CacheRules.inspect(["cache-control": "max-stale=3"]).control.maxStale == 3)
    }

    @Test(arguments: [
        (200, "", true), (200, "Cache-Control: no-store", false), (201, "", false), (201, "Cache-Control: max-age=5", true),
        (206, "Cache-Control: max-age=5", false), (304, "", false), (302, "Expires: Thu, 01 Jan 2026 00:00:00 GMT", true),
        (200, "Vary: Accept, *", false), (500, "Cache-Control: public", true), (100, "", false),
    ])
    func storability(status: Int, field: String, storable: Bool) {
        var headers = HTTPHeaders()
        if let colon = field.firstIndex(of: ":") {
            headers.append(name: String(field[..<colon]), value: String(field[field.index(colon, offsetBy: 2)...]))
        }
        #expect(CacheRules.isStorable(status: status, headers: headers, requestControl: CacheControl()) == storable)
    }
}
