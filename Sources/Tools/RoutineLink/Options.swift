import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Each subcommand's options and arguments, read and checked here (a usage error is 64 before
/// any routine is read); the handlers read fields.
extension RoutineLink {
    /// show, unlink, stop and log: a routine, and whether to print JSON Lines even on a terminal.
    /// The other commands that name a routine and print it embed it as a group (`OfOneRoutine`).
    struct RoutineOptions: CommandOptions {
        var name: String
        var json: Bool

        init(_ command: ParsedCommand) throws {
            name = command.positionals.first ?? ""
            json = try command.flag(.jsonRecords)
        }
    }

    struct AddOptions: OfOneRoutine {
        var routine: RoutineOptions
        var durationMs: Int?
        var note: String?

        init(_ command: ParsedCommand) throws {
            routine = try RoutineOptions(command)
            if let milliseconds = try command.duration(Option.duration) {
                guard milliseconds > 0 else { throw ToolError.usage("--duration must be longer than 0") }
                durationMs = milliseconds
            }
            note = try command.value(Option.note)
        }
    }

    struct EditOptions: OfOneRoutine {
        var routine: RoutineOptions
        var change: RoutineEdit

        init(_ command: ParsedCommand) throws {
            routine = try RoutineOptions(command)
            change = try Self.change(command)
        }

        static func change(_ command: ParsedCommand) throws -> RoutineEdit {
            var change = RoutineEdit()
            let durationText = try command.value(Option.newDuration)
            if try command.flag(Option.noDuration) {
                guard durationText == nil else {
                    throw ToolError.usage("--duration and --no-duration cannot be used together")
                }
                change.durationMs = .clear
            } else if let text = durationText {
                // "none" is the spelling of a cleared value that fits where a duration goes.
                if text.trimmingCharacters(in: .whitespaces).lowercased() == "none" {
                    change.durationMs = .clear
                } else {
                    let milliseconds = try command.duration(Option.newDuration) ?? 0
                    guard milliseconds > 0 else {
                        throw ToolError.usage("--duration must be longer than 0 (--duration none clears it)")
                    }
                    change.durationMs = .set(milliseconds)
                }
            }
            if let note = try command.value(Option.newNote) {
                change.note = note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? .clear : .set(note)
            }
            change.name = try command.value(Option.rename).map(RoutineBook.validatedName)
            guard !change.isEmpty else {
                throw ToolError.usage(
                    """
                    nothing to change; give --duration DURATION, --no-duration, --note TEXT (--note '' clears it) or \
                    --rename NEW
                    """
                )
            }
            return change
        }
    }

    struct ListOptions: CommandOptions {
        var namesOnly: Bool
        var json: Bool

        init(_ command: ParsedCommand) throws {
            namesOnly = try command.flag(Option.names)
            json = try command.flag(.jsonRecords)
        }
    }

    struct RenameOptions: CommandOptions {
        var old: String
        var new: String
        var json: Bool

        init(_ command: ParsedCommand) throws {
            old = command.positionals[0]
            new = command.positionals[1]
            json = try command.flag(.jsonRecords)
        }
    }

    struct RemoveOptions: CommandOptions {
        var name: String
        var skipQuestion: Bool

        init(_ command: ParsedCommand) throws {
            name = command.positionals.first ?? ""
            skipQuestion = try command.flag(Option.yes)
        }
    }

    struct LinkOptions: OfOneRoutine {
        var routine: RoutineOptions
        /// nil: one record (or id, URI or URL) is read from standard input.
        var playlist: String?
        /// PLAYLIST was `-`: standard input is read even when it is a terminal.
        var saysStandardInput: Bool

        init(_ command: ParsedCommand) throws {
            routine = try RoutineOptions(command)
            let argument = command.positionals.count > 1 ? command.positionals[1] : nil
            playlist = argument == "-" ? nil : argument
            saysStandardInput = argument == "-"
        }
    }

    struct OpenOptions: CommandOptions {
        var name: String
        var printOnly: Bool

        init(_ command: ParsedCommand) throws {
            name = command.positionals.first ?? ""
            printOnly = try command.flag(Option.print)
        }
    }

    /// start's and run's --play and --device.
    struct Playback {
        var play: Bool
        var device: String?

