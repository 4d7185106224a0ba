import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `spotify-nowplaying`: what plays now, a watch that logs every change, playback control and
/// listening history.
package enum SpotifyNowPlaying {
    static let deviceOption = OptionSpec(
        "device", value: "NAME|ID",
        help:
            """
            Send the command to this device (an id, or a name from 'spotify-nowplaying devices'; a unique prefix will \
            do) instead of the active one.
            """,
        completion: .command("spotify-nowplaying devices --names")
    )
    static let deviceNamesOption = OptionSpec(
        "names",
        help:
            """
            Print only the devices' names, one per line (what shell completion offers): one try with a 2-second \
            deadline, and nothing printed when it fails (exit 69), so a Tab never blocks the shell.
            """
    )

    /// A playback command's declaration: it offers `--device`. Its options read the arguments
    /// before anything touches the login or the network (exit 64).
    static func playbackCommand(
        _ name: String, _ abstract: String, arguments: [ArgumentSpec] = [], discussion: [String] = [],
        notes: [String] = [], examples: [ExampleSpec] = []
    ) -> CommandSpec {
        CommandSpec(
            name: name, abstract: abstract, discussion: discussion, notes: notes, arguments: arguments,
            options: [deviceOption],
            examples: examples
        )
    }

    package static let spec = CommandSpec(
        name: "spotify-nowplaying",
        abstract: "what Spotify plays now, a watch that logs every change, playback control and history",
        discussion: [
            """
            spotify-nowplaying tells what Spotify plays now, logs what you listen to, and controls playback. Alone it \
            prints what plays now: one line on a terminal (a play or pause sign, the name, the artists and the \
            position, e.g. (1:23 / 3:45)), a now_playing record when piped; when nothing plays (no device, a private \
            session, an ad or an unknown item; with --playing-only also when paused) it prints nothing and exits 1, \
            like grep without a match.
            """,
            """
            --watch keeps going and prints a record whenever the song or the play state changes, each line at once, \
            so spotify-nowplaying --watch --for 15m | songcount counts the songs you got through (routine-link run \
            does that for a routine). --for DURATION stops the watch after that long; Ctrl-C (SIGINT), SIGTERM and \
            SIGHUP stop it too. On stopping it prints a last record (final: true) with the latest observed progress, \
            carried forward to the moment it stopped while the song was playing, and exits 0.
            """,
            """
            The playback commands (play, pause, next, previous, queue with URIs, shuffle, repeat, volume, seek, \
            transfer) need Spotify Premium and a login with the playback scope (spotify-auth login --scope playback). \
            A command that Spotify accepted exits 0, prints nothing on stdout and says on stderr what was sent. like \
            and unlike save or remove the track that plays now in your Liked Songs and need the edit scope instead \
            (no Premium). recent lists what you played lately and needs the history scope; history keeps a \
            listening log of your own (sync, import of Spotify's downloads; see its help). queue alone prints what \
            plays next (see its help). pause --at-end and pause --after N pause when a song ends.
            """,
        ],
        notes: [
            """
            The one shot asks GET /me/player/currently-playing. --watch polls it every --interval while a song plays; \
            when the song ends within two intervals, the next poll comes just after its predicted end, so a song \
            change is seen within a second without extra calls. A pause is polled at --interval for a minute, then \
            every minute, as is a player with nothing (or an ad) playing: an idle hour costs 60 requests of the \
            app's daily quota. While a watch runs, it keeps what Spotify last answered where a one-shot \
            spotify-nowplaying of the same login (and the same --with-device) finds it: until the watch's next poll \
            is due, the one shot prints from it (progress carried forward) without a request of its own, so a \
            status bar beside a watch costs nothing; --fresh asks Spotify anyway. Network errors, 5xx answers, \
            unreadable answers and rate limits are reported once on stderr and retried with backoff (a Retry-After is \
            obeyed up to SPOTIFY_TOOLKIT_MAX_RETRY_WAIT, then it polls again); an access token that expires during a \
            long watch is refreshed. --for stops the watch on time even while a request hangs.
            """,
            """
            Spotify carries out playback commands asynchronously on the device: exit 0 means Spotify accepted the \
            command, not that the device has done it yet.
            """,
        ],
        options: [
            .jsonRecords,
            Option.withDevice,
            Option.playingOnly,
            Option.fresh,
            Option.watch,
            Option.interval,
            Option.watchFor,
            // The benchmark's baseline: fixed polling through the same code.
            Option.fixedInterval,
            Option.oldDeviceFlag,
        ],
        subcommands: [
            playbackCommand(
                "play", "start or resume playback: a playlist, album, artist or show, or tracks and episodes",
                arguments: [
                    ArgumentSpec(
                        "URI",
                        help:
                            """
                            A playlist, album, artist or show (played as a context), or tracks and episodes (Spotify \
                            takes about 230 in one play: the first that fit are played, and stderr says how many were \
                            left out); ids (taken as tracks), spotify: URIs, open.spotify.com URLs, JSON records, or \
                            the name of one of your playlists; - (alone) or none: read them from standard input.
                            """,
                        optional: true, repeatable: true)
                ],
                discussion: [
                    """
                    With no URI and records on standard input (track records, as spotify-tracks or spotify-playlists \
                    local show print them, or one URI per line), plays those tracks in order; local files are skipped \
                    (Spotify cannot start them remotely). With no URI and standard input a terminal (or /dev/null, or \
                    closed), resumes what was paused; an empty pipe or file is an error (exit 1) and never resumes.
                    """,
                    """
                    Spotify takes about 9 KB of tracks and episodes in one play (about 230; its front end refuses \
                    more): the first that fit are played, and stderr says how many were left out. To play more, make \
                    them a playlist (spotify-playlists create NAME < FILE) and play that.
                    """,
                ],
                examples: [
                    ExampleSpec(
                        "spotify-nowplaying play spotify:playlist:3cEYpjA9oz9GiPac4AsH4n",
                        "Play a playlist on the active device."),
                    ExampleSpec(
                        "spotify-playlists local show Mix | spotify-nowplaying play --device Kitchen",
                        "Play an app-local playlist on the kitchen speaker."),
                ]
            ).running(play),
            pauseCommand,
            playbackCommand("next", "skip to the next track").running { (options: ControlOptions, context) in
                try await send(to: options.device, context) { player, deviceID in
                    try await player.next(deviceID: deviceID)
                    return "skip to the next track"
                }
            },
            playbackCommand("previous", "go back to the previous track").running {
                (options: ControlOptions, context) in
                try await send(to: options.device, context) { player, deviceID in
                    try await player.previous(deviceID: deviceID)
                    return "go back to the previous track"
                }
            },
            queueCommand,
        ] + settingCommands + [
            CommandSpec(
                name: "devices", abstract: "list the devices Spotify can play on, as device records",
                options: [deviceNamesOption]
            ).running(devices).offering(.jsonRecords),
            CommandSpec(
                name: "recent",
                abstract: "recently played tracks, oldest first, as played records",
                discussion: [
                    """
                    Prints what you played lately (Spotify keeps about the last 50 plays), oldest first, so \
                    spotify-nowplaying recent --since 1h | songcount counts the songs of the last hour. Needs the \
                    history scope (spotify-auth login --scope history).
                    """
                ],
                notes: ["Reads GET /me/player/recently-played page by page."],
                options: [
                    Option.since,
                    Option.after,
                    TrackFormatOption.option,
                ],
                examples: [
                    ExampleSpec(
                        "spotify-nowplaying recent --since 1h | songcount --label",
                        "How many songs you heard in the last hour."),
                    ExampleSpec(
                        "spotify-nowplaying recent --format m3u > today.m3u",
                        "What you played lately as an M3U playlist."),
                ]
            ).running(recent).offering(.jsonRecords),
            historyCommand,
        ],
        input: [
            """
            play reads track records (or one URI per line) from standard input when it is given no URI and standard \
            input is not a terminal.
            """
        ],
        output: [
            """
            now_playing records: the item's fields as in spotify-tracks' records (id, uri, name, duration_ms, artists \
            [{id, name}], album {id, name, images}, is_local; episodes carry show instead of artists and album) with \
            type now_playing, then is_playing, progress_ms, currently_playing_type (track, episode, ad, unknown; null \
            when nothing plays), context {type, uri} or null, with --with-device also device {id, name, type}, \
            shuffle_state and repeat_state, then observed_at (ISO 8601, UTC). A watch also reports an ad or nothing \
            playing, with only the state fields, and marks its last record final: true.
            """,
            """
            devices prints device records: type (device), id (null for some restricted devices), name, device_type \
            (Computer, Smartphone, Speaker...), is_active, is_private_session, is_restricted, volume_percent, \
            supports_volume. recent prints played records: the track's fields with type played, then played_at (ISO \
            8601) and context. history prints the log's played records: those fields, then ms_played (what was \
            heard; null when unknown) and logged_from (recently_played, watch, extended_streaming_history, \
            account_data); an imported play has what Spotify's download has (artists and album by name, no \
            duration_ms; reason_start, reason_end, shuffle, skipped, offline from Extended streaming history; no uri, \
            and played_at to the minute, from account data). queue prints the track records (episode records \
            for episodes) spotify-tracks prints, with position (0 for what plays now) and current (true for what \
            plays now) instead of added_at and playlist.
            """,
        ],
        environment: [
            SpotifyEnvironment.accessToken,
            SpotifyEnvironment.apiBase,
            EnvironmentSpec(
                "XDG_DATA_HOME", "Where the listening log lives (under spotify-toolkit/). Default: ~/.local/share."),
            EnvironmentSpec.forcedTerminal(),
        ] + NetworkEnvironment.all,
        files: [
            FileSpec(
                "$XDG_DATA_HOME/spotify-toolkit/\(ListeningLog.fileName)",
                """
                The listening log: a played record a line (mode 0600), appended by history sync, history import and \
                --watch; never trimmed, so bounded only by your disk (about 400 bytes a play).
                """
            ),
            FileSpec(
                "$XDG_DATA_HOME/spotify-toolkit/\(ListeningLog.fileName).lock",
                "Held by whoever adds to the log, so writers at once add each play once."),
        ],
        exitCodes: [
            ExitCodeSpec(
                .notFound,
                """
                nothing playing (or paused, with --playing-only), and pause --at-end or --after with nothing \
                playing; queue with nothing playing and nothing queued; like or unlike with no track playing; recent \
                found no plays; history found none in its window; play got an empty pipe (it never resumes then); a \
                playlist name that is none of yours
                """
            ),
            ExitCodeSpec(
                .dataError,
                """
                play: a line of standard input that is not a URI or record; history: a damaged line of the log, or a \
                file to import that is not Spotify's download (the message names the file and line or entry)
                """
            ),
            ExitCodeSpec(.noInput, "history import: a FILE that does not exist or cannot be read"),
            ExitCodeSpec(.interrupted, "pause --at-end or --after: cancelled by Ctrl-C before pausing (SIGTERM 143)"),
            ExitCodeSpec(
                .unavailable,
                """
                Spotify unreachable or failing; no active device (NO_ACTIVE_DEVICE), a restricted device, an unknown \
                --device, or another refused command
                """
            ),
            ExitCodeSpec(.tempFail, "rate limited past the wait cap; try again"),
            ExitCodeSpec(
                .noPermission,
                """
                not logged in; a missing scope (the message names the login that adds it); Spotify Premium required \
                (PREMIUM_REQUIRED)
                """
            ),
            ExitCodeSpec(.config, "no login configuration"),
        ],
        examples: [
            ExampleSpec("spotify-nowplaying | jq -r .name", "The name of what plays now."),
            ExampleSpec(
                "spotify-nowplaying --watch --for 15m | songcount --label",
                "How many songs you get through in the next fifteen minutes."),
        ],
        seeAlso: ["songcount", "spotify-auth", "spotify-tracks", "spotify-playlists", "routine-link"],
        runsWithoutSubcommand: true
    ).running(nowPlaying)

    /// The tool alone: one look at what plays, or `--watch`.
    static func nowPlaying(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        if options.usesOldDeviceFlag {
            context.warn("--device (without a value) is now --with-device; the old spelling will go in a later release")
        }
        let mode = context.outputMode(forcedJSON: options.json)
        let clock = context.watchClock
        let player = try context.player()
        if let watch = options.watch {
            return try await self.watch(watch, options, context, player: player, mode: mode, clock: clock)
        }
        return try await oneShot(options, context, player: player, mode: mode)
    }

    // MARK: One shot and watch

    static func oneShot(_ options: Options, _ context: ToolContext, player: SpotifyPlayer, mode: OutputMode)
        async throws -> ExitCode
    {
        let observation = try await currentObservation(options, context, player: player)
        guard observation.hasItem, observation.isPlaying || !options.playingOnly else {
            if context.terminal.stderrIsTerminal { context.warn(observation.hasItem ? "paused" : "nothing playing") }
            return .notFound
        }
        if mode == .human {
            try context.stdout.writeText(observation.humanLine + "\n")
        } else {
            try context.stdout.write(NowPlayingRecord(observation, observedAt: isoTimestamp(context.now)))
        }
        return .success
    }

    /// What plays: from a running watch's latest poll while it is fresh (no request), else from Spotify.
    static func currentObservation(_ options: Options, _ context: ToolContext, player: SpotifyPlayer) async throws
        -> PlaybackObservation
    {
        if !options.fresh, let snapshot = watchShare(options, context, player: player).freshSnapshot() {
            var observation = PlaybackObservation(snapshot.body, ofWholePlayer: options.withDevice)
            if observation.isPlaying {
                let elapsed = clamped((context.now - snapshot.observedAt) * 1000, to: 0...1e9)
                observation.progressMs = observation.progress(after: Int(elapsed))
            }
            return observation
        }
        return PlaybackObservation(
            try await player.current(withDevice: options.withDevice), ofWholePlayer: options.withDevice)
    }

    /// Where a watch of this login publishes what it sees, for the one shots beside it.
    static func watchShare(_ options: Options, _ context: ToolContext, player: SpotifyPlayer) -> WatchShare {
        WatchShare(
            environment: context.environment, app: context.requestLedger.app, apiBase: player.api.baseURL,
            withDevice: options.withDevice, clock: context.clock)
    }

    static func watch(
        _ watch: Options.Watch, _ options: Options, _ context: ToolContext, player: SpotifyPlayer, mode: OutputMode,
        clock: WatchClock
    ) async throws -> ExitCode {
        context.stdout.flushesEachRecord = true
        let stop = StopSignal.requested ?? StopSignal()
        let signals = stop.stopOnSignals()
        defer { signals.cancel() }  // the run owns them: a host process gets its own back
        var watcher = PlaybackWatcher(
            player: player, schedule: watch.schedule, clock: clock, withDevice: options.withDevice,
            duration: watch.duration)
        watcher.share = watchShare(options, context, player: player)
        var log = WatchLog(log: ListeningLog(environment: context.environment))
        try await watcher.run(stop: stop, warn: context.warn) { record in
            log.observe(record, at: parseISOTimestamp(record.observedAt) ?? clock.now(), context)
            if mode == .human {
                try context.stdout.writeText(record.timedHumanLine(in: context.timeZone) + "\n")
            } else {
                try context.stdout.write(record)
            }
        }
        return .success
    }

    // MARK: Playback control

    static let playableKinds: [SpotifyReference.Kind] = [.track, .episode, .playlist, .album, .artist, .show]

    /// Sends a playback command to `device` (an id or name; nil: the active device), then says on
    /// stderr what was sent.
    static func send(
        to device: String?, _ context: ToolContext,
        _ command: (SpotifyPlayer, _ deviceID: String?) async throws -> String
    ) async throws -> ExitCode {
        let player = try context.player()
        let target = try await player.commandTarget(device)
        let what = try await command(player, target.id)
        context.warn("sent to \(target.name): \(what) (Spotify carries it out on the device)")
        return .success
    }

    static func play(_ options: PlayOptions, _ context: ToolContext) async throws -> ExitCode {
        try await send(to: options.device, context) { player, deviceID in
            let asked = try SpotifyPlayer.PlayTarget.from(try await playReferences(options, context))
            let (target, leftOut) = asked.fitted
            try await player.play(target, deviceID: deviceID)
            switch target {
            case .resume: return "resume"
            case .context(let uri, _): return "play \(uri)"
            case .items(let uris) where leftOut > 0:
                context.warn(
                    """
                    Spotify takes about \(SpotifyPlayer.PlayTarget.maxBodyBytes / 1000) KB of items in one play \
                    (\(uris.count) of these \(uris.count + leftOut)): the first \(uris.count) are played and the other \
                    \(leftOut) were not sent; to play them all, make them a playlist (spotify-playlists create NAME < \
                    FILE) and play that
                    """
                )
                return "play \(plural(uris.count, "item"))"
            case .items(let uris): return "play \(plural(uris.count, "item"))"
            }
        }
    }

    /// The references on standard input, one a line.
    static func lines(of input: StandardInput, expectingOneOf kinds: [SpotifyReference.Kind]) throws
        -> [SpotifyReference]
    {
        var references: [SpotifyReference] = []
        try input.forEachLine { references.append(try SpotifyReference.parseLine($0, expectingOneOf: kinds)) }
        return references
    }

    /// The arguments, or with none, the lines of standard input (unless it is a terminal: resume).
    static func playReferences(_ options: PlayOptions, _ context: ToolContext) async throws -> [SpotifyReference] {
        if !options.references.isEmpty {
            // An argument that is no id, URI or URL may be the name of one of your playlists.
            let named = try await PlaylistNames.resolve(options.references, context) {
                (try? SpotifyReference.parse($0, expectingOneOf: playableKinds)) != nil
            }
            return try named.map { try SpotifyReference.argument($0, expectingOneOf: playableKinds) }
        }
        // `play -` is `play` with standard input, even from a terminal.
        if context.terminal.stdinIsTerminal && !options.readsStandardInput { return [] }
        var references: [SpotifyReference] = []
        var localFiles = 0
        try context.stdin.forEachLine { line in
            if line.contains("\"spotify:local:") || line.hasPrefix("spotify:local:") {
                localFiles += 1
            } else {
                references.append(try SpotifyReference.parseLine(line, expectingOneOf: playableKinds))
            }
        }
        if localFiles > 0 {
            context.warn("skipped \(plural(localFiles, "local file")) (Spotify cannot start local files remotely)")
        }
        if references.isEmpty && localFiles > 0 {
            throw ToolError.dataError("standard input has nothing Spotify can play")
        }
        if references.isEmpty && context.stdin.carriesData {
            // An empty pipe is a pipeline that went wrong upstream (a typo in a name): it must
            // never start the music that was paused.
            throw ToolError(
                .notFound,
                """
                standard input was empty: nothing to play, and an empty pipe never resumes playback; to resume, run \
                'spotify-nowplaying play' on its own
                """
            )
        }
        return references
    }

    // MARK: Devices and history

    static func devices(_ options: DevicesOptions, _ context: ToolContext) async throws -> ExitCode {
        if options.namesOnly {
            // For a shell's Tab: one quick try, and nothing printed when it fails.
            guard let api = try? context.webAPI().forCompletion(),
                let devices = try? await SpotifyPlayer(api: api).devices()
            else { return .unavailable }
            for name in devices.map(DeviceRecord.init(spotify:)).compactMap(\.name) {
                try context.stdout.writeText(TerminalText.clean(name) + "\n")
            }
            return .success
        }
        let mode = context.outputMode(forcedJSON: options.json)
        let devices = try await context.player().devices().map(DeviceRecord.init(spotify:))
        for device in devices {
            if mode == .human {
                try context.stdout.writeText(device.humanLine + "\n")
            } else {
                try context.stdout.write(device)
            }
        }
        if devices.isEmpty { context.warn("Spotify sees no device; open Spotify on a phone, computer or speaker") }
        return .success
    }

    static func recent(_ options: RecentOptions, _ context: ToolContext) async throws -> ExitCode {
        let after = try options.start?.seconds(now: context.now, in: context.timeZone)
        let mode = context.outputMode(forcedJSON: options.json || options.format.forcesJSON)
        let export = TrackExport.make(options.format, context, title: "Recently played")
        let (plays, skipped) = try await context.player().playedRecords(after: after)
        if skipped > 0 {
            context.warn("skipped \(plural(skipped, "play")) without a track or a played_at time")
        }
        for play in plays.reversed() {
            if let export {
                try export.write(play.json)
            } else if mode == .human {
                try context.stdout.writeText(play.humanLine(in: context.timeZone) + "\n")
            } else {
                try context.stdout.write(play)
            }
        }
        try export?.finish()
        if plays.isEmpty {
            if context.terminal.stderrIsTerminal { context.warn("no plays found") }
            return .notFound
        }
        return .success
    }
}

