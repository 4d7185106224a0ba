import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// The writes' command lines, each read and checked once (create, add, remove, replace, edit,
/// delete, dedupe, undo, sort, rewrite); the shared parts are the two PLAYLIST checks and
/// `WriteSettings`.
extension SpotifyPlaylists {
    /// The one PLAYLIST a write changes (add and remove: none with --liked).
    static func onePlaylist(_ command: ParsedCommand) throws -> String {
        guard command.positionals.count == 1 else {
            throw ToolError.usage("name one PLAYLIST to change (or, for add and remove, --liked for your Liked Songs)")
        }
        return command.positionals[0]
    }

    /// create's and edit's refusal of --public with --collaborative.
    static let collaborativeIsPrivate = ToolError.usage(
        "a collaborative playlist is private: --public and --collaborative do not go together")

    /// `add --liked` and `remove --liked` change your Liked Songs, which no PLAYLIST names.
    static func checkLiked(_ command: ParsedCommand, action: String) throws {
        guard command.positionals.isEmpty else {
            throw ToolError.usage("\(action) --liked changes your Liked Songs; it takes no PLAYLIST")
        }
    }

    struct CreateOptions: CommandOptions {
        var settings: WriteSettings
        var name: String
        var description: String?
        var isPublic: Bool
        var collaborative: Bool
        var allowEmpty: Bool

        init(_ command: ParsedCommand) throws {
            guard let name = command.positionals.first, command.positionals.count == 1, !name.isEmpty else {
                throw ToolError.usage("create takes one NAME")
            }
            self.name = name
            collaborative = try command.flag(WriteOption.collaborative)
            isPublic = try command.flag(WriteOption.makePublic)
            if collaborative && isPublic {
                throw collaborativeIsPrivate
            }
            description = try command.value(WriteOption.description)
            allowEmpty = try command.flag(WriteOption.allowEmpty)
            settings = try WriteSettings(command)
        }
    }

    struct AddOptions: CommandOptions {
        var settings: WriteSettings
        /// Your Liked Songs instead of a playlist.
        var liked: Bool
        /// The PLAYLIST (nil with --liked).
        var playlist: String?
        var position: Int?

        init(_ command: ParsedCommand) throws {
            liked = try command.flag(WriteOption.liked)
            if liked {
                try checkLiked(command, action: "add")
                if try command.value(WriteOption.position) != nil {
                    throw ToolError.usage("--position does not go with --liked")
                }
            } else {
                position = try command.value(WriteOption.position).map { text -> Int in
                    guard let value = Int(text), (0...PlaylistWriter.maxItems).contains(value) else {
                        throw ToolError.usage(
                            "--position must be a whole number from 0 to \(PlaylistWriter.maxItems), not '\(text)'")
                    }
                    return value
                }
                playlist = try onePlaylist(command)
            }
            settings = try WriteSettings(command)
        }
    }

    struct RemoveOptions: CommandOptions {
        var settings: WriteSettings
        /// Your Liked Songs instead of a playlist.
        var liked: Bool
        /// The PLAYLIST (nil with --liked).
        var playlist: String?

        init(_ command: ParsedCommand) throws {
            liked = try command.flag(WriteOption.unliked)
            if liked { try checkLiked(command, action: "remove") } else { playlist = try onePlaylist(command) }
            settings = try WriteSettings(command)
        }
    }

    struct ReplaceOptions: ChangesOnePlaylist {
        var target: PlaylistTarget
        var allowEmpty: Bool
        var force: Bool

        init(_ command: ParsedCommand) throws {
            target = try PlaylistTarget(command)
            allowEmpty = try command.flag(WriteOption.allowEmptyReplace)
            force = try command.flag(WriteOption.force)
        }
    }

    struct EditDetailsOptions: ChangesOnePlaylist {
        var target: PlaylistTarget
        /// What changes, as Spotify's request body and the change record carry it (in that order).
        var details: JSONObject = [:]

        init(_ command: ParsedCommand) throws {
            if let name = try command.value(WriteOption.name) {
                guard !name.isEmpty else { throw ToolError.usage("--name must not be empty") }
                details["name"] = .string(name)
            }
            if let description = try command.value(WriteOption.description) {
                details["description"] = .string(description)
            }
            switch (try command.flag(WriteOption.makePublic), try command.flag(WriteOption.makePrivate)) {
            case (true, true): throw ToolError.usage("--public and --private do not go together")
            case (true, false): details["public"] = true
            case (false, true): details["public"] = false
            case (false, false): break
            }
            if try command.flag(WriteOption.collaborative) {
                if details["public"] == .bool(true) {
                    throw collaborativeIsPrivate
                }
                details["collaborative"] = true
                details["public"] = false
            }
            guard !details.isEmpty else {
                throw ToolError.usage(
                    "edit needs something to change: --name, --description, --public, --private or --collaborative")
            }
            // After the details: their errors come first. WriteSettings cannot fail for edit, which
            // offers none of the options it checks.
            target = try PlaylistTarget(command)
        }
    }