        init(_ command: ParsedCommand) throws {
            play = try command.flag(Option.play)
            device = try command.value(Option.device)
            // --device says where --play plays: alone, it would be silently ignored.
            if device != nil && !play {
                throw ToolError.usage("--device goes with --play (it names the device to play on)")
            }
        }
    }

    struct StartOptions: OfOneRoutine {
        var routine: RoutineOptions
        var playback: Playback

        init(_ command: ParsedCommand) throws {
            routine = try RoutineOptions(command)
            playback = try Playback(command)
        }
    }

    struct RunOptions: OfOneRoutine {
        var routine: RoutineOptions
        /// --for: how long to watch instead of the routine's duration.
        var watchMs: Int?
        var playback: Playback
        /// --stop-at-end: pause at the end of the song playing when the routine's time is up.
        var stopAtEnd: Bool

        init(_ command: ParsedCommand) throws {
            routine = try RoutineOptions(command)
            playback = try Playback(command)
            stopAtEnd = try command.flag(Option.stopAtEnd)
            if let milliseconds = try command.duration(Option.watchFor) {
                guard milliseconds > 0 else { throw ToolError.usage("--for must be longer than 0") }
                watchMs = milliseconds
            }
        }
    }

    struct HistoryOptions: CommandOptions {
        /// nil: every routine's sessions.
        var name: String?
        var json: Bool

        init(_ command: ParsedCommand) throws {
            name = command.positionals.first
            json = try command.flag(.jsonRecords)
        }
    }
}

extension RoutineLink {
    /// The options of a command that names one routine and prints it: `RoutineOptions` embedded as
    /// a group (swift-argument-parser's `@OptionGroup`), its fields read through.
    protocol OfOneRoutine: CommandOptions {
        var routine: RoutineOptions { get }
    }
}

extension RoutineLink.OfOneRoutine {
    var name: String { routine.name }
    var json: Bool { routine.json }
}

extension RoutineLink {
    /// The options, each declared once: the spec lists them and the Options structs read them.
    enum Option {
        static let stopAtEnd = OptionSpec(
            "stop-at-end",
            help:
                """
                When the routine's time is up, pause playback at the end of the song playing then (Premium, \
                user-modify-playback-state), after logging the session; Ctrl-C while it waits cancels the pause.
                """
        )
        static let names = OptionSpec(
            "names", help: "Print only the names, one per line (what shell completion offers).")
        static let play = OptionSpec(
            "play",
            help:
                """
                Ask Spotify to play the playlist on the active device, or on --device (Premium, \
                user-modify-playback-state); when Spotify refuses (PREMIUM_REQUIRED, NO_ACTIVE_DEVICE, an unknown \
                device, a missing scope, offline) open it instead and say why.
                """
        )
        static let duration = OptionSpec(
            "duration", short: "d", value: "DURATION",
            help: "How long the routine lasts (\(acceptedDurationForms)); run watches that long.")
        static let note = OptionSpec("note", value: "TEXT", help: "A note to keep with the routine.")
        static let newDuration = OptionSpec(
            "duration", short: "d", value: "DURATION",
            help: "The new duration (\(acceptedDurationForms)); none clears it.")
        static let noDuration = OptionSpec("no-duration", help: "Clear the duration (run then needs --for).")
        static let newNote = OptionSpec("note", value: "TEXT", help: "The new note; --note '' clears it.")
        static let rename = OptionSpec(
            "rename", value: "NEW", help: "A new name (unique, case-insensitively, as rename requires).")
        static let device = OptionSpec(
            "device", value: "NAME|ID",
            help:
                """
                With --play: play on this device (an id, or a name from 'spotify-nowplaying devices'; a unique prefix \
                will do) instead of the active one.
                """,
            completion: .command("spotify-nowplaying devices --names")
        )
        static let yes = OptionSpec(
            "yes", short: "y", help: "Do not ask. Needed when standard input is not a terminal.")
        static let print = OptionSpec("print", help: "Print the link instead of opening it.")
        static let watchFor = OptionSpec(
            "for", value: "DURATION",
            help: "Watch this long instead of the routine's duration (\(acceptedDurationForms)).")
    }
}