extension SpotifyNowPlaying {
    /// The options, each declared once: the spec lists them and the handlers look them up by them.
    enum Option {
        static let withDevice = OptionSpec(
            "with-device",
            help:
                "Ask GET /me/player instead: the record adds device {id, name, type}, shuffle_state and repeat_state."
        )
        /// The old spelling of `--with-device`, from before the playback commands' `--device NAME|ID`
        /// took the name: still accepted, with a warning.
        static let oldDeviceFlag = OptionSpec(
            "device", help: "The old spelling of --with-device.", isHidden: true)
        static let fresh = OptionSpec(
            "fresh",
            help:
                """
                Ask Spotify even while a --watch of the same login runs (the one shot answers from the watch's \
                latest poll otherwise, at no request).
                """
        )
        static let playingOnly = OptionSpec(
            "playing-only", help: "Treat paused playback as nothing playing (no record, exit 1).")
        static let watch = OptionSpec("watch", short: "w", help: "Keep watching; print a record for every change.")
        static let interval = OptionSpec(
            "interval", value: "DURATION",
            help: "With --watch: how often to poll while a song plays (at least 1s; \(acceptedDurationForms)).",
            default: "10s")
        static let watchFor = OptionSpec(
            "for", value: "DURATION", help: "With --watch: stop after DURATION (\(acceptedDurationForms)).")
        static let fixedInterval = OptionSpec(
            "fixed-interval", help: "Poll every --interval whatever plays.", isHidden: true)
        static let since = OptionSpec(
            "since", value: "DURATION",
            help: "Only tracks played in the last DURATION (\(acceptedDurationForms)).")
        static let after = OptionSpec(
            "after", value: "TIME",
            help:
                """
                Only tracks played after TIME: a time in your time zone (05:30, 2026-11-24T05:30), ISO 8601 with an \
                offset, or a duration ago (2h).
                """
        )
    }

