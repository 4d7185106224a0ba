import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `history`: the listening log (`ListeningLog`) printed, synced from recently-played, or fed
/// Spotify's downloads.
extension SpotifyNowPlaying {
    static let historySince = OptionSpec(
        "since", value: "TIME",
        help:
            """
            Only plays at or after TIME: a date or time in your time zone (2025-01-01, 05:30, 2026-11-24T05:30), ISO \
            8601 with an offset, or a duration ago (2h).
            """
    )
    static let historyUntil = OptionSpec(
        "until", value: "TIME", help: "Only plays before TIME (the forms --since takes).")

    static let historyCommand = CommandSpec(
        name: "history",
        abstract: "the listening log you own: print it, sync it from Spotify, import Spotify's downloads",
        discussion: [
            """
            history prints the listening log kept on this machine as played records, oldest first; --since and \
            --until choose a time window (spotify-nowplaying history --since 2025-01-01 --until 2026-01-01). An empty \
            window exits 1.
            """,
            """
            history sync adds the plays Spotify lists in recent (about the last 50) that the log lacks: run it now and \
            then (hourly from cron) to keep every play; it never adds one twice, and costs one request when nothing \
            is new. Needs the history scope (spotify-auth login --scope history).
            """,
            """
            history import FILE... reads Spotify's downloads (Account privacy page, "Download your data"): "Extended \
            streaming history" (Streaming_History_Audio_*.json, older endsong_*.json: uri, played_at from ts, \
            ms_played, reason_start, reason_end, shuffle, skipped, offline) and "Account data" \
            (StreamingHistory_music_*.json, StreamingHistory*.json: name and artist, played_at from endTime, to the \
            minute, ms_played; no uri). Importing a file again adds nothing. A file that cannot be read is an error \
            naming the file and entry, and nothing of that run is written.
            """,
            """
            spotify-nowplaying --watch adds every song it sees played to its end (played_at: the end it predicted).
            """,
        ],
        notes: [
            """
            Two records are one play when they name the same item (uri, or name and first artist) and their played_at \
            times are within 20 s (60 s for account data, kept to the minute); the sources disagree by a few seconds, \
            and a song played twice in a row is two plays. A file's own entries are never merged with each other. \
            Every writer holds listening-log.jsonl.lock while it reads the log and appends what it lacks, so syncs, \
            imports and watches at once add each play once. Nothing trims the log: it grows with your listening \
            (about 400 bytes a play; ten years of Extended streaming history is about 50 MB), bounded only by your \
            disk. A damaged line is an error naming the file and line, and the log is never rewritten.
            """
        ],
        arguments: [
            ArgumentSpec(
                "ACTION", help: "sync or import; none prints the log.", optional: true,
                completion: .choices(["sync", "import"])),
            ArgumentSpec(
                "FILE", help: "import: Spotify's JSON files.", optional: true, repeatable: true, completion: .file),
        ],
        options: [historySince, historyUntil, TrackFormatOption.option],
        examples: [
            ExampleSpec(
                """
                spotify-nowplaying history --since 2025-01-01 --until 2026-01-01 | jq -r '.name + " - " + \
                .artists[0].name' | sort | uniq -c | sort -rn | head
                """,
                "Your top tracks of 2025, from the log."),
            ExampleSpec(
                "spotify-nowplaying history import my_spotify_data/*/Streaming_History_Audio_*.json",
                "Import Spotify's full history download."),
        ]
    ).running(history).offering(.jsonRecords)

    /// `history`'s command line.
    struct HistoryOptions: CommandOptions {
        enum Action: Equatable {
            case show
            case sync
            case importFiles([String])
        }

