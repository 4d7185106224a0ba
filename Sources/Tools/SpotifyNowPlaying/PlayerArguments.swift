import SpotifyClient
import ToolkitCore

/// The arguments of the playback settings (`shuffle on`, `repeat track`, `volume 40`,
/// `seek 1:30`), read into values. Pure: no I/O; every error is exit 64 with one line that
/// says what is accepted. Numbers are range-checked digit by digit, before any arithmetic.
package enum PlayerArguments {
    /// The furthest `seek` goes: 24 hours (longer than any track or episode).
    package static let maxSeekSeconds = 24 * 3600

    /// `on` or `off` (also `true`/`false`, `yes`/`no`, `1`/`0`), case-insensitive.
    package static func shuffle(_ text: String) throws -> Bool {
        switch text.trimmed.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw ToolError.usage("shuffle takes on or off, not '\(shown(text))'")
        }
    }

    /// `off`, `track` or `context`, case-insensitive.
    package static func repeatState(_ text: String) throws -> SpotifyPlayer.RepeatState {
        guard let state = SpotifyPlayer.RepeatState(rawValue: text.trimmed.lowercased()) else {
            throw ToolError.usage("repeat takes off, track or context, not '\(shown(text))'")
        }
        return state
    }

    /// A whole percentage from 0 to 100, with or without a `%` sign.
    package static func volume(_ text: String) throws -> Int {
        var digits = Substring(text.trimmed)
        if digits.hasSuffix("%") { digits = digits.dropLast() }
        guard let value = number(digits, max: 100) else {
            throw ToolError.usage("volume takes a whole percentage from 0 to 100, not '\(shown(text))'")
        }
        return value
    }

    /// A position in the track, in milliseconds: seconds (`90`), `90s`, `1m30s`, `m:ss` (`1:30`)
    /// or `h:mm:ss` (`1:02:03`), at most 24 hours. The forms are `parseDuration`'s.
    package static func seekPosition(_ text: String) throws -> Int {
        // A position in a track, not a duration: a bare number is seconds, as players take it
        // (mpc seek 90), where a bare duration is refused for want of a unit.
        if let seconds = number(Substring(text), max: maxSeekSeconds) { return seconds * 1000 }
        let milliseconds: Int
        do {
            milliseconds = try parseDuration(text)
        } catch {
            throw ToolError.usage(
                "seek takes a position such as 1:30, 90s, 90 (seconds) or 1:02:03, not '\(shown(text))'")
        }
        guard milliseconds <= maxSeekSeconds * 1000 else {
            throw ToolError.usage("seek goes at most 24 hours into a track, not '\(shown(text))'")
        }
        return milliseconds
    }

    /// A run of ASCII digits worth at most `max`; nil for anything else (signs, decimals, empty).
    static func number(_ text: Substring, max: Int) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value > max { return nil }
        }
        return value
    }

    /// The argument as it may appear in a one-line message: cleaned and cut short.
    static func shown(_ text: String) -> String {
        let clean = TerminalText.clean(text)
        return clean.count > 40 ? String(clean.prefix(40)) + "…" : clean
    }
}

extension String {
    fileprivate var trimmed: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
