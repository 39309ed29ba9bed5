import Foundation
import Requests
import Testing

/// `Cache-Control` as a cache reads it (RFC 9111 §5.2, RFC 5861).
@Suite struct CacheControlTests {
    @Test func responseDirectivesAreReadFromEveryFieldLine() {
        var headers = HTTPHeaders()
        headers.append(name: "Cache-Control", value: "Max-Age=60, MUST-revalidate")
        headers.append(name: "cache-control", value: "no-cache=\"Set-Cookie, X-A\", private, stale-while-revalidate=30,stale-if-error=\"600\", immutable, x-unknown=1")
        let control = CacheControl(headers)
        #expect(control.maxAge == 60)
        #expect(control.mustRevalidate)
        #expect(control.noCache)
        #expect(control.isPrivate)
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.staleIfError == 600)
        #expect(control.immutable)
        #expect(!control.noStore && !control.isPublic)
    }

    @Test func requestDirectivesAreRead() {
        let control = CacheControl(["Cache-Control": "max-stale, min-fresh=5, only-if-cached, no-store"])
        #expect(control.maxStale == Int.max)
        #expect(control.minFresh == 5)
        #expect(control.onlyIfCached && control.noStore)
        #expect(CacheControl(["Cache-Control": "max-stale=10"]).maxStale == 10)
    }

    @Test(arguments: ["max-age=abc", "max-age=-1", "max-age=", "max-age=1.5", "max-age=60, max-age=120", "max-age=\"\""])
    func anUnreadableOrContradictedMaxAgeMakesTheResponseStale(value: String) {
        #expect(CacheControl(["Cache-Control": value]).maxAge == 0)
    }

    @Test func aContradictionStaysWhateverFollows() {
        #expect(CacheControl(["Cache-Control": "max-age=5, max-age=10, max-age=10"]).maxAge == 0)
    }

    @Test func theSameMaxAgeTwiceIsNoContradiction() {
        var headers = HTTPHeaders()
        headers.append(name: "Cache-Control", value: "max-age=60")
        headers.append(name: "Cache-Control", value: "max-age=60")
        #expect(CacheControl(headers).maxAge == 60)
    }

    @Test func deltaSecondsBeyondTwoToTheThirtyFirstAreCapped() {
        #expect(CacheControl(["Cache-Control": "max-age=99999999999999999999999"]).maxAge == 1 << 31)
    }

    @Test func aQualifiedPrivateDoesNotForbidAPrivateCache() {
        #expect(!CacheControl(["Cache-Control": "private=\"X-User\""]).isPrivate)
    }

    @Test func malformedMembersAreSkippedNotFatal() {
        let control = CacheControl(["Cache-Control": ",, no-store junk , max-age = 5 ,=3, \"x\""])
        #expect(control.noStore)
        #expect(control.maxAge == 5)
    }
}
