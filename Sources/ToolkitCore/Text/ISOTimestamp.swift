// ISO 8601 / RFC 3339 in UTC, written and read here rather than with Foundation's formatters:
// `ISO8601DateFormatter` is not in FoundationEssentials, and its `Date.ISO8601FormatStyle`
// truncates fractional seconds, so about half of all exact-millisecond times would print 1 ms
// low (`played_at` from `…00.123Z` as `…00.122Z`). Proleptic Gregorian calendar throughout.

/// ISO 8601 UTC with milliseconds, as `observed_at` and `played_at` read: 2026-11-22T10:00:00.123Z.
/// Rounded to the nearest millisecond (a time read from `…00.123Z` prints as that again).
package func isoTimestamp(_ secondsSince1970: Double) -> String {
    guard secondsSince1970.isFinite, abs(secondsSince1970) < 1e13 else { return "1970-01-01T00:00:00.000Z" }
    let milliseconds = Int64((secondsSince1970 * 1000).rounded())
    let (seconds, fraction) = floorDivision(milliseconds, 1000)
    return CivilTime(secondsSince1970: seconds).isoText + "." + padded(fraction, 3) + "Z"
}

/// ISO 8601 UTC in whole seconds, the fraction dropped (rounded down): 2026-11-22T10:00:00Z.
package func isoSecondsTimestamp(_ secondsSince1970: Double) -> String {
    guard secondsSince1970.isFinite, abs(secondsSince1970) < 1e13 else { return "1970-01-01T00:00:00Z" }
    return CivilTime(secondsSince1970: Int64(secondsSince1970.rounded(.down))).isoText + "Z"
}

/// Parses RFC 3339 as Spotify writes it and people type it: `2026-11-22T10:00:00Z`, with or
/// without a fraction (read to the millisecond), with `Z`, `UTC`, `GMT` or an offset (`+01:00`,
/// `+0100`, `+01`). Surrounding spaces are ignored; nil for anything else.
package func parseISOTimestamp(_ text: String) -> Double? {
    var reader = DigitReader(text.utf8.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed())
    guard let year = reader.number(digits: 4...9), reader.skip("-"),
        let month = reader.number(digits: 1...2), (1...12).contains(month), reader.skip("-"),
        let day = reader.number(digits: 1...2), (1...31).contains(day), reader.skip("T"),
        let hour = reader.number(digits: 1...2), (0...24).contains(hour), reader.skip(":"),
        let minute = reader.number(digits: 1...2), (0...59).contains(minute), reader.skip(":"),
        let second = reader.number(digits: 1...2), (0...59).contains(second)
    else { return nil }
    var milliseconds: Int64 = 0
    if reader.skip(".") {
        // Read to the millisecond; further digits are dropped, as Foundation's parser did.
        guard let digits = reader.digits(), !digits.isEmpty else { return nil }
        for index in 0..<3 { milliseconds = milliseconds * 10 + Int64(index < digits.count ? digits[index] : 0) }
    }
    guard let offset = reader.zoneOffset(), reader.atEnd else { return nil }
    // A day past the month's end runs on into the next month (2026-02-30 is 2026-03-02), as before.
    let days = CivilTime.days(year: Int64(year), month: Int64(month), day: 1) + Int64(day - 1)
    let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    return Double(seconds) + Double(milliseconds) / 1000
}

/// A moment as a date and time of day in UTC.
struct CivilTime: Sendable, Equatable {
    var year: Int64
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    init(secondsSince1970 seconds: Int64) {
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        // Howard Hinnant's civil_from_days: eras of 400 years, years starting in March.
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = Int(secondOfDay / 3600)
        minute = Int(secondOfDay % 3600 / 60)
        second = Int(secondOfDay % 60)
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (days_from_civil).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let (era, yearOfEra) = floorDivision(marchYear, 400)
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `2026-11-22T10:00:00` (four-digit years; a sign and more digits outside 0 to 9999).
    var isoText: String {
        let yearText = year < 0 ? "-" + padded(-year, 4) : padded(year, 4)
        return yearText + "-" + padded(Int64(month), 2) + "-" + padded(Int64(day), 2) + "T" + padded(Int64(hour), 2)
            + ":" + padded(Int64(minute), 2) + ":" + padded(Int64(second), 2)
    }
}

/// `value` in decimal, zero-padded to at least `width` digits (`value` ≥ 0).
package func padded(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// Quotient and remainder rounded toward minus infinity (the remainder is never negative).
func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let remainder = value % divisor
    return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
}

/// Reads ASCII digits and punctuation from UTF-8, left to right.
struct DigitReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ text: String) -> Bool {
        let wanted = Array(text.utf8)
        guard bytes[index...].starts(with: wanted) else { return false }
        index += wanted.count
        return true
    }

    /// The digits from here on, at most `limit` of them (none: empty).
    mutating func digits(limit: Int = .max) -> [Int]? {
        var found: [Int] = []
        while found.count < limit, index < bytes.count, (0x30...0x39).contains(bytes[index]) {
            found.append(Int(bytes[index] - 0x30))
            index += 1
        }
        return found
    }

    /// A number written with a count of digits in `digits`.
    mutating func number(digits allowed: ClosedRange<Int>) -> Int? {
        let start = index
        guard let found = digits(limit: allowed.upperBound), allowed.contains(found.count) else {
            index = start
            return nil
        }
        return found.reduce(0) { $0 * 10 + $1 }
    }

    /// `Z`, `UTC`, `GMT`, or `+HH`, `+HHMM`, `+HH:MM`, `+HH:MM:SS` (or `-`): seconds east of UTC.
    mutating func zoneOffset() -> Int? {
        if skip("Z") || skip("UTC") || skip("GMT") { return 0 }
        let sign: Int
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hour = number(digits: 2...2), hour < 24 else { return nil }
        var minute = 0
        var second = 0
        if skip(":") {
            guard let value = number(digits: 2...2), value < 60 else { return nil }
            minute = value
            if skip(":") {
                guard let value = number(digits: 2...2), value < 60 else { return nil }
                second = value
            }
        } else if let value = number(digits: 2...2) {
            guard value < 60 else { return nil }
            minute = value
        }
        return sign * (hour * 3600 + minute * 60 + second)
    }
}
