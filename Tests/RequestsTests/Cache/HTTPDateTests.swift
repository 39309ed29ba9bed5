import Foundation
import Requests
import Testing

/// The three HTTP date forms (RFC 9110 §5.6.7), read without a `DateFormatter`.
@Suite struct HTTPDateTests {
    /// 1994-11-06 08:49:37 GMT, the RFC's example.
    let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "  sun, 06 NOV 1994 08:49:37 gmt  ",
    ])
    func everyFormOfTheRFCsExampleIsRead(text: String) {
        #expect(HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_790_000_000)) == example)
    }

    @Test func aDateIsWrittenAsIMFFixdate() {
        #expect(HTTPDate.format(example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    @Test func writingAndReadingAgreeOverFourCenturies() {
        var seconds: Int64 = -2_208_988_800  // 1900
        while seconds < 10_413_792_000 {     // 2300
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date, "\(HTTPDate.format(date))")
            seconds += 7_777_777
        }
    }

    @Test func aTwoDigitYearMoreThanFiftyYearsAheadIsInThePastCentury() {
        let now = HTTPDate.parse("Thu, 26 Nov 2026 00:00:00 GMT")!
        #expect(HTTPDate.parse("Monday, 01-Jan-76 00:00:00 GMT", now: now) == HTTPDate.parse("Thu, 01 Jan 2076 00:00:00 GMT"))
        #expect(HTTPDate.parse("Monday, 01-Jan-77 00:00:00 GMT", now: now) == HTTPDate.parse("Sat, 01 Jan 1977 00:00:00 GMT"))
        // Read in 2060, "01" is 2101 (41 years ahead), not 2001 (59 years back).
        let later = HTTPDate.parse("Thu, 01 Jan 2060 00:00:00 GMT")!
        #expect(HTTPDate.parse("Saturday, 01-Jan-01 00:00:00 GMT", now: later) == HTTPDate.parse("Sat, 01 Jan 2101 00:00:00 GMT"))
        #expect(HTTPDate.parse("Saturday, 01-Jan-11 00:00:00 GMT", now: later) == HTTPDate.parse("Sat, 01 Jan 2011 00:00:00 GMT"))
    }

    @Test func aDateBeyondWhatAMessageCarriesIsWrittenAtTheNearestEnd() {
        #expect(HTTPDate.format(.distantFuture) == "Mon, 01 Jan 4001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e15)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -.infinity)) == "Mon, 01 Jan 0001 00:00:00 GMT")
    }

    @Test(arguments: [
        "", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 1900 00:00:00 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT extra", "Sun Nov 6 08:49:37 1994", "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:3x GMT", "Sun,06 Nov 1994 08:49:37 GMT",
    ])
    func anythingElseIsNotADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
