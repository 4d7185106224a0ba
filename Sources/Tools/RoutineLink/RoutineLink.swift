import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `routine-link`: routines with a linked playlist, opening it in Spotify, and a session history
/// counted in songs. The pure parts live in Routines/ (RoutineBook, RoutineStore); this file is
/// the command-line face and the I/O.
package enum RoutineLink {
    static let nameArgument = ArgumentSpec(
        "NAME", help: "The routine's name (any text; matched case-insensitively).",
        completion: .command("routine-link list --names"))
    static let namesOption = OptionSpec(
        "names", help: "Print only the names, one per line (what shell completion offers).")
    static let playOption = OptionSpec(
        "play",
        help:
            "Ask Spotify to play the playlist on the active device, or on --device (Premium, user-modify-playback-state); when Spotify refuses (PREMIUM_REQUIRED, NO_ACTIVE_DEVICE, an unknown device, a missing scope, offline) open it instead and say why."
    )

    package static let spec = CommandSpec(
        name: "routine-link",
        abstract: "routines with a linked Spotify playlist, opened in Spotify, and a session history in songs",
        discussion: [
            "routine-link keeps your routines, each a name, an optional duration and note, and an optional linked playlist (its id, URI, name and cover image URL, kept so the routine can be shown and opened offline), and what you heard during each. start opens the playlist in Spotify and records a session; log ends it with the song count of what was heard, read from songcount: spotify-nowplaying --watch --for 15m | songcount | routine-link log morning. run does all of that in one command, with exactly that pipeline underneath. A session that will not be logged ends with stop; a new start or run of the routine ends a session left running the same way (ended then, no songs, labelled \"not logged\") and says so once.",
            "Everything works offline except fetching a playlist's name and cover when link is given only an id (without the network the id alone is linked, and routine-link says so), start --play, and run. Names may be any text; they match case-insensitively, and two routines cannot share a name.",
            "open opens the playlist in the Spotify app when one is installed, else in the browser.",
            "run NAME starts the routine (opening the playlist, or with --play playing it) and watches for the routine's duration (or --for), counting the songs; Ctrl-C ends it early and the count is logged all the same. On a terminal, the current song and the running count are shown on stderr. When nothing was heard, no session is logged. When the watch fails (not logged in, a crash), no session is logged either and run exits with the watch's status; what was heard is printed as a song_count record, so routine-link log NAME can still log it. When the count cannot be logged (a full disk), it is printed the same way.",
            "A routines file that cannot be read, or was written by a newer version, is reported with its path and left untouched.",
        ],
        notes: [
            "open uses the playlist's spotify: URI when something is registered to open those (xdg-mime query default x-scheme-handler/spotify; Launch Services on macOS), else https://open.spotify.com/playlist/ID, and hands it to each command of $BROWSER in turn, then xdg-open (open on macOS).",
            "run runs spotify-nowplaying --watch --for DURATION piped into songcount, both taken from the directory routine-link is in (else from PATH) and put in a process group of their own. Ctrl-C (like SIGTERM and SIGHUP) reaches only routine-link, which asks the watch to stop; the watch prints its final record, and songcount's count is logged.",
            "The store is \(RoutineStore.fileName) in the data directory: one JSON document (schema_version \(RoutineStore.schemaVersion)) written atomically under a lock, so concurrent commands lose nothing.",
        ],
        options: [
            .jsonRecords
        ],
        subcommands: [
            CommandSpec(
                name: "add", abstract: "add a routine", arguments: [nameArgument],
                options: [
                    Option.duration,
                    Option.note,
                ],
                examples: [
                    ExampleSpec(
                        "routine-link add morning --duration 15m --note 'stretch, then coffee'",
                        "A fifteen-minute routine.")
                ]
            ).running(handler(add)),
            CommandSpec(
                name: "edit", abstract: "change a routine's duration, note or name, and only what is given",
                discussion: [
                    "Prints the routine record, as add does. --duration none (or --no-duration) clears the duration and --note '' clears the note; --rename NEW follows rename's rule (names are unique, case-insensitively; the sessions follow). Without anything to change, exit 64. A new --duration on a routine with a linked playlist suggests fitting one to it (routine-link fit)."
                ],
                arguments: [nameArgument],
                options: [
                    Option.newDuration,
                    Option.noDuration,
                    Option.newNote,
                    Option.rename,
                ],
                examples: [
                    ExampleSpec("routine-link edit morning --duration 20m", "Twenty minutes from now on."),
                    ExampleSpec("routine-link edit morning --no-duration --note ''", "No duration and no note."),
                ]
            ).running(handler(edit)),
            CommandSpec(
                name: "list", abstract: "list the routines, as routine records", aliases: ["ls"], options: [namesOption]
            )
            .running(handler(list)),
            CommandSpec(name: "show", abstract: "show one routine, as a routine record", arguments: [nameArgument])
                .running(handler(show)),
            CommandSpec(
                name: "rename", abstract: "rename a routine (its sessions follow)",
                arguments: [
                    ArgumentSpec("OLD", help: "The routine's current name."),
                    ArgumentSpec("NEW", help: "Its new name."),
                ]
            ).running(handler(rename)),
            CommandSpec(
                name: "remove", abstract: "remove a routine and its sessions", aliases: ["rm"],
                arguments: [nameArgument],
                options: [
                    Option.yes
                ]
            ).running(handler(remove)),
            CommandSpec(
                name: "link", abstract: "link a playlist, an album or a single track to a routine",
                discussion: [
                    "PLAYLIST is a playlist's name (one of yours), id, spotify:playlist: URI or open.spotify.com URL, or an album's or a track's spotify:album: or spotify:track: URI or URL (a session of one album, or of one song); without it, or for -, one record (or id, URI or URL) is read from standard input: a playlist record, a track record. The name, cover image and duration come from the record (a spotify-playlists get --duration record carries the playlist's total duration_ms, a track record its own), or when only an id is given, from Spotify (a track's duration, and an album's when it holds at most 50 tracks); when Spotify cannot be asked (offline, not logged in), the id alone is linked and routine-link says so. start --play plays a linked track on its own, and an album or playlist as its context."
                ],
                arguments: [
                    nameArgument,
                    ArgumentSpec(
                        "PLAYLIST",
                        help:
                            "A playlist's name (one of yours), id, URI or URL, or an album's or a track's URI or URL; - or none: read from standard input.",
                        optional: true,
                        completion: .suggestions(["-", "spotify:playlist:", "spotify:album:", "spotify:track:"])),
                ],
                examples: [
                    ExampleSpec(
                        "spotify-playlists | jq -c 'select(.name==\"Morning\")' | routine-link link morning",
                        "Link the playlist called Morning."),
                    ExampleSpec(
                        "spotify-playlists get --duration Morning | routine-link link morning",
                        "Link it with its total duration, which show and the routine record then carry."),
                    ExampleSpec(
                        "routine-link link breathe https://open.spotify.com/track/4iV5W9uYEdYUVa79Axb7Rh",
                        "A session of a single song."),
                ]
            ).running(handler(link)),
            CommandSpec(name: "unlink", abstract: "remove a routine's playlist link", arguments: [nameArgument])
                .running(handler(unlink)),
            fitCommand.running(handler(fit)),
            CommandSpec(
                name: "open", abstract: "open the routine's playlist in Spotify", arguments: [nameArgument],
                options: [
                    Option.print
                ]
            ).running(handler(open)),
            CommandSpec(
                name: "start", abstract: "begin a session and open (or play) the playlist", arguments: [nameArgument],
                options: [playOption, Option.device],
                examples: [
                    ExampleSpec(
                        "routine-link start morning --play --device Kitchen", "Play the routine on the kitchen speaker."
                    )
                ]
            ).running(handler(start)),
            CommandSpec(
                name: "stop", abstract: "end the running session without a song count",
                discussion: [
                    "For a session that will not be logged (you stopped early, the pipeline was interrupted): it ends now, with no songs and the label \"not logged\", and history no longer shows it running. Prints the session record. To keep a count instead, pipe songcount's record to log. No running session: exit 1."
                ],
                arguments: [nameArgument]
            ).running(handler(stop)),
            CommandSpec(
                name: "log",
                abstract: "end the running session (or record a finished one) with a song count from standard input",
                discussion: [
                    "Reads one song_count record (songcount's output) from standard input. Without a running session, records a finished one that ended now and lasted as long as the count says was heard. No record on standard input: nothing is logged, exit 1. When standard input is a pipe, Ctrl-C does not stop log: it is for the watch at the start of the pipeline, and the count that follows it is still read and logged."
                ],
                arguments: [nameArgument],
                examples: [
                    ExampleSpec(
                        "spotify-nowplaying --watch --for 15m | songcount | routine-link log morning",
                        "Log what the next fifteen minutes got through.")
                ]
            ).running(handler(log)),
            CommandSpec(
                name: "run", abstract: "start, watch what plays for the routine's duration, then log the song count",
                arguments: [nameArgument],
                options: [
                    Option.watchFor,
                    playOption,
                    Option.device,
                ],
                examples: [
                    ExampleSpec(
                        "routine-link run morning",
                        "The whole routine: open the playlist, watch, log \"you got through 4.5 songs\".")
                ]
            ).running(handler(runRoutine)),
            CommandSpec(
                name: "history", abstract: "the sessions, newest first, as session records",
                arguments: [
                    ArgumentSpec("NAME", help: "Only this routine's sessions.", optional: true)
                ]
            ).running(handler(history)),
            CommandSpec(
                name: "forget-links", abstract: "clear every routine's playlist link, keeping routines and sessions"
            ).running(handler(forgetLinks)),
        ],
        input: [
            "link reads one playlist record (as spotify-playlists prints them: id, uri, name, images), a Spotify playlist object, or an id, URI or URL, when it is given no PLAYLIST. log reads one song_count record (as songcount prints it)."
        ],
        output: [
            "routine records (add, edit, list, show, rename, link, unlink): type (routine), name, duration_ms (or null), note (or null), playlist {id, uri, name, image_url} or null (name and image_url are null when linked offline), created_at (ISO 8601), session_count.",
            "session records (start, stop, log, run, history): type (session), routine, started_at, ended_at (null while running), duration_ms (null while running), playlist (as it was when the session started) or null, songs, label (\"4.5 songs\"), track_count, listened_ms (null until logged; songs, track_count and listened_ms stay null, and label is \"not logged\", for a session ended by stop or a later start). On a terminal, one line per routine or a table of sessions instead.",
        ],
        environment: [
            EnvironmentSpec(
                "BROWSER",
                "Commands that open the playlist link (a colon-separated list, tried in order; %s marks the link). Default: xdg-open, or open on macOS."
            ),
            EnvironmentSpec(
                "XDG_DATA_HOME",
                "Where \(RoutineStore.fileName) lives (under spotify-toolkit/). Default: ~/.local/share."),
            EnvironmentSpec("SPOTIFY_ACCESS_TOKEN", "Use this access token as is instead of the stored login."),
            EnvironmentSpec(
                "SPOTIFY_API_BASE",
                "The Web API: https, or http only to a loopback address (127.0.0.1, [::1]). A stored login is sent only to the services it was made against. Default: \(SpotifyWebAPI.defaultBase)."
            ),
            EnvironmentSpec(
                "SPOTIFY_TOOLKIT_FORCE_TTY", "Set to 1 to write the human form even when stdout is not a terminal."),
        ] + NetworkEnvironment.all,
        files: [
            FileSpec(
                "$XDG_DATA_HOME/spotify-toolkit/\(RoutineStore.fileName)",
                "The routines and their sessions (mode 0600, schema_version \(RoutineStore.schemaVersion))."),
            FileSpec(
                "$XDG_DATA_HOME/spotify-toolkit/\(RoutineStore.fileName).lock", "Serialises changes across processes."),
        ],
        exitCodes: [
            ExitCodeSpec(
                .notFound,
                "no such routine; open: no playlist linked; log: no song_count record on standard input; stop: no running session; run: nothing heard; remove: not confirmed"
            ),
            ExitCodeSpec(
                .dataError,
                "a duplicate name; bad standard input (the message names the line); \(RoutineStore.fileName) cannot be read (left as it is)"
            ),
            ExitCodeSpec(.unavailable, "open: no command could open the link; run: the watch could not start"),
            ExitCodeSpec(.tempFail, "the store stayed locked by another process; try again"),
            ExitCodeSpec(.noPermission, "run: not logged in (the watch says how to log in)"),
            ExitCodeSpec(
                .config, "\(RoutineStore.fileName) was written by a newer spotify-toolkit, or its directory is unsafe"),
        ],
        examples: [
            ExampleSpec("routine-link add morning --duration 15m", "A routine."),
            ExampleSpec(
                "routine-link link morning \"$(spotify-playlists | jq -r 'select(.name==\"Morning\").uri')\"",
                "Link a playlist by URI."),
            ExampleSpec("routine-link start morning", "Open the playlist in Spotify and begin a session."),
            ExampleSpec("routine-link run morning", "Start, watch for the routine's duration, log the songs heard."),
            ExampleSpec("routine-link history morning | jq -r .label", "How many songs each morning got through."),
        ],
        seeAlso: ["spotify-nowplaying", "songcount", "spotify-playlists", "spotify-auth"]
    )

    struct Invocation {
        let context: ToolContext
        let command: ParsedCommand
        let mode: OutputMode
        let store: DocumentStore<RoutineBook>

        var name: String { command.positionals.first ?? "" }

        func write(_ record: JSONValue, human: @autoclosure () -> String) throws {
            if mode == .human {
                // Routine and playlist names reach the terminal cleaned, line by line.
                let lines = human().split(separator: "\n", omittingEmptySubsequences: false)
                try context.stdout.writeText(
                    lines.map { TerminalText.clean(String($0)) }.joined(separator: "\n") + "\n")
            } else {
                try context.stdout.write(record)
            }
        }
    }

    /// A handler that gets the session: the command, its context, output mode and store.
    static func handler(_ body: @escaping @Sendable (Invocation) async throws -> ExitCode) -> CommandHandler {
        { command, context in
            try await body(
                Invocation(
                    context: context, command: command,
                    mode: context.outputMode(forcedJSON: command.flag(.jsonRecords)),
                    store: RoutineStore.make(environment: context.environment, clock: context.clock)))
        }
    }

    static func rename(_ invocation: Invocation) throws -> ExitCode {
        let command = invocation.command
        let routine = try invocation.store.update { try $0.rename(command.positionals[0], to: command.positionals[1]) }
        try invocation.write(routine.record, human: "renamed '\(command.positionals[0])' to '\(routine.name)'")
        return .success
    }

    static func unlink(_ invocation: Invocation) throws -> ExitCode {
        let routine = try invocation.store.update { try $0.link(invocation.name, to: nil) }
        try invocation.write(routine.record, human: "'\(routine.name)' has no playlist now")
        return .success
    }

    static func forgetLinks(_ invocation: Invocation) throws -> ExitCode {
        let cleared = try RoutineStore.forgetLinks(
            environment: invocation.context.environment, clock: invocation.context.clock)
        invocation.context.warn(
            "cleared the playlist links of \(plural(cleared, "routine")); routines and sessions are kept")
        return .success
    }

    /// The saved book, or an empty one; a read never locks and never creates the file.
    static func book(_ invocation: Invocation) throws -> RoutineBook {
        try invocation.store.read() ?? RoutineBook()
    }

    // MARK: Routines

    static func add(_ invocation: Invocation) async throws -> ExitCode {
        var durationMs: Int?
        if let text = invocation.command.value(Option.duration) {
            let milliseconds = try parseDuration(text)
            guard milliseconds > 0 else { throw ToolError.usage("--duration must be longer than 0") }
            durationMs = milliseconds
        }
        let note = invocation.command.value(Option.note)
        let routine = try invocation.store.update {
            try $0.add(
                name: invocation.name, durationMs: durationMs, note: note, now: isoTimestamp(invocation.context.now))
        }
        try invocation.write(routine.record, human: "added " + humanLine(routine))
        return .success
    }

    static func edit(_ invocation: Invocation) throws -> ExitCode {
        let change = try editRequest(invocation.command)
        let routine = try invocation.store.update { try $0.edit(invocation.name, change) }
        var line = "edited " + humanLine(routine)
        if let note = routine.note { line += "; note: " + note }
        try invocation.write(routine.record, human: line)
        if case .set(let durationMs) = change.durationMs, let playlist = routine.playlist {
            // A playlist fit made for the old duration no longer fills the new one.
            invocation.context.warn(
                "'\(routine.name)' is linked to \(playlistName(playlist)) (\(playlist.id)), which may fill the old duration; to fit \(formatClock(milliseconds: durationMs)): routine-link fit \(shellQuoted(routine.name)) --from PLAYLIST (or --liked)"
            )
        }
        return .success
    }

    /// What edit's options ask for, checked before the store is read, so a bad option is 64
    /// whatever the routine.
    static func editRequest(_ command: ParsedCommand) throws -> RoutineEdit {
        var change = RoutineEdit()
        let durationText = command.value(Option.newDuration)
        if command.flag(Option.noDuration) {
            guard durationText == nil else {
                throw ToolError.usage("--duration and --no-duration cannot be used together")
            }
            change.durationMs = .clear
        } else if let text = durationText {
            // "none" is the spelling of a cleared value that fits where a duration goes.
            if text.trimmingCharacters(in: .whitespaces).lowercased() == "none" {
                change.durationMs = .clear
            } else {
                let milliseconds = try parseDuration(text)
                guard milliseconds > 0 else {
                    throw ToolError.usage("--duration must be longer than 0 (--duration none clears it)")
                }
                change.durationMs = .set(milliseconds)
            }
        }
        if let note = command.value(Option.newNote) {
            change.note = note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? .clear : .set(note)
        }
        change.name = try command.value(Option.rename).map(RoutineBook.validatedName)
        guard !change.isEmpty else {
            throw ToolError.usage(
                "nothing to change; give --duration DURATION, --no-duration, --note TEXT (--note '' clears it) or --rename NEW"
            )
        }
        return change
    }

    static func list(_ invocation: Invocation) throws -> ExitCode {
        let routines = try book(invocation).routines
        if invocation.command.flag(namesOption) {
            for routine in routines { try invocation.context.stdout.writeText(TerminalText.clean(routine.name) + "\n") }
            return .success
        }
        if invocation.mode == .human {
            let rows = routines.map { routine in
                [
                    // A column needs no quotes around a name (review 23); sentences keep them.
                    routine.name, routine.durationMs.map { formatClock(milliseconds: $0) } ?? "-",
                    routine.playlist.map { $0.name ?? $0.uri } ?? "-", String(routine.sessions.count),
                    routine.note ?? "",
                ]
            }
            if !rows.isEmpty {
                try invocation.context.stdout.writeText(
                    table(header: ["NAME", "DURATION", "PLAYLIST", "SESSIONS", "NOTE"], rows: rows))
            }
        } else {
            for routine in routines { try invocation.context.stdout.write(routine.record) }
        }
        if routines.isEmpty && invocation.context.terminal.stderrIsTerminal {
            invocation.context.warn("no routines yet; add one with: routine-link add NAME --duration 15m")
        }
        return .success
    }

    static func show(_ invocation: Invocation) throws -> ExitCode {
        let book = try book(invocation)
        let routine = book.routines[try book.existingIndex(of: invocation.name)]
        var lines = [routine.name]
        lines.append("  duration  " + (routine.durationMs.map { formatClock(milliseconds: $0) } ?? "-"))
        if let note = routine.note { lines.append("  note      " + note) }
        if let playlist = routine.playlist {
            let length = playlist.durationMs.map { ", " + formatClock(milliseconds: $0) } ?? ""
            lines.append("  playlist  \(playlistName(playlist)) (\(playlist.uri))\(length)")
            if let image = playlist.imageURL { lines.append("  cover     " + image) }
        } else {
            lines.append("  playlist  -")
        }
        lines.append("  created   " + localTime(routine.createdAt, invocation.context))
        let last =
            routine.sessions.last.map {
                ", last \(localTime($0.startedAt, invocation.context))\($0.isRunning ? " (running)" : $0.label.map { ": \($0)" } ?? "")"
            } ?? ""
        lines.append("  sessions  \(routine.sessions.count)\(last)")
        try invocation.write(routine.record, human: lines.joined(separator: "\n"))
        return .success
    }

    static func remove(_ invocation: Invocation) async throws -> ExitCode {
        let skipQuestion = invocation.command.flag(Option.yes)
        if !skipQuestion {
            // Unlike spotify-playlists delete, remove has always refused to guess without a
            // terminal: a script says --yes.
            guard invocation.context.terminal.stdinIsTerminal else {
                throw ToolError.usage(
                    "remove asks before deleting; standard input is not a terminal, so pass --yes to remove without asking"
                )
            }
            let book = try book(invocation)
            let routine = book.routines[try book.existingIndex(of: invocation.name)]
            guard
                invocation.context.confirmed(
                    "remove routine '\(routine.name)'\(withSessions(routine.sessions.count))?", skipQuestion: false)
            else {
                invocation.context.warn("kept '\(routine.name)'; nothing was removed")
                return .notFound
            }
        }
        let removed = try invocation.store.update { try $0.remove(invocation.name) }
        invocation.context.warn("removed '\(removed.name)'\(withSessions(removed.sessions.count))")
        return .success
    }

    /// What goes with a routine that is removed: " and its 1 session", " (no sessions)" (never
    /// "its 0 sessions").
    static func withSessions(_ count: Int) -> String {
        count == 0 ? " (no sessions)" : " and its \(plural(count, "session"))"
    }

    // MARK: Links

    static func link(_ invocation: Invocation) async throws -> ExitCode {
        let context = invocation.context
        var playlist: PlaylistLink
        if invocation.command.positionals.count > 1 && invocation.command.positionals[1] != "-" {
            // Fail on an unknown routine before asking Spotify for a playlist's name.
            _ = try book(invocation).existingIndex(of: invocation.name)
            let named = try await PlaylistNames.resolve([invocation.command.positionals[1]], context) {
                (try? SpotifyReference.parse($0, expectingOneOf: PlaylistLink.kinds)) != nil
            }
            playlist = PlaylistLink(try SpotifyReference.argument(named[0], expectingOneOf: PlaylistLink.kinds))
        } else {
            guard !context.terminal.stdinIsTerminal || invocation.command.positionals.count > 1 else {
                throw ToolError.usage(
                    "give a PLAYLIST (id, URI or URL), or pipe a playlist record: spotify-playlists | jq -c 'select(.name==\"Morning\")' | routine-link link NAME"
                )
            }
            playlist = try playlistFromInput(invocation.context.stdin)
            // Fail on an unknown routine before asking Spotify anything.
            _ = try book(invocation).existingIndex(of: invocation.name)
        }
        if playlist.name == nil {
            playlist = try await fetchMetadata(playlist, context)
        }
        let linked = playlist
        let routine = try invocation.store.update { try $0.link(invocation.name, to: linked) }
        try invocation.write(routine.record, human: "linked '\(routine.name)' to \(playlistName(linked))")
        return .success
    }

    /// One playlist from standard input: a record, a Spotify playlist object, or an id/URI/URL line.
    static func playlistFromInput(_ input: StandardInput) throws -> PlaylistLink {
        var found: [PlaylistLink] = []
        try input.forEachLine { line in
            guard found.count <= 1 else { return }
            let reference = try SpotifyReference.parseLine(line, expectingOneOf: PlaylistLink.kinds)
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("{"), let value = try? JSONValue.parse(line),
                let fromRecord = PlaylistLink(playlistObject: value)
            {
                found.append(fromRecord)
            } else {
                found.append(PlaylistLink(reference))
            }
        }
        guard let first = found.first else {
            throw ToolError(.notFound, "standard input has no playlist; give a PLAYLIST or pipe one playlist record")
        }
        guard found.count == 1 else {
            throw ToolError.dataError(
                "standard input has more than one playlist; select one, e.g. with jq -c 'select(.name==\"Morning\")'")
        }
        return first
    }

    /// The name and cover from `GET /playlists/{id}` (`/albums/{id}`, `/tracks/{id}`; a track's
    /// and a short album's duration too). Without the network or a login, the id alone (said on
    /// stderr); one Spotify does not know is an error.
    static func fetchMetadata(_ playlist: PlaylistLink, _ context: ToolContext) async throws -> PlaylistLink {
        let kind = playlist.kind
        do {
            let api = try context.webAPI()
            let result = try await api.get(
                "/\(kind)s/\(playlist.id)", query: kind == .playlist ? [("fields", "id,uri,name,images")] : [])
            guard let object = try? JSONValue.parse(result.body), object.objectValue != nil else {
                throw ToolError.unavailable("Spotify's answer for \(kind) \(playlist.id) is not \(kind.withArticle)")
            }
            // The id asked for, with the answer's name and cover even when its uri or type is odd.
            var fetched = playlist
            fetched.takeMetadata(from: object)
            if kind == .album { fetched.durationMs = albumDuration(object) }
            return fetched
        } catch let error as ToolError where error.exitCode == .notFound {
            throw ToolError(.notFound, "Spotify has no \(kind) \(playlist.id) you can see (404); nothing linked")
        } catch let error as ToolError {
            context.warn("linked the playlist id alone, without its name and cover: \(error.message)")
            return playlist
        }
    }

    /// An album's length when its object holds every track (up to 50 embedded), else nil.
    static func albumDuration(_ album: JSONValue) -> Int? {
        guard let tracks = album["tracks"]?["items"]?.arrayValue, tracks.count == album["tracks"]?["total"]?.intValue
        else { return nil }
        var total = 0
        for track in tracks {
            guard let duration = track["duration_ms"]?.intValue, duration >= 0 else { return nil }
            total = saturatingAdd(total, duration)
        }
        return total
    }

    static func linkedPlaylist(_ routine: Routine) throws -> PlaylistLink {
        guard let playlist = routine.playlist else {
            throw ToolError(
                .notFound,
                "'\(routine.name)' has no playlist linked; link one with: routine-link link '\(routine.name)' PLAYLIST")
        }
        return playlist
    }

    static func open(_ invocation: Invocation) throws -> ExitCode {
        let book = try book(invocation)
        let playlist = try linkedPlaylist(book.routines[try book.existingIndex(of: invocation.name)])
        let opener = LinkOpener(environment: invocation.context.environment)
        let link = LinkOpener.playlistLink(playlist, schemeHasHandler: opener.spotifySchemeHasHandler())
        if invocation.command.flag(Option.print) {
            try invocation.context.stdout.writeText(link + "\n")
            return .success
        }
        return try openLink(link, playlist, invocation.context)
    }

    /// Opens `link`; on failure says why and names the link to open by hand.
    @discardableResult
    static func openLink(
        _ link: String, _ playlist: PlaylistLink, _ context: ToolContext, failure: ExitCode = .unavailable
    ) throws -> ExitCode {
        switch LinkOpener(environment: context.environment).open(link) {
        case .opened:
            if context.terminal.stderrIsTerminal { context.warn("opened \(playlistName(playlist)): \(link)") }
            return .success
        case .failed(let reasons):
            let message = "could not open \(link) (\(reasons.joined(separator: "; "))); open it yourself or set BROWSER"
            if failure == .success {
                context.warn(message)
                return .success
            }
            throw ToolError(failure, message)
        }
    }

    // MARK: Sessions

    static func start(_ invocation: Invocation) async throws -> ExitCode {
        try checkPlayOptions(invocation.command)
        let (routine, started) = try await beginSession(invocation)
        try invocation.write(
            routine.record(of: started),
            human:
                "started '\(routine.name)' at \(localTime(started.startedAt, invocation.context))\(started.playlist.map { " with \(playlistName($0))" } ?? "")"
        )
        return .success
    }

    /// `--device` says where `--play` plays: alone, it would be silently ignored.
    static func checkPlayOptions(_ command: ParsedCommand) throws {
        if command.value(Option.device) != nil && !command.flag(playOption) {
            throw ToolError.usage("--device goes with --play (it names the device to play on)")
        }
    }

    static func stop(_ invocation: Invocation) throws -> ExitCode {
        let (routine, closed) = try invocation.store.update {
            try $0.stop(invocation.name, now: isoTimestamp(invocation.context.now))
        }
        guard !closed.isEmpty else {
            throw ToolError(.notFound, "'\(routine.name)' has no running session; nothing to stop")
        }
        for session in closed {
            try invocation.write(
                routine.record(of: session),
                human:
                    "stopped the session of '\(routine.name)' started \(localTime(session.startedAt, invocation.context)); not logged"
            )
        }
        return .success
    }

    /// Records the session, then opens or plays its playlist. Opening failures never undo the
    /// session (it has begun; the message names the link to open by hand).
    static func beginSession(_ invocation: Invocation) async throws -> (Routine, RoutineSession) {
        let context = invocation.context
        let (routine, started, closed) = try invocation.store.update {
            try $0.start(invocation.name, now: isoTimestamp(invocation.context.now))
        }
        // Said once: the earlier session is closed now, so no later start finds it running.
        if let latest = closed.last {
            let what =
                closed.count == 1
                ? "the earlier session (started \(localTime(latest.startedAt, invocation.context))), which was never logged; history shows it"
                : "\(closed.count) earlier sessions (the latest started \(localTime(latest.startedAt, invocation.context))), which were never logged; history shows them"
            context.warn("closed \(what) as not logged")
        }
        guard let playlist = started.playlist else {
            context.warn("'\(routine.name)' has no playlist linked; nothing to open")
            return (routine, started)
        }
        if invocation.command.flag(playOption) {
            do {
                let player = try context.player()
                let device = try await player.commandTarget(invocation.command.value(Option.device))
                // A track is played as itself; a playlist or an album as the context it is.
                let target: SpotifyPlayer.PlayTarget =
                    playlist.kind == .track ? .items([playlist.uri]) : .context(uri: playlist.uri, offsetURI: nil)
                try await player.play(target, deviceID: device.id)
                context.warn("playing \(playlistName(playlist)) on \(device.name)")
                return (routine, started)
            } catch let error as ToolError {
                context.warn("could not start playback, opening the playlist instead: \(error.message)")
            }
        }
        let link = LinkOpener.playlistLink(
            playlist, schemeHasHandler: LinkOpener(environment: context.environment).spotifySchemeHasHandler())
        try openLink(link, playlist, context, failure: .success)
        return (routine, started)
    }

    static func log(_ invocation: Invocation) async throws -> ExitCode {
        guard !invocation.context.terminal.stdinIsTerminal else {
            throw ToolError.usage(
                "log reads a song_count record from standard input: spotify-nowplaying --watch --for 15m | songcount | routine-link log NAME"
            )
        }
        _ = try book(invocation).existingIndex(of: invocation.name)
        // The end of a listening pipeline: Ctrl-C is for the watch, which then closes; the count
        // that follows must still be read and logged.
        let shield = ListeningShield.begin(readingFrom: invocation.context.stdin.fileDescriptor)
        let read = Result { try songCountFromInput(invocation.context.stdin) }
        shield.finish()
        guard let count = try read.get() else {
            invocation.context.warn("no song_count record on standard input; nothing logged")
            return .notFound
        }
        return try await logCount(count, invocation)
    }

    /// `sessionID`: run's own session, which takes the count even if closed meanwhile.
    static func logCount(_ count: SongCountSummary, _ invocation: Invocation, sessionID: String? = nil) async throws
        -> ExitCode
    {
        let (routine, logged) = try invocation.store.update {
            try $0.log(invocation.name, count: count, now: isoTimestamp(invocation.context.now), sessionID: sessionID)
        }
        try invocation.write(routine.record(of: logged), human: "'\(routine.name)': you got through \(count.label)")
        return .success
    }

    /// The one song_count record on standard input; nil when there is none.
    static func songCountFromInput(_ input: StandardInput) throws -> SongCountSummary? {
        var counts: [SongCountSummary] = []
        try input.forEachObject(notAnObject: "not a JSON object; log reads songcount's song_count record") { value in
            guard let count = SongCountSummary(record: value) else {
                let type = value["type"]?.stringValue.map { "a \($0) record" } ?? "a record without a type"
                throw StandardInput.Rejection(
                    "\(type), not a song_count record with songs; pipe it through songcount first")
            }
            counts.append(count)
        }
        guard counts.count <= 1 else {
            throw ToolError.dataError("standard input has \(counts.count) song_count records; log takes one")
        }
        return counts.first
    }

    static func runRoutine(_ invocation: Invocation) async throws -> ExitCode {
        let context = invocation.context
        try checkPlayOptions(invocation.command)
        let book = try book(invocation)
        let routine = book.routines[try book.existingIndex(of: invocation.name)]
        let watchMs: Int
        if let text = invocation.command.value(Option.watchFor) {
            watchMs = try parseDuration(text)
        } else if let duration = routine.durationMs {
            watchMs = duration
        } else {
            throw ToolError.usage("'\(routine.name)' has no duration; give one with --for DURATION")
        }
        guard watchMs > 0 else { throw ToolError.usage("--for must be longer than 0") }
        guard let watch = ListeningPipeline.sibling("spotify-nowplaying", environment: context.environment),
            let count = ListeningPipeline.sibling("songcount", environment: context.environment)
        else {
            throw ToolError.unavailable("run needs spotify-nowplaying and songcount beside routine-link or on PATH")
        }
        // The watch needs a login: without one, say so before the playlist opens or a session
        // starts (review item 31), not after.
        if (context.environment["SPOTIFY_ACCESS_TOKEN"] ?? "").isEmpty,
            try TokenStores.make(environment: context.environment).load() == nil
        {
            throw ToolError.noPermission(
                "run watches what plays, which needs a login; run 'spotify-auth login' first (nothing was started)")
        }
        let (_, started) = try await beginSession(invocation)

        var environment = context.environment.variables
        environment.removeValue(forKey: "SPOTIFY_TOOLKIT_FORCE_TTY")  // the children talk JSON Lines to each other
        let pipeline = ListeningPipeline(
            watchCommand: watch + ["--watch", "--json", "--for", "\(watchMs / 1000)s"],
            countCommand: count + ["--json"], environment: environment, errors: context.stderr.fileDescriptor)
        let display = LiveDisplay(
            enabled: context.terminal.stderrIsTerminal, stderr: context.stderr, zone: context.timeZone)
        let outcome = try pipeline.run { line in display.show(line) }
        display.clear()

        let verdict = outcome.verdict
        if case .log(let count, let interrupted) = verdict {
            if interrupted { context.warn("stopped early; logging what was heard") }
            do {
                return try await logCount(count, invocation, sessionID: started.id)
            } catch let error as ToolError {
                // A full disk must not lose the count: print it where `routine-link log` can replay it.
                try context.stdout.write(SongCountRecord.summary(count))
                throw ToolError(
                    error.exitCode,
                    "\(error.message); the count is on standard output: log it later with routine-link log \(shellQuoted(routine.name))"
                )
            }
        }
        _ = try invocation.store.update { $0.discardSession(started.id) }
        switch verdict {
        case .watchFailed(let status, let heard):
            // Not logged: the history holds sessions the user ran to their end (or stopped). What
            // was heard is printed, so logging it anyway is one command away.
            var message = "the watch failed (exit status \(status)); no session logged"
            if let heard {
                try context.stdout.write(SongCountRecord.summary(heard))
                message +=
                    "; what was heard (\(heard.label)) is on standard output: log it anyway with routine-link log \(shellQuoted(routine.name))"
            }
            let code = ExitCode(rawValue: status).flatMap { $0 == .success ? nil : $0 } ?? .unavailable
            throw ToolError(code, message)
        case .countFailed(let status):
            context.stderr.write(TerminalText.clean(String(decoding: outcome.countErrors, as: UTF8.self)))
            throw ToolError(
                ExitCode(rawValue: status).flatMap { $0 == .success ? nil : $0 } ?? .software,
                "songcount failed (exit status \(status)); no session logged")
        case .countUnreadable:
            throw ToolError(.software, "songcount exited 0 without a song_count record; no session logged")
        case .nothingHeard, .log:
            context.warn("nothing heard; no session logged")
            return .notFound
        }
    }

    /// `name` as one shell word, for a command the user may paste.
    static func shellQuoted(_ name: String) -> String {
        let clean = TerminalText.clean(name)
        let plain = clean.unicodeScalars.allSatisfy {
            $0.isAlphanumeric || "-_.".unicodeScalars.contains($0)
        }
        return plain && !clean.isEmpty ? clean : "'" + clean.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func history(_ invocation: Invocation) throws -> ExitCode {
        let book = try book(invocation)
        let records = try book.history(of: invocation.command.positionals.first)
        if invocation.mode == .human {
            let rows = records.map { record -> [String] in
                let started = record["started_at"]?.stringValue ?? ""
                let length = record["duration_ms"]?.intValue.map { formatClock(milliseconds: $0) } ?? "running"
                return [
                    localTime(started, invocation.context), length, record["routine"]?.stringValue ?? "",
                    record["playlist"]?["name"]?.stringValue ?? record["playlist"]?["uri"]?.stringValue ?? "-",
                    record["label"]?.stringValue ?? "-",
                ]
            }
            if !rows.isEmpty {
                try invocation.context.stdout.writeText(
                    table(header: ["STARTED", "LENGTH", "ROUTINE", "PLAYLIST", "SONGS"], rows: rows))
            }
        } else {
            for record in records { try invocation.context.stdout.write(record) }
        }
        if records.isEmpty && invocation.context.terminal.stderrIsTerminal {
            invocation.context.warn("no sessions yet")
        }
        return .success
    }

    // MARK: Human forms

    static func playlistName(_ playlist: PlaylistLink) -> String {
        TerminalText.clean(playlist.name.map { "'\($0)'" } ?? playlist.uri)
    }

    static func humanLine(_ routine: Routine) -> String {
        var parts = ["'\(routine.name)'"]
        if let duration = routine.durationMs { parts.append(formatClock(milliseconds: duration)) }
        if let playlist = routine.playlist { parts.append("with " + playlistName(playlist)) }
        return parts.joined(separator: ", ")
    }

    /// "2026-11-22 08:00" in the user's time zone (`TZ`), for people.
    static func localTime(_ iso: String, _ context: ToolContext) -> String {
        LocalTime.text(iso, "yyyy-MM-dd HH:mm", in: context.timeZone)
    }

    /// The core's TextTable with each column as wide as its widest cell (routines and sessions
    /// are few, so the whole table is known before it is drawn).
    static func table(header: [String], rows: [[String]]) -> String {
        let columns = header.enumerated().map { index, title in
            TextTable.Column.fixed(
                title, width: rows.map { index < $0.count ? DisplayWidth.of(TextTable.clean($0[index])) : 0 }.max() ?? 0
            )
        }
        let table = TextTable(columns, totalWidth: 0)
        return ([table.header] + rows.map(table.line)).map { $0.trimmingTrailingSpaces() }.joined(separator: "\n")
            + "\n"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

extension RoutineLink {
    /// The options, each declared once: the spec lists them and the handlers look them up by them.
    enum Option {
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
                "With --play: play on this device (an id, or a name from 'spotify-nowplaying devices'; a unique prefix will do) instead of the active one.",
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
