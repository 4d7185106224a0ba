#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Times for people, in the user's time zone; records keep UTC ISO 8601 (`isoTimestamp`).
package enum LocalTime {
    /// The zone `TZ` names (`Asia/Tokyo`, `:Europe/Berlin`, `UTC`), else the system's.
    package static func zone(_ tz: String?) -> LocalZone {
        LocalZone(tz)
    }

    /// `iso` (a record's UTC time) as `format` in `zone`: "2026-11-24 14:35", "14:35:52".
    /// `format` uses `yyyy`, `MM`, `dd`, `HH`, `mm` and `ss`; anything else is copied as it is.
    package static func text(_ iso: String, _ format: String, in zone: LocalZone) -> String {
        guard let seconds = parseISOTimestamp(iso), let time = zone.components(seconds) else { return iso }
        var out = ""
        var rest = Substring(format)
        let fields: [(String, Int64, Int)] = [
            ("yyyy", Int64(time.tm_year) + 1900, 4), ("MM", Int64(time.tm_mon) + 1, 2), ("dd", Int64(time.tm_mday), 2),
            ("HH", Int64(time.tm_hour), 2), ("mm", Int64(time.tm_min), 2), ("ss", Int64(time.tm_sec), 2),
        ]
        next: while let first = rest.first {
            for (pattern, value, width) in fields where rest.hasPrefix(pattern) {
                out += padded(value, width)
                rest = rest.dropFirst(pattern.count)
                continue next
            }
            out.append(first)
            rest = rest.dropFirst()
        }
        return out
    }

    /// A time given by a person: ISO 8601 with an offset, or a local date and time
    /// (`2026-11-24T05:30`, `2026-11-24 05:30:00`), a local date (`2026-11-24`, its midnight), or a
    /// local time today (`05:30`, `5:30:10`)
    /// in `zone`; nil when it is none of these.
    package static func parse(_ text: String, now: Double, in zone: LocalZone) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let time = parseISOTimestamp(trimmed) { return time }
        // A date alone: its midnight in the zone.
        var dateOnly = DigitReader(trimmed.utf8)
        if let year = dateOnly.number(digits: 4...4), dateOnly.skip("-"),
            let month = dateOnly.number(digits: 1...2), (1...12).contains(month), dateOnly.skip("-"),
            let day = dateOnly.number(digits: 1...2), (1...31).contains(day), dateOnly.atEnd
        {
            return zone.seconds(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        }
        var reader = DigitReader(trimmed.utf8)
        if let year = reader.number(digits: 4...4), reader.skip("-"),
            let month = reader.number(digits: 1...2), (1...12).contains(month), reader.skip("-"),
            let day = reader.number(digits: 1...2), (1...31).contains(day), reader.skip("T") || reader.skip(" ")
        {
            guard let hour = reader.number(digits: 1...2), (0..<24).contains(hour), reader.skip(":"),
                let minute = reader.number(digits: 1...2), (0..<60).contains(minute)
            else { return nil }
            var second = 0
            if reader.skip(":") {
                guard let value = reader.number(digits: 1...2), (0..<60).contains(value) else { return nil }
                second = value
            }
            guard reader.atEnd else { return nil }
            return zone.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
        // A time of day: today's, in the zone.
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
            parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        let second = parts.count == 3 ? Int(parts[2]) ?? -1 : 0
        guard (0..<60).contains(second), let today = zone.components(now) else { return nil }
        let midnight = zone.seconds(
            year: Int(today.tm_year) + 1900, month: Int(today.tm_mon) + 1, day: Int(today.tm_mday), hour: 0,
            minute: 0, second: 0)
        return midnight + Double(hour * 3600 + minute * 60 + second)
    }
}

/// A time zone as `TZ` names it, worked out by the C library from the system's tz database
/// (FoundationEssentials' `TimeZone` knows no named zones on Linux: they live in ICU).
///
/// The C library reads the zone from the process's own `TZ`, so a zone other than the process's
/// is used by setting `TZ` for the moment of the call, under a lock. A tool's zone is its own
/// process's `TZ`, so only in-process tests ever change it; and `TZ` is then only ever replaced,
/// never removed, so that another thread's `getenv` never sees the environment's array move twice.
package struct LocalZone: Sendable, Equatable {
    /// The value `TZ` has while this zone is in use; nil: the system's zone (`/etc/localtime`).
    let tz: String?

    /// The system's zone, as when `TZ` is not set.
    package static let system = LocalZone(nil)

    /// The zone `TZ` names: `Asia/Tokyo`, `:Europe/Berlin`, a zoneinfo path, `UTC`, or a POSIX
    /// rule such as `JST-9`. A name the tz database does not have is the system's zone, as it
    /// was with Foundation (the C library would take it as UTC).
    package init(_ tz: String?) {
        guard let value = tz?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            self.tz = nil
            return
        }
        let name = value.hasPrefix(":") ? String(value.dropFirst()) : value
        let isRule = name.contains { $0.isNumber || $0 == "<" } && !name.contains("/")
        self.tz = isRule || Self.databaseHas(name) ? value : nil
    }

    /// The local date and time at `seconds` (rounded down to the second).
    func components(_ seconds: Double) -> tm? {
        guard seconds.isFinite, abs(seconds) < 1e13 else { return nil }
        var moment = time_t(seconds.rounded(.down))
        return inZone {
            var result = tm()
            return localtime_r(&moment, &result) == nil ? nil : result
        }
    }

    /// The moment a local date and time names (in a gap or overlap of a clock change, the C
    /// library's choice).
    func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double {
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        fields.tm_isdst = -1
        return inZone { Double(mktime(&fields)) }
    }

    private static let lock = PlainLock()
    /// `TZ` for the system's zone once `TZ` has been set: its file, named (an empty `TZ` is UTC).
    private static let systemTZ = ":/etc/localtime"

    /// `body` with the C library's zone set to this one.
    private func inZone<R>(_ body: () -> R) -> R {
        Self.lock.withLock {
            let current = getenv("TZ").map { String(cString: $0) }
            if tz != current {
                setenv("TZ", tz ?? Self.systemTZ, 1)
            }
            tzset()
            defer {
                if tz != current {
                    setenv("TZ", current ?? Self.systemTZ, 1)
                    tzset()
                }
            }
            return body()
        }
    }

    /// Whether the tz database has a zone `name` (or `name` is a zoneinfo file's path).
    private static func databaseHas(_ name: String) -> Bool {
        if name.hasPrefix("/") { return access(name, R_OK) == 0 }
        guard !name.contains(".."), let directory = zoneDirectory() else { return false }
        return access(directory + "/" + name, R_OK) == 0
    }

    private static func zoneDirectory() -> String? {
        if let dir = getenv("TZDIR").map({ String(cString: $0) }), !dir.isEmpty { return dir }
        for candidate in ["/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo"]
        where access(candidate, R_OK) == 0 {
            return candidate
        }
        return nil
    }
}
