import Foundation

/// Times for people, in the user's time zone; records keep UTC ISO 8601 (`isoTimestamp`).
package enum LocalTime {
    /// The zone `TZ` names (`Asia/Tokyo`, `:Europe/Berlin`, `UTC`), else the system's.
    package static func zone(_ tz: String?) -> TimeZone {
        guard var name = tz?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return .current }
        if name.hasPrefix(":") { name.removeFirst() }
        if name.hasPrefix("/") { name = name.components(separatedBy: "zoneinfo/").last ?? name }
        return TimeZone(identifier: name) ?? TimeZone(abbreviation: name) ?? .current
    }

    /// `iso` (a record's UTC time) as `format` in `zone`: "2026-11-24 14:35", "14:35:52".
    package static func text(_ iso: String, _ format: String, in zone: TimeZone) -> String {
        guard let seconds = parseISOTimestamp(iso) else { return iso }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// A time given by a person: ISO 8601 with an offset, or a local date and time
    /// (`2026-11-24T05:30`, `2026-11-24 05:30:00`), or a local time today (`05:30`, `5:30:10`)
    /// in `zone`; nil when it is none of these.
    package static func parse(_ text: String, now: Double, in zone: TimeZone) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let time = parseISOTimestamp(trimmed) { return time }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date.timeIntervalSince1970 }
        }
        // A time of day: today's, in the zone.
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
            parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        let second = parts.count == 3 ? Int(parts[2]) ?? -1 : 0
        guard (0..<60).contains(second) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = calendar.startOfDay(for: Date(timeIntervalSince1970: now))
        return today.timeIntervalSince1970 + Double(hour * 3600 + minute * 60 + second)
    }
}