    /// The tool alone: one look at what plays, or `--watch`; read and checked before anything
    /// touches the network or the login.
    struct Options: CommandOptions {
        /// What `--watch` needs: how to poll, and for how long (seconds; nil: until stopped).
        struct Watch: Sendable {
            var schedule: PollSchedule
            var duration: Double?
        }

        var json: Bool
        /// Ask `GET /me/player`, whose record adds the device and its settings.
        var withDevice: Bool
        /// The top-level `--device` flag, worth a warning.
        var usesOldDeviceFlag: Bool
        var playingOnly: Bool
        /// Ask Spotify, not a running watch.
        var fresh: Bool
        /// nil: one look.
        var watch: Watch?

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
            usesOldDeviceFlag = try command.flag(Option.oldDeviceFlag)
            withDevice = try command.flag(Option.withDevice) || usesOldDeviceFlag
            playingOnly = try command.flag(Option.playingOnly)
            fresh = try command.flag(Option.fresh)
            guard try command.flag(Option.watch) else {
                for option in [Option.watchFor, Option.interval] where try command.value(option) != nil {
                    throw ToolError.usage("--\(option.long) needs --watch")
                }
                watch = nil
                return
            }
            if fresh { throw ToolError.usage("--fresh is for the one shot: a --watch always asks Spotify") }
            let interval = try command.duration(Option.interval).map { Double($0) / 1000 } ?? 10
            guard interval >= 1 else { throw ToolError.usage("--interval must be at least 1s") }
            let schedule =
                try command.flag(Option.fixedInterval)
                ? PollSchedule(interval: interval, idleInterval: interval, endMargin: 0, pauseGrace: 0, adapts: false)
                : PollSchedule(interval: interval)
            watch = Watch(
                schedule: schedule,
                duration: try command.duration(Option.watchFor).map { Double($0) / 1000 })
        }
    }

    /// `devices`.
    struct DevicesOptions: CommandOptions {
        var json: Bool
        /// `--names`: only the names, for shell completion.
        var namesOnly: Bool

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
            namesOnly = try command.flag(deviceNamesOption)
        }
    }

    /// `recent`.
    struct RecentOptions: CommandOptions {
        /// Where the history starts: a duration ago, or a time for the run's clock and zone to place.
        enum Start: Sendable {
            case ago(milliseconds: Int)
            case time(String)

            /// Seconds since 1970.
            func seconds(now: Double, in zone: LocalZone, option: String = "--after") throws -> Double {
                switch self {
                case .ago(let milliseconds): return now - Double(milliseconds) / 1000
                case .time(let text):
                    guard let time = LocalTime.parse(text, now: now, in: zone) else {
                        throw ToolError.usage(
                            """
                            \(option) needs a time (05:30, 2026-11-24T05:30 or 2026-11-24 in your time zone, or \
                            2026-11-24T05:30:00Z) or a duration ago (2h), not '\(text.prefix(60))'
                            """
                        )
                    }
                    return time
                }
            }
        }

        var json: Bool
        /// nil: all Spotify keeps.
        var start: Start?
        /// `--format`: JSON Lines, or a playlist file of the plays.
        var format: TrackFormatOption.Choice

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
            format = try TrackFormatOption.chosen(command)
            let after = try command.value(Option.after)
            if try command.value(Option.since) != nil && after != nil {
                throw ToolError.usage("--since and --after cannot be used together")
            }
            if let since = try command.duration(Option.since) {
                start = .ago(milliseconds: since)
            } else if let after {
                // A duration ago, a local time (today's, or with a date), or ISO 8601 with an offset.
                start = (try? parseDuration(after)).map { .ago(milliseconds: $0) } ?? .time(after)
            }
        }
    }
}
