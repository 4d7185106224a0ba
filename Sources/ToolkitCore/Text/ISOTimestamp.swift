import Foundation

/// ISO 8601 UTC with milliseconds, as `observed_at` and `played_at` read: 2026-11-22T10:00:00.123Z.
package func isoTimestamp(_ secondsSince1970: Double) -> String {
    guard secondsSince1970.isFinite, abs(secondsSince1970) < 1e13 else { return "1970-01-01T00:00:00.000Z" }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date(timeIntervalSince1970: secondsSince1970))
}

/// Parses ISO 8601 (`2026-11-22T10:00:00Z`, with or without fractional seconds or an offset).
package func parseISOTimestamp(_ text: String) -> Double? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)?.timeIntervalSince1970
}
