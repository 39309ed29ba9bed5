import Foundation

// MARK: - HTTPDate

/// HTTP dates (RFC 9110 §5.6.7), read and written without a `DateFormatter`: the three forms a
/// recipient must accept, and IMF-fixdate, the one a sender writes.
///
/// ```swift
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")     // IMF-fixdate
/// HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")    // RFC 850
/// HTTPDate.parse("Sun Nov  6 08:49:37 1994")          // asctime
/// HTTPDate.format(date)                               // "Sun, 06 Nov 1994 08:49:37 GMT"
/// ```
///
/// Parsing is strict about the shape (a date that does not fit any form is `nil`, which the
/// caches and `Retry-After` treat as the RFC says) and lenient about letter case. The day name is
/// not checked against the date, as RFC 9110 lets a recipient ignore it.
package enum HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// The month names lowercased, as the reader compares them.
    private static let months = monthNames.map { $0.lowercased() }

    /// The date an HTTP date names, or `nil` when the text is none of the three forms.
    ///
    /// - Parameters:
    ///   - text: The field value, surrounding whitespace allowed.
    ///   - now: The present, which a two-digit RFC 850 year is read against: a year more than
    ///     50 years ahead is taken in the past century (RFC 9110 §5.6.7).
    /// - Returns: The date, or `nil`.
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        var bytes = Array(text.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        var reader = Reader(bytes: bytes, index: start)
        guard let comma = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == 0x20 }) else { return nil }
        if bytes[comma] == UInt8(ascii: ",") {
            // IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", day name of 3 letters) or RFC 850
            // ("Sunday, 06-Nov-94 08:49:37 GMT", the full day name).
            reader.index = comma + 1
            guard reader.skip(0x20) else { return nil }
            let fixdate = comma - start == 3
            guard let day = reader.digits(2) else { return nil }
            let separator: UInt8 = fixdate ? 0x20 : UInt8(ascii: "-")
            guard reader.skip(separator), let month = reader.month(months), reader.skip(separator) else { return nil }
            var year: Int
            if fixdate {
                guard let four = reader.digits(4) else { return nil }
                year = four
            } else {
                guard let two = reader.digits(2) else { return nil }
                year = twoDigitYear(two, now: now)
            }
            guard reader.skip(0x20), let time = reader.time(), reader.skip(0x20),
                  reader.word("GMT"), reader.atEnd
            else { return nil }
            return date(year: year, month: month, day: day, time: time)
        }
        // asctime: "Sun Nov  6 08:49:37 1994", the day padded with a space.
        guard comma - start == 3 else { return nil }
        reader.index = comma
        guard reader.skip(0x20), let month = reader.month(months), reader.skip(0x20) else { return nil }
        let day: Int
        if reader.peek == 0x20 {
            reader.index += 1
            guard let one = reader.digits(1) else { return nil }
            day = one
        } else {
            guard let two = reader.digits(2) else { return nil }
            day = two
        }
        guard reader.skip(0x20), let time = reader.time(), reader.skip(0x20), let year = reader.digits(4), reader.atEnd else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// The IMF-fixdate of a date: `Sun, 06 Nov 1994 08:49:37 GMT`, whole seconds, always in GMT.
    ///
    /// - Parameter date: The date.
    /// - Returns: The text.
    package static func format(_ date: Date) -> String {
        // Years 1 to 9999 hold every date a message carries; beyond, the nearest end.
        let interval = date.timeIntervalSince1970
        let seconds = interval.isNaN ? 0 : Int64(min(253_402_300_799, max(-62_135_596_800, interval)).rounded(.down))
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4).
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(dayNames[weekday]), \(two(day)) \(monthNames[Int(month) - 1]) \(yearText) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)) GMT"
    }

    /// A two-digit year of RFC 850 read against the present.
    private static func twoDigitYear(_ two: Int, now: Date) -> Int {
        let current = Int(civil(fromDays: Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))).year)
        // The year with these last two digits in current-49 ... current+50.
        var year = current - current % 100 + two
        if year > current + 50 { year -= 100 }
        if year <= current - 50 { year += 100 }
        return year
    }

    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              time.hour < 24, time.minute < 60, time.second <= 60
        else { return nil }
        let days = daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        // A leap second (:60) is read as the next second's start.
        let seconds = days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a count of days since 1970-01-01.
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Reads an HTTP date's bytes from left to right.
    private struct Reader {
        let bytes: [UInt8]
        var index: Int

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// A three-letter month name, any case; its number from 1.
        mutating func month(_ names: [String]) -> Int? {
            guard index + 3 <= bytes.count else { return nil }
            let word = String(decoding: bytes[index..<index + 3].map { $0 | 0x20 }, as: UTF8.self)
            guard let number = names.firstIndex(of: word) else { return nil }
            index += 3
            return number + 1
        }

        mutating func word(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard index + expected.count <= bytes.count,
                  zip(bytes[index..<index + expected.count], expected).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
            else { return false }
            index += expected.count
            return true
        }

        /// `HH:MM:SS`.
        mutating func time() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), skip(UInt8(ascii: ":")), let minute = digits(2), skip(UInt8(ascii: ":")),
                  let second = digits(2)
            else { return nil }
            return (hour, minute, second)
        }
    }
}
