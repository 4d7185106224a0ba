import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// The options and arguments of the playback commands, read and checked before anything touches
/// the login or the network: every error is exit 64 with one line that says what is accepted.
/// Numbers are range-checked digit by digit, before any arithmetic.
extension SpotifyNowPlaying {
    /// `pause`, `next`, `previous`: only where to send them.
    struct ControlOptions: CommandOptions {
        /// `--device`: a device's id or name; nil: the active device.
        var device: String?

        init(_ command: ParsedCommand) throws {
            device = try command.value(deviceOption)
        }
    }

    /// `play`: what to play, from the arguments or standard input; nothing: resume.
    struct PlayOptions: CommandOptions {
        var device: String?
        /// Ids, URIs, URLs, records or playlist names; empty: read standard input (or resume).
        var references: [String]
        /// `play -`: standard input even from a terminal.
        var readsStandardInput: Bool

        init(_ command: ParsedCommand) throws {
            device = try command.value(deviceOption)
            readsStandardInput = try standardInputAlone(command.positionals)
            references = readsStandardInput ? [] : command.positionals
        }
    }

    /// `queue`: with URIs (or `-`), what to add; alone, print the queue.
    struct QueueOptions: CommandOptions {
        enum Action: Sendable {
            case list
            case add([SpotifyReference])
            case addFromStandardInput
        }

        var device: String?
        var action: Action
        var json: Bool

        init(_ command: ParsedCommand) throws {
            device = try command.value(deviceOption)
            json = try command.flag(.jsonRecords)
            if try standardInputAlone(command.positionals) {
                action = .addFromStandardInput
            } else if command.positionals.isEmpty {
                if device != nil {
                    throw ToolError.usage("--device goes with URIs to add; the queue printed is your account's")
                }
                action = .list
            } else {
                action = .add(
                    try command.positionals.map {
                        try SpotifyReference.argument($0, expectingOneOf: [.track, .episode])
                    })
            }
        }
    }

    /// Whether the arguments are `-` alone (read standard input); `-` among others is an error.
    static func standardInputAlone(_ arguments: [String]) throws -> Bool {
        if arguments.contains("-") && arguments != ["-"] {
            throw ToolError.usage("'-' reads standard input on its own: give it alone")
        }
        return arguments == ["-"]
    }

    /// shuffle, repeat, volume and seek: the value their one argument gives, and where to send it.
    struct SettingOptions<Setting: PlayerSetting>: CommandOptions {
        var device: String?
        var setting: Setting

        init(_ command: ParsedCommand) throws {
            device = try command.value(deviceOption)
            setting = try Setting(argument: command.positionals[0])
        }
    }

    /// A value the argument of shuffle, repeat, volume or seek gives, checked: a usage error says
    /// what is accepted.
    protocol PlayerSetting: Sendable {
        init(argument text: String) throws
    }

    /// `shuffle on|off`.
    struct Shuffle: PlayerSetting {
        var on: Bool

        /// `on` or `off` (also `true`/`false`, `yes`/`no`, `1`/`0`), case-insensitive.
        init(argument text: String) throws {
            switch text.trimmed.lowercased() {
            case "on", "true", "yes", "1": on = true
            case "off", "false", "no", "0": on = false
            default: throw ToolError.usage("shuffle takes on or off, not '\(shown(text))'")
            }
        }
    }

    /// `volume PERCENT`.
    struct Volume: PlayerSetting {
        var percent: Int

        /// A whole percentage from 0 to 100, with or without a `%` sign.
        init(argument text: String) throws {
            var digits = Substring(text.trimmed)
            if digits.hasSuffix("%") { digits = digits.dropLast() }
            guard let value = number(digits, max: 100) else {
                throw ToolError.usage("volume takes a whole percentage from 0 to 100, not '\(shown(text))'")
            }
            percent = value
        }
    }

    /// `seek POSITION`.
    struct SeekPosition: PlayerSetting {
        var milliseconds: Int

        /// The furthest `seek` goes: 24 hours (longer than any track or episode).
        static let maxSeconds = 24 * 3600

        /// A position in the track: seconds (`90`), `90s`, `1m30s`, `m:ss` (`1:30`) or `h:mm:ss`
        /// (`1:02:03`), at most 24 hours. The forms are `parseDuration`'s.
        init(argument text: String) throws {
            // A bare number is seconds, as players take it (mpc seek 90), with no note under a
            // minute: a position of 30 s is as likely as one of 30 min.
            if let seconds = number(Substring(text), max: Self.maxSeconds) {
                milliseconds = seconds * 1000
                return
            }
            // A bare number is whole seconds here: `1.5` may as well mean 1:05.
            guard let reading = try? DurationReading(text), reading.bareNumber == nil else {
                throw ToolError.usage(
                    "seek takes a position such as 1:30, 90s, 90 (seconds) or 1:02:03, not '\(shown(text))'")
            }
            milliseconds = reading.milliseconds
            guard milliseconds <= Self.maxSeconds * 1000 else {
                throw ToolError.usage("seek goes at most 24 hours into a track, not '\(shown(text))'")
            }
        }
    }

    /// `transfer DEVICE`.
    struct TransferOptions: CommandOptions {
        /// An id, a name, or a unique name prefix.
        var device: String

        init(_ command: ParsedCommand) throws {
            device = command.positionals[0]
        }
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

/// `repeat off|track|context`: `off`, `track` or `context`, case-insensitive.
extension SpotifyPlayer.RepeatState: SpotifyNowPlaying.PlayerSetting {
    init(argument text: String) throws {
        guard let state = Self(rawValue: text.trimmed.lowercased()) else {
            throw ToolError.usage("repeat takes off, track or context, not '\(SpotifyNowPlaying.shown(text))'")
        }
        self = state
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
