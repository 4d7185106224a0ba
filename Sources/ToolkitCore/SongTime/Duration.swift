// Duration parsing and clock formatting for `songcount --target` and human output.
// Pure String work by hand: no Foundation, so the rules are exactly the ones written here.

/// The duration forms `parseDuration` accepts, for `--help` text.
package let acceptedDurationForms = "900 (seconds), 90s, 15m, 1h30m, 1h2m3s, 12:30, 1:02:03"

/// Longest duration accepted (1000 years, in seconds): room for "fit everything" targets such as
/// `100000h` (11 years), and still far below Int overflow in milliseconds.
let maximumDurationSeconds = 1000 * 365 * 24 * 60 * 60

/// Parses a duration typed by a person and returns it in milliseconds.
///
/// Accepted, exactly (after trimming surrounding whitespace): a bare integer of seconds (`900`);
/// units `h`, `m`, `s`, each at most once and in that order (`90s`, `15m`, `1h30m`, `1h2m3s`);
/// `m:ss` (`12:30`, minutes any size); `h:mm:ss` (`1:02:03`). Seconds and the minutes of
/// `h:mm:ss` are two digits, 00–59. Only ASCII digits; no signs, decimals or inner spaces.
/// Zero (`0`, `0s`) parses; callers that need a positive duration check that themselves.
///
/// - Throws: `ToolError.usage` naming the input and the accepted forms.
package func parseDuration(_ text: String) throws -> Int {
    let trimmed = trimmingWhitespace(text)
    guard let seconds = durationSeconds(Array(trimmed.utf8)), seconds <= maximumDurationSeconds else {
        throw ToolError.usage(
            "invalid duration '\(displayable(trimmed))': use seconds (900), 90s, 15m, 1h30m, 1h2m3s, 12:30 or 1:02:03"
        )
    }
    return seconds * 1000
}

/// Formats milliseconds as a clock for people: `4:05`, `15:00`, `1:02:03`.
/// Rounds down to whole seconds (never claims time not yet reached); hours only from 1 h.
/// Negative input shows as `0:00`.
package func formatClock(milliseconds: Int) -> String {
    let totalSeconds = max(0, milliseconds) / 1000
    let hours = totalSeconds / 3600
    let minutes = totalSeconds / 60 % 60
    let seconds = totalSeconds % 60
    if hours > 0 {
        return "\(hours):\(twoDigits(minutes)):\(twoDigits(seconds))"
    }
    return "\(totalSeconds / 60):\(twoDigits(seconds))"
}

// MARK: - Helpers

private func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : "\(value)"
}

private func trimmingWhitespace(_ text: String) -> Substring {
    var slice = Substring(text)
    while let first = slice.first, first.isWhitespace { slice.removeFirst() }
    while let last = slice.last, last.isWhitespace { slice.removeLast() }
    return slice
}

/// Keeps the error message on one line and short, whatever was typed.
private func displayable(_ text: Substring) -> String {
    let limit = 64
    var shown = ""
    for scalar in text.prefix(limit).unicodeScalars {
        let breaksLine =
            scalar.properties.generalCategory == .control
            || scalar.properties.generalCategory == .lineSeparator
            || scalar.properties.generalCategory == .paragraphSeparator
        shown += breaksLine ? scalar.escaped(asASCII: true) : String(scalar)
    }
    return text.count > limit ? shown + "…" : shown
}

private let zero = UInt8(ascii: "0")
private let nine = UInt8(ascii: "9")

private func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

/// Value of a non-empty run of ASCII digits; nil when empty, not all digits, or above the cap
/// (checked digit by digit so huge inputs never overflow).
private func number(_ bytes: ArraySlice<UInt8>) -> Int? {
    guard !bytes.isEmpty else { return nil }
    var value = 0
    for byte in bytes {
        guard isDigit(byte) else { return nil }
        value = value * 10 + Int(byte - zero)
        if value > maximumDurationSeconds { return nil }
    }
    return value
}

/// Total seconds for one of the accepted forms, or nil. Results may exceed the cap only by the
/// sum of already-capped parts, so no arithmetic here can overflow.
private func durationSeconds(_ bytes: [UInt8]) -> Int? {
    guard !bytes.isEmpty else { return nil }
    if bytes.contains(UInt8(ascii: ":")) { return clockSeconds(bytes) }
    if isDigit(bytes[bytes.count - 1]) { return number(bytes[...]) }
    return unitSeconds(bytes)
}

/// `m:ss` or `h:mm:ss`.
private func clockSeconds(_ bytes: [UInt8]) -> Int? {
    let parts = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    func sexagesimal(_ part: ArraySlice<UInt8>) -> Int? {
        guard part.count == 2, let value = number(part), value < 60 else { return nil }
        return value
    }
    switch parts.count {
    case 2:
        guard let minutes = number(parts[0]), let seconds = sexagesimal(parts[1]) else { return nil }
        return minutes * 60 + seconds
    case 3:
        guard let hours = number(parts[0]), let minutes = sexagesimal(parts[1]), let seconds = sexagesimal(parts[2])
        else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    default:
        return nil
    }
}

/// `1h2m3s` and its subsets: each unit once, in the order h, m, s, each after its own digits.
private func unitSeconds(_ bytes: [UInt8]) -> Int? {
    let units: [(letter: UInt8, seconds: Int)] = [
        (UInt8(ascii: "h"), 3600), (UInt8(ascii: "m"), 60), (UInt8(ascii: "s"), 1),
    ]
    var nextUnit = 0  // index into `units` of the earliest unit still allowed
    var total = 0
    var start = 0
    for (index, byte) in bytes.enumerated() where !isDigit(byte) {
        guard let unit = units[nextUnit...].firstIndex(where: { $0.letter == byte }),
            let value = number(bytes[start..<index])
        else { return nil }
        total += value * units[unit].seconds
        if total > maximumDurationSeconds { return nil }
        nextUnit = unit + 1
        start = index + 1
    }
    // Trailing digits without a unit (e.g. `1h30`) are not a form we accept.
    return start == bytes.count ? total : nil
}
