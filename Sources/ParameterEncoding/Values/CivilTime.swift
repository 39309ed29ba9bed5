import Foundation

// MARK: - CivilTime

/// A UTC date and time of day in the proleptic Gregorian calendar, computed with integer
/// arithmetic rather than a `Calendar` or a date formatter, so that it is the same everywhere.
struct CivilTime {
    let year: Int
    let month: Int
    let day: Int
    let hour: Int
    let minute: Int
    let second: Int

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in seconds since 1970.
    static let earliest: Double = -62_135_596_800
    static let latest: Double = 253_402_300_800

    /// The time of `date`, its fraction of a second dropped; `nil` outside years 1 to 9999.
    init?(_ date: Date) {
        let seconds = date.timeIntervalSince1970
        guard seconds >= Self.earliest, seconds < Self.latest else { return nil }
        let (days, secondOfDay) = Self.floorDivision(Int(seconds.rounded(.down)), 86_400)
        let shifted = days + 719_468  // days since 0000-03-01
        let (era, dayOfEra) = Self.floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 is March
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = secondOfDay / 3_600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, the form of XML property lists and of `ISO8601DateFormatter`'s defaults.
    var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `yyyy-MM-ddTHH:mm:ssZ`.
    func append(to output: inout [UInt8]) {
        func padded(_ value: Int, width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        padded(year, width: 4)
        output.append(UInt8(ascii: "-"))
        padded(month, width: 2)
        output.append(UInt8(ascii: "-"))
        padded(day, width: 2)
        output.append(UInt8(ascii: "T"))
        padded(hour, width: 2)
        output.append(UInt8(ascii: ":"))
        padded(minute, width: 2)
        output.append(UInt8(ascii: ":"))
        padded(second, width: 2)
        output.append(UInt8(ascii: "Z"))
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
