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

    package static let spec = CommandSpec(
        name: "routine-link",
        abstract: "routines with a linked Spotify playlist, opened in Spotify, and a session history in songs",
        discussion: [
            """
            routine-link keeps your routines, each a name, an optional duration and note, and an optional linked \
            playlist (its id, URI, name and cover image URL, kept so the routine can be shown and opened offline), and \
            what you heard during each. start opens the playlist in Spotify and records a session; log ends it with \
            the song count of what was heard, read from songcount: spotify-nowplaying --watch --for 15m | songcount | \
            routine-link log morning. run does all of that in one command, with exactly that pipeline underneath. A \
            session that will not be logged ends with stop; a new start or run of the routine ends a session left \
            running the same way (ended then, no songs, labelled "not logged") and says so once.
            """,
            """
            Everything works offline except fetching a playlist's name and cover when link is given only an id \
            (without the network the id alone is linked, and routine-link says so), start --play, and run. Names may \
            be any text; they match case-insensitively, and two routines cannot share a name.
            """,
            "open opens the playlist in the Spotify app when one is installed, else in the browser.",
            """
            run NAME starts the routine (opening the playlist, or with --play playing it) and watches for the \
            routine's duration (or --for), counting the songs; Ctrl-C ends it early and the count is logged all the \
            same. On a terminal, the current song and the running count are shown on stderr. When nothing was heard, \
            no session is logged. When the watch fails (not logged in, a crash), no session is logged either and run \
            exits with the watch's status; what was heard is printed as a song_count record, so routine-link log NAME \
            can still log it. When the count cannot be logged (a full disk), it is printed the same way.
            """,
            """
            A routines file that cannot be read, or was written by a newer version, is reported with its path and left \
            untouched.
            """,
        ],
        notes: [
            """
            open uses the playlist's spotify: URI when something is registered to open those (xdg-mime query default \
            x-scheme-handler/spotify; Launch Services on macOS), else https://open.spotify.com/playlist/ID, and hands \
            it to each command of $BROWSER in turn, then xdg-open (open on macOS).
            """,
            """
            run runs spotify-nowplaying --watch --for DURATION piped into songcount, both taken from the directory \
            routine-link is in (else from PATH) and put in a process group of their own. Ctrl-C (like SIGTERM and \
            SIGHUP) reaches only routine-link, which asks the watch to stop; the watch prints its final record, and \
            songcount's count is logged.
            """,
            """
            The store is \(RoutineStore.fileName) in the data directory: one JSON document (schema_version \
            \(RoutineStore.schemaVersion)) written atomically under a lock, so concurrent commands lose nothing.
            """,
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
            ).running(add).offering(.jsonRecords),
            CommandSpec(
                name: "edit", abstract: "change a routine's duration, note or name, and only what is given",
                discussion: [
                    """
                    Prints the routine record, as add does. --duration none (or --no-duration) clears the duration and \
                    --note '' clears the note; --rename NEW follows rename's rule (names are unique, \
                    case-insensitively; the sessions follow). Without anything to change, exit 64. A new --duration on \
                    a routine with a linked playlist suggests fitting one to it (routine-link fit).
                    """
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
            ).running(edit).offering(.jsonRecords),
            CommandSpec(
                name: "list", abstract: "list the routines, as routine records", aliases: ["ls"],
                options: [Option.names]
            )
            .running(list).offering(.jsonRecords),
            CommandSpec(name: "show", abstract: "show one routine, as a routine record", arguments: [nameArgument])
                .running(show).offering(.jsonRecords),
            CommandSpec(
                name: "rename", abstract: "rename a routine (its sessions follow)",
                arguments: [
                    ArgumentSpec("OLD", help: "The routine's current name."),
                    ArgumentSpec("NEW", help: "Its new name."),
                ]
            ).running(rename).offering(.jsonRecords),
            CommandSpec(
                name: "remove", abstract: "remove a routine and its sessions", aliases: ["rm"],
                arguments: [nameArgument],
                options: [
                    Option.yes
                ]
            ).running(remove),
            CommandSpec(
                name: "link", abstract: "link a playlist, an album or a single track to a routine",
                discussion: [
                    """
                    PLAYLIST is a playlist's name (one of yours), id, spotify:playlist: URI or open.spotify.com URL, \
                    or an album's or a track's spotify:album: or spotify:track: URI or URL (a session of one album, or \
                    of one song); without it, or for -, one record (or id, URI or URL) is read from standard input: a \
                    playlist record, a track record. The name, cover image and duration come from the record (a \
                    spotify-playlists get --duration record carries the playlist's total duration_ms, a track record \
                    its own), or when only an id is given, from Spotify (a track's duration, and an album's when it \
                    holds at most 50 tracks); when Spotify cannot be asked (offline, not logged in), the id alone is \
                    linked and routine-link says so. start --play plays a linked track on its own, and an album or \
                    playlist as its context.
                    """
                ],
                arguments: [
                    nameArgument,
                    ArgumentSpec(
                        "PLAYLIST",
                        help:
                            """
                            A playlist's name (one of yours), id, URI or URL, or an album's or a track's URI or URL; - \
                            or none: read from standard input.
                            """,
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
            ).running(link).offering(.jsonRecords),
            CommandSpec(name: "unlink", abstract: "remove a routine's playlist link", arguments: [nameArgument])
                .running(unlink).offering(.jsonRecords),
            fitCommand.running(fit).offering(.jsonRecords),
            CommandSpec(
                name: "open", abstract: "open the routine's playlist in Spotify", arguments: [nameArgument],
                options: [
                    Option.print
                ]
            ).running(open),
            CommandSpec(
                name: "start", abstract: "begin a session and open (or play) the playlist", arguments: [nameArgument],
                options: [Option.play, Option.device],
                examples: [
                    ExampleSpec(
                        "routine-link start morning --play --device Kitchen", "Play the routine on the kitchen speaker."
                    )
                ]
            ).running(start).offering(.jsonRecords),
            CommandSpec(
                name: "stop", abstract: "end the running session without a song count",
                discussion: [
                    """
                    For a session that will not be logged (you stopped early, the pipeline was interrupted): it ends \
                    now, with no songs and the label "not logged", and history no longer shows it running. Prints the \
                    session record. To keep a count instead, pipe songcount's record to log. No running session: exit 1.
                    """
                ],
                arguments: [nameArgument]
            ).running(stop).offering(.jsonRecords),
            CommandSpec(
                name: "log",
                abstract: "end the running session (or record a finished one) with a song count from standard input",
                discussion: [
                    """
                    Reads one song_count record (songcount's output) from standard input. Without a running session, \
                    records a finished one that ended now and lasted as long as the count says was heard. No record on \
                    standard input: nothing is logged, exit 1. When standard input is a pipe, Ctrl-C does not stop \
                    log: it is for the watch at the start of the pipeline, and the count that follows it is still read \
                    and logged.
                    """
                ],
                arguments: [nameArgument],
                examples: [
                    ExampleSpec(
                        "spotify-nowplaying --watch --for 15m | songcount | routine-link log morning",
                        "Log what the next fifteen minutes got through.")
                ]
            ).running(log).offering(.jsonRecords),
            CommandSpec(
                name: "run", abstract: "start, watch what plays for the routine's duration, then log the song count",
                arguments: [nameArgument],
                options: [
                    Option.watchFor,
                    Option.play,
                    Option.device,
                    Option.stopAtEnd,
                ],
                examples: [
                    ExampleSpec(
                        "routine-link run morning",
                        "The whole routine: open the playlist, watch, log \"you got through 4.5 songs\".")
                ]
            ).running(RoutineRun.run).offering(.jsonRecords),
            CommandSpec(
                name: "history", abstract: "the sessions, newest first, as session records",
                arguments: [
                    ArgumentSpec("NAME", help: "Only this routine's sessions.", optional: true)
                ]
            ).running(history).offering(.jsonRecords),
            CommandSpec(
                name: "forget-links", abstract: "clear every routine's playlist link, keeping routines and sessions"
            ).running(forgetLinks),
        ],
        input: [
            """
            link reads one playlist record (as spotify-playlists prints them: id, uri, name, images), a Spotify \
            playlist object, or an id, URI or URL, when it is given no PLAYLIST. log reads one song_count record (as \
            songcount prints it).
            """
        ],
        output: [
            """
            routine records (add, edit, list, show, rename, link, unlink): type (routine), name, duration_ms (or \
            null), note (or null), playlist {id, uri, name, image_url} or null (name and image_url are null when \
            linked offline), created_at (ISO 8601), session_count.
            """,
            """
            session records (start, stop, log, run, history): type (session), routine, started_at, ended_at (null \
            while running), duration_ms (null while running), playlist (as it was when the session started) or null, \
            songs, label ("4.5 songs"), track_count, listened_ms (null until logged; songs, track_count and \
            listened_ms stay null, and label is "not logged", for a session ended by stop or a later start). On a \
            terminal, one line per routine or a table of sessions instead.
            """,
        ],
        environment: [
            EnvironmentSpec(
                "BROWSER",
                """
                Commands that open the playlist link (a colon-separated list, tried in order; %s marks the link). \
                Default: xdg-open, or open on macOS.
                """
            ),
            EnvironmentSpec(
                "XDG_DATA_HOME",
                "Where \(RoutineStore.fileName) lives (under spotify-toolkit/). Default: ~/.local/share."),
            SpotifyEnvironment.accessToken,
            SpotifyEnvironment.apiBase,
            EnvironmentSpec.forcedTerminal(),
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
                """
                no such routine; open: no playlist linked; log: no song_count record on standard input; stop: no \
                running session; run: nothing heard; remove: not confirmed
                """
            ),
            ExitCodeSpec(
                .dataError,
                """
                a duplicate name; bad standard input (the message names the line); \(RoutineStore.fileName) cannot be \
                read (left as it is)
                """
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

    static func rename(_ options: RenameOptions, _ context: ToolContext) throws -> ExitCode {
        let routine = try store(context).update { try $0.rename(options.old, to: options.new) }
        try Printer(context, json: options.json).write(
            routine.record, human: "renamed '\(options.old)' to '\(routine.name)'")
        return .success
    }

    static func unlink(_ options: RoutineOptions, _ context: ToolContext) throws -> ExitCode {
        let routine = try store(context).update { try $0.link(options.name, to: nil) }
        try Printer(context, json: options.json).write(routine.record, human: "'\(routine.name)' has no playlist now")
        return .success
    }

    static func forgetLinks(_ options: NoOptions, _ context: ToolContext) throws -> ExitCode {
        try RoutineStore.forgetLinks(context)
        return .success
    }

    /// The routines file, as this run sees it (its environment and clock).
    static func store(_ context: ToolContext) -> DocumentStore<RoutineBook> {
        RoutineStore.make(environment: context.environment, clock: context.clock)
    }

    /// The saved book, or an empty one; a read never locks and never creates the file.
    static func book(_ context: ToolContext) throws -> RoutineBook {
        try store(context).read() ?? RoutineBook()
    }
}
