// Duration parsing and clock formatting for `songcount --target` and human output.
// Pure String work by hand: no Foundation, so the rules are exactly the ones written here.

/// The duration grammar, written once: every option that takes a DURATION says this in its help,
/// and `parseDuration`'s errors quote it, so the tools cannot drift apart. `1h 30m` is shown
/// quoted: unquoted, the shell makes it two arguments.
package let acceptedDurationForms =
    "900 (a bare number is seconds), 45s, 15m, 90min, 1.5h, '1h 30m', 1h30m, 15:00 (m:ss), 1:30:00 (h:mm:ss) or PT15M"

/// Longest duration accepted (1000 years, in seconds): room for "fit everything" targets such as
/// `100000h` (11 years), and still far below Int overflow in milliseconds.
let maximumDurationSeconds = 1000 * 365 * 24 * 60 * 60

/// Parses a duration typed by a person and returns it in milliseconds (`DurationReading`).
package func parseDuration(_ text: String) throws -> Int {
    try DurationReading(text).milliseconds
}

/// A duration typed by a person, read.
///
/// Accepted (after trimming surrounding whitespace):
/// - a bare number, in seconds (`900`, `1.5`): the project's own example, `songcount --target
///   900`, and what `seek` and players take;
/// - numbers with units, largest unit first, each unit at most once, optionally separated by
///   spaces: `45s`, `15m`, `90min`, `1.5h`, `1h 30m`, `1h30m`, `1h2m3s`. Units, in any case:
///   `h` `hr` `hrs` `hour` `hours`, `m` `min` `mins` `minute` `minutes`, `s` `sec` `secs` `second`
///   `seconds`. A number may have a decimal fraction (`1.5h`, up to 9 digits after the point).
/// - clocks: `m:ss` (`15:00`, minutes any size) and `h:mm:ss` (`1:30:00`); seconds and the minutes
///   of `h:mm:ss` are two digits, 00–59.
/// - ISO 8601 durations: `P[nD][T[nH][nM][nS]]` (`PT15M`, `PT1H30M`, `P1D`, `PT1.5H`).
///
/// Only ASCII digits; no signs. Zero (`0s`) parses; callers that need a positive duration check
/// that themselves.
package struct DurationReading: Sendable, Equatable {
    package var milliseconds: Int
    /// The number as typed, when it had no unit (so it was read as seconds).
    package var bareNumber: String?

    /// - Throws: `ToolError.usage` naming the input and the accepted forms.
    package init(_ text: String) throws {
        let trimmed = trimmingWhitespace(text)
        let bytes = Array(trimmed.utf8)
        let bare = bytes.contains(where: isDigit) && bytes.allSatisfy(isNumberByte)
        let milliseconds = bare ? decimalMilliseconds(bytes[...], unitMs: 1000) : durationMilliseconds(bytes)
        guard let milliseconds, milliseconds <= maximumDurationSeconds * 1000 else {
            throw ToolError.usage("invalid duration '\(displayable(trimmed))': use \(acceptedDurationForms)")
        }
        self.milliseconds = milliseconds
        bareNumber = bare ? String(trimmed) : nil
    }

    /// For a bare number under a minute, which may well have meant minutes: how it was read and
    /// how to write minutes, for stderr (the command goes on). `option` is how it was given
    /// (`--target`).
    package func note(option: String) -> String? {
        guard let bareNumber, milliseconds > 0, milliseconds < 60_000 else { return nil }
        return
            """
            \(option) \(bareNumber) is \(bareNumber) seconds (a bare number is seconds); for \(bareNumber) minutes \
            write \(option) \(bareNumber)m
            """
    }
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

/// `digits[.digits]` times `unitMs`, in whole milliseconds (fractions of a millisecond dropped).
/// The whole part is capped before multiplying and the fraction has at most 9 digits, so
/// nothing here can overflow: 3.2e10 × 3.6e6 and 1e9 × 3.6e6 both fit in 63 bits.
private func decimalMilliseconds(_ bytes: ArraySlice<UInt8>, unitMs: Int) -> Int? {
    let point = bytes.firstIndex(of: UInt8(ascii: "."))
    guard let whole = number(point.map { bytes[bytes.startIndex..<$0] } ?? bytes) else { return nil }
    var milliseconds = whole * unitMs
    if let point {
        let fraction = bytes[(point + 1)...]
        guard let fractionValue = number(fraction), fraction.count <= 9 else { return nil }
        var scale = 1
        for _ in fraction { scale *= 10 }
        milliseconds += fractionValue * unitMs / scale
    }
    return milliseconds
}

/// Total milliseconds for one of the accepted forms, or nil. Every addition is checked against
/// the cap first, so no arithmetic here can overflow.
private func durationMilliseconds(_ bytes: [UInt8]) -> Int? {
    guard !bytes.isEmpty else { return nil }
    if bytes.contains(UInt8(ascii: ":")) { return clockSeconds(bytes).map { $0 * 1000 } }
    if bytes[0] == UInt8(ascii: "P") || bytes[0] == UInt8(ascii: "p") { return isoMilliseconds(bytes) }
    return unitMilliseconds(bytes)
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

private let maximumDurationMs = maximumDurationSeconds * 1000

/// Adds the parts in order, each at most once and largest first; nil on anything else or above
/// the cap.
private struct UnitSum {
    var nextUnit = 0  // index, among the units of this form, of the earliest still allowed
    var totalMs = 0

    mutating func add(_ digits: ArraySlice<UInt8>, unit: Int, unitMs: Int) -> Bool {
        guard unit >= nextUnit, let milliseconds = decimalMilliseconds(digits, unitMs: unitMs),
            milliseconds <= maximumDurationMs - totalMs
        else { return false }
        totalMs += milliseconds
        nextUnit = unit + 1
        return true
    }
}

/// The unit words `1h 30m`, `90min` and `45 seconds` may use, largest first.
private let unitWords: [(words: [String], milliseconds: Int)] = [
    (["h", "hr", "hrs", "hour", "hours"], 3_600_000),
    (["m", "min", "mins", "minute", "minutes"], 60_000),
    (["s", "sec", "secs", "second", "seconds"], 1000),
]

private func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

private func isNumberByte(_ byte: UInt8) -> Bool { isDigit(byte) || byte == UInt8(ascii: ".") }

private func isLetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
}

/// `1h 30m`, `1h30m`, `90min`, `1.5h`: number and unit glued, parts optionally spaced.
private func unitMilliseconds(_ bytes: [UInt8]) -> Int? {
    var sum = UnitSum()
    var index = 0
    var parts = 0
    while index < bytes.count {
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        let numberStart = index
        while index < bytes.count, isNumberByte(bytes[index]) { index += 1 }
        let unitStart = index
        while index < bytes.count, isLetter(bytes[index]) { index += 1 }
        let word = String(decoding: bytes[unitStart..<index], as: UTF8.self).lowercased()
        guard unitStart > numberStart,
            let unit = unitWords.firstIndex(where: { $0.words.contains(word) }),
            sum.add(bytes[numberStart..<unitStart], unit: unit, unitMs: unitWords[unit].milliseconds)
        else { return nil }
        parts += 1
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
    }
    return parts > 0 ? sum.totalMs : nil
}

/// ISO 8601 `P[nD][T[nH][nM][nS]]`, letters in any case; `P` alone and a `T` with nothing after
/// it are not durations.
private func isoMilliseconds(_ bytes: [UInt8]) -> Int? {
    let designators: [(letter: UInt8, milliseconds: Int, afterT: Bool)] = [
        (UInt8(ascii: "D"), 86_400_000, false), (UInt8(ascii: "H"), 3_600_000, true),
        (UInt8(ascii: "M"), 60_000, true), (UInt8(ascii: "S"), 1000, true),
    ]
    var sum = UnitSum()
    var afterT = false
    var partsSinceT = 0
    var parts = 0
    var index = 1
    while index < bytes.count {
        let upper = bytes[index] & ~0x20  // ASCII letters to upper case; digits never reach here
        if upper == UInt8(ascii: "T"), !afterT {
            afterT = true
            index += 1
            continue
        }
        let numberStart = index
        while index < bytes.count, isNumberByte(bytes[index]) { index += 1 }
        guard index < bytes.count, index > numberStart else { return nil }
        let letter = bytes[index] & ~0x20
        guard let unit = designators.firstIndex(where: { $0.letter == letter && $0.afterT == afterT }),
            sum.add(bytes[numberStart..<index], unit: unit, unitMs: designators[unit].milliseconds)
        else { return nil }
        parts += 1
        if afterT { partsSinceT += 1 }
        index += 1
    }
    guard parts > 0, !afterT || partsSinceT > 0 else { return nil }
    return sum.totalMs
}