        var json: Bool
        var action: Action
        var since: RecentOptions.Start?
        var until: RecentOptions.Start?
        /// --format: the log as a playlist file (m3u, xspf, jspf, csv) instead of records.
        var format: TrackFormatOption.Choice

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
            format = try TrackFormatOption.chosen(command)
            since = try Self.start(command.value(historySince))
            until = try Self.start(command.value(historyUntil))
            var arguments = command.positionals
            let action = arguments.isEmpty ? nil : arguments.removeFirst()
            switch action {
            case nil: self.action = .show
            case "sync":
                guard arguments.isEmpty else { throw ToolError.usage("history sync takes no FILE") }
                self.action = .sync
            case "import":
                guard !arguments.isEmpty else {
                    throw ToolError.usage("history import takes one or more FILEs of Spotify's download")
                }
                self.action = .importFiles(arguments)
            case let other?:
                throw ToolError.usage("unknown history action '\(other.prefix(60))'; one of: sync, import")
            }
            if action != nil && (since != nil || until != nil) {
                throw ToolError.usage("--since and --until choose what history prints; sync and import take neither")
            }
            if action != nil && format.file != nil {
                throw ToolError.usage("--format chooses how history prints the log; sync and import print nothing")
            }
        }

        /// A duration ago, or a time for the run's clock and zone to place.
        static func start(_ text: String?) throws -> RecentOptions.Start? {
            guard let text else { return nil }
            return (try? parseDuration(text)).map { .ago(milliseconds: $0) } ?? .time(text)
        }
    }

    static func history(_ options: HistoryOptions, _ context: ToolContext) async throws -> ExitCode {
        let log = ListeningLog(environment: context.environment)
        switch options.action {
        case .show:
            let since = try options.since?.seconds(now: context.now, in: context.timeZone, option: "--since")
            let until = try options.until?.seconds(now: context.now, in: context.timeZone, option: "--until")
            let entries = try log.entries().entries
            let lines = ListeningHistory.window(entries.map { ($0.time, $0.line) }, since: since, until: until)
            let mode = context.outputMode(forcedJSON: options.json || options.format.forcesJSON)
            let export = TrackExport.make(options.format, context, title: "Listening history")
            for line in lines {
                if let export {
                    try export.write((try? JSONValue.parse(String(line))) ?? .null)
                } else if mode == .human {
                    let record = PlayedRecord(reading: (try? JSONValue.parse(String(line))) ?? .null)
                    try context.stdout.writeText(record.humanLine(in: context.timeZone) + "\n")
                } else {
                    try context.stdout.writeText(line + "\n")
                }
            }
            try export?.finish()
            if lines.isEmpty {
                if context.terminal.stderrIsTerminal {
                    context.warn(
                        entries.isEmpty
                            ? "the log is empty: spotify-nowplaying history sync, or history import FILE, fills it"
                            : "no plays in that window")
                }
                return .notFound
            }
            return .success
        case .sync:
            // A damaged log stops the sync before a request is spent.
            let synced = ListeningLog.syncedUntil(try log.entries().entries)
            let (plays, skipped) = try await context.player().playedRecords(after: synced, wholePages: true)
            if skipped > 0 {
                context.warn("skipped \(plural(skipped, "play")) without a track or a played_at time")
            }
            let records = plays.reversed().compactMap { ListeningHistory.logged($0.json, from: .recentlyPlayed) }
            let (added, known) = try log.add([records])
            context.warn("added \(plural(added, "play")) to \(log.path) (\(known) already there)")
            return .success
        case .importFiles(let files):
            var batches: [[JSONObject]] = []
            var empty = 0
            for file in files {
                let bytes = try ListeningLog.readFile(file)
                let value: JSONValue
                do {
                    value = try JSONValue.parse(bytes)
                } catch {
                    let why = (error as? JSONParseError).map { "\($0.message) at byte \($0.offset)" } ?? "\(error)"
                    throw ToolError.dataError("\(file): not JSON (\(why)); nothing was imported")
                }
                do {
                    let imported = try ListeningHistory.importEntries(value)
                    batches.append(imported.records)
                    empty += imported.empty
                } catch {
                    throw ToolError.dataError("\(file): \(error.message); nothing was imported")
                }
            }
            let (added, known) = try log.add(batches)
            var note = "imported \(plural(added, "play")) into \(log.path) (\(known) already there"
            if empty > 0 { note += "; \(empty) \(empty == 1 ? "entry" : "entries") named no track or episode" }
            context.warn(note + ")")
            return .success
        }
    }
}