    struct DeleteOptions: ChangesOnePlaylist {
        var target: PlaylistTarget
        /// Do not ask first.
        var yes: Bool

        init(_ command: ParsedCommand) throws {
            target = try PlaylistTarget(command)
            yes = try command.flag(WriteOption.yes)
        }
    }

    /// The group most writes start with: how the write is made and the one PLAYLIST it changes
    /// (swift-argument-parser's `@OptionGroup`), embedded by the `ChangesOnePlaylist` options.
    struct PlaylistTarget {
        var settings: WriteSettings
        var playlist: String

        init(_ command: ParsedCommand) throws {
            settings = try WriteSettings(command)
            playlist = try onePlaylist(command)
        }
    }

    /// How a write is made and its result printed: --dry-run and --json, which every write offers,
    /// and for the destructive ones least change or afresh and how far it may go, each read only
    /// where the command declares it (remove offers none of those).
    struct WriteSettings {
        var dryRun = false
        var json = false
        var resetDates = false
        var dropUnavailable = false
        var maxMoves = defaultMaxMoves

        init(_ command: ParsedCommand) throws {
            dryRun = try command.flag(WriteOption.dryRun)
            json = try command.flag(PlaylistCommands.jsonOption)
            if command.declares(EditOption.resetDates) { resetDates = try command.flag(EditOption.resetDates) }
            if command.declares(EditOption.dropUnavailable) {
                dropUnavailable = try command.flag(EditOption.dropUnavailable)
                if dropUnavailable && !resetDates {
                    throw ToolError.usage(
                        """
                        --drop-unavailable goes with --reset-dates: without it, local files and unavailable entries \
                        stay where they are
                        """
                    )
                }
            }
            if command.declares(EditOption.maxMoves), let text = try command.value(EditOption.maxMoves) {
                guard let value = Int(text), (0...PlaylistWriter.maxItems).contains(value) else {
                    throw ToolError.usage(
                        "--max-moves must be a whole number from 0 to \(PlaylistWriter.maxItems), not '\(text)'")
                }
                maxMoves = value
            }
        }

        func mode(_ context: ToolContext) -> OutputMode { context.outputMode(forcedJSON: json) }
    }

    struct DedupeOptions: ChangesOnePlaylist {
        var target: PlaylistTarget

        init(_ command: ParsedCommand) throws {
            target = try PlaylistTarget(command)
        }
    }

    struct UndoOptions: ChangesOnePlaylist {
        var target: PlaylistTarget
        /// Although the playlist changed since that write.
        var force: Bool

        init(_ command: ParsedCommand) throws {
            target = try PlaylistTarget(command)
            force = try command.flag(EditOption.force)
        }
    }

    struct SortOptions: CommandOptions {
        var settings: WriteSettings
        var playlist: String
        var key: SortKey
        var reverse: Bool
        /// --by random: the shuffle's seed (nil: a random one).
        var seed: UInt64?

        init(_ command: ParsedCommand) throws {
            settings = try WriteSettings(command)
            guard let keyText = try command.value(EditOption.sortKey) else {
                throw ToolError.usage("sort needs --by KEY: duration, name, artist, album, added or random")
            }
            guard let key = SortKey(rawValue: keyText) else {
                throw ToolError.usage(
                    "--by must be one of duration, name, artist, album, released, added or random, not '\(keyText)'")
            }
            self.key = key
            seed = try command.value(EditOption.seed).map { text -> UInt64 in
                guard let value = UInt64(text) else {
                    throw ToolError.usage("--seed must be a whole number, not '\(text)'")
                }
                return value
            }
            if seed != nil && key != .random { throw ToolError.usage("--seed goes with --by random") }
            reverse = try command.flag(EditOption.reverse)
            playlist = try onePlaylist(command)
        }
    }

    struct RewriteOptions: CommandOptions {
        var settings: WriteSettings
        var playlist: String
        /// COMMAND and its arguments.
        var program: [String]
        /// Apply what COMMAND printed although it wrote on standard error.
        var force: Bool

        init(_ command: ParsedCommand) throws {
            settings = try WriteSettings(command)
            force = try command.flag(EditOption.acceptComplaints)
            guard command.positionals.count >= 2 else {
                throw ToolError.usage(
                    "rewrite needs a COMMAND after the PLAYLIST: rewrite PLAYLIST -- COMMAND [ARGS...]")
            }
            playlist = command.positionals[0]
            program = Array(command.positionals.dropFirst())
        }
    }
}

extension SpotifyPlaylists {
    /// The options of a write that changes one PLAYLIST, read through their `PlaylistTarget`.
    protocol ChangesOnePlaylist: CommandOptions {
        var target: PlaylistTarget { get }
    }
}

extension SpotifyPlaylists.ChangesOnePlaylist {
    var settings: SpotifyPlaylists.WriteSettings { target.settings }
    var playlist: String { target.playlist }
}
