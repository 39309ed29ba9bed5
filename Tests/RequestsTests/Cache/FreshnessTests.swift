import Foundation
import Requests
import Testing

/// Freshness lifetime and age (RFC 9111 §4.2), on a clock the test sets.
@Suite struct FreshnessTests {
    let sent = Date(timeIntervalSince1970: 1_800_000_000)
    var arrived: Date { sent.addingTimeInterval(2) }

    private func freshness(_ headers: HTTPHeaders, status: Int = 200) -> Freshness {
        Freshness(status: status, headers: headers, requestTime: sent, responseTime: arrived)
    }

    private func date(_ offset: TimeInterval) -> String {
        HTTPDate.format(sent.addingTimeInterval(offset))
    }

    @Test func maxAgeWinsOverExpires() {
        let fresh = freshness(["Cache-Control": "max-age=60", "Expires": date(3600), "Date": date(1)])
        #expect(fresh.lifetime == 60)
        #expect(!fresh.isHeuristic)
    }

    @Test func expiresCountsFromDate() {
        #expect(freshness(["Expires": date(301), "Date": date(1)]).lifetime == 300)
        // Without Date, from the arrival.
        #expect(freshness(["Expires": date(302)]).lifetime == 300)
    }

    @Test(arguments: ["0", "-1", "never", ""])
    func anExpiresThatIsNotADateIsInThePast(value: String) {
        let fresh = freshness(["Expires": value, "Date": date(1)])
        #expect(fresh.lifetime == 0)
        #expect(!fresh.isHeuristic)
    }

    @Test func lastModifiedGivesATenthOfItsAgeCappedAtADay() {
        #expect(freshness(["Date": date(0), "Last-Modified": date(-1000)]).lifetime == 100)
        #expect(freshness(["Date": date(0), "Last-Modified": date(-100 * 86_400)]).lifetime == 86_400)
        #expect(freshness(["Date": date(0), "Last-Modified": date(-1000)]).isHeuristic)
        // Not for a status that is not cacheable by default, unless public.
        #expect(freshness(["Date": date(0), "Last-Modified": date(-1000)], status: 302).lifetime == 0)
        #expect(freshness(["Date": date(0), "Last-Modified": date(-1000), "Cache-Control": "public"], status: 302).lifetime == 100)
    }

    @Test func ageAddsTheDelayAndTheTimeInTheCache() {
        // Age 10 on arrival, 2 s on the way: corrected_age_value 12 beats apparent_age 1.
        let fresh = freshness(["Cache-Control": "max-age=60", "Age": "10", "Date": date(1)])
        #expect(fresh.initialAge == 12)
        #expect(fresh.age(at: arrived.addingTimeInterval(5)) == 17)
        #expect(fresh.remaining(at: arrived.addingTimeInterval(5)) == 43)
        #expect(fresh.remaining(at: arrived.addingTimeInterval(48)) == 0)
        #expect(fresh.remaining(at: arrived.addingTimeInterval(49)) < 0)
    }

    @Test func aDateInThePastMakesTheResponseOlder() {
        // The origin's clock says 30 s before arrival: apparent_age 30.
        let fresh = freshness(["Cache-Control": "max-age=60", "Date": HTTPDate.format(arrived.addingTimeInterval(-30))])
        #expect(fresh.initialAge == 30)
    }

    /// RFC 9111 §5.1: a value that is not a non-negative integer (after a list's first member) is
    /// ignored: the age is what it would be without the field.
    @Test(arguments: ["abc", "-7200", "7200.0", "7200s", "60;x=1", "6 0", ""])
    func anInvalidAgeIsIgnored(age: String) {
        let without = freshness(["Cache-Control": "max-age=60", "Date": date(2)])
        let fresh = freshness(["Cache-Control": "max-age=60", "Age": age, "Date": date(2)])
        #expect(fresh.initialAge == without.initialAge)
        #expect(fresh.remaining(at: arrived) > 0)
    }

    @Test func anAgeListCountsItsFirstMember() {
        #expect(freshness(["Cache-Control": "max-age=60", "Age": "50, 0", "Date": date(2)]).initialAge == 52)
        #expect(freshness(["Cache-Control": "max-age=60", "Age": " 7 ,8", "Date": date(2)]).initialAge == 9)
    }
}
