import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `spotify-playlists`: your playlists, or particular ones, as playlist records.
package enum SpotifyPlaylists {
    static let recordDescription =
        """
        One playlist record per playlist: type ("playlist"), id, uri, name, description (may hold HTML), owner {id, \
        display_name}, public, collaborative, snapshot_id, images [{url, height, width}] (largest first; may be \
        empty), items_total (null when Spotify does not say, as for playlists you neither own nor collaborate on), \
        external_url.
        """

    package static let spec = CommandSpec(
        name: "spotify-playlists",
        abstract: "list your Spotify playlists, or fetch particular ones, as playlist records",
        discussion: [
            """
            spotify-playlists shows your playlists and changes them. Alone (or with list, or ls) it lists every \
            playlist in your library: a table of name, items, owner and id on a terminal, playlist records when \
            piped, so jq picks the ones you want (spotify-playlists | jq -c 'select(.name=="Morning")' | \
            spotify-tracks). get fetches particular playlists, by name, id, URI, URL or record. --duration, on the \
            listing or on get, adds how long each playlist plays, and on a terminal a duration column and a total row.
            """,
            ownershipDiscussion,
            """
            create, add, remove, replace, dedupe, sort, rewrite, undo, edit and delete change your Spotify playlists; \
            add --liked and remove --liked your Liked Songs; local keeps playlists on this machine only. The changes \
            need a login with more than the default read-only scopes: spotify-auth login --scope edit adds them, and \
            without them a write exits 77 naming that login. A playlist can be named by its name: reads and add take \
            it in any case, the writes that remove or reorder only exactly.
            """,
            """
            replace, remove, dedupe, sort, rewrite and undo change only what differs, so every item that stays keeps \
            its date added; before writing they say what they will do, and keep the playlist as it was for undo. \
            Ctrl-C (SIGINT), SIGTERM or SIGHUP during any write stops it before its next request and says what the \
            playlist holds, with the command that finishes or undoes it (exit 130, 143, 129).
            """,
            """
            history lists the versions of a playlist kept here (every version a read or a write of ours met), diff \
            prints what changed between two of them, and restore makes the playlist what a version held.
            """,
        ],
        notes: [
            """
            The listing reads /me/playlists, all pages, fetched concurrently and written in order. get asks GET \
            /playlists/{id} for only the fields the record holds. --duration also reads every item, for the sum of \
            their durations, which Spotify does not provide (or spotify-tracks' snapshot cache, when it holds the \
            playlist's current version); that is possible only for playlists you own or collaborate on.
            """,
            """
            Items go at most 100 a request (40 for Liked Songs), in order. A write whose answer is lost (a dropped \
            connection, a timeout, a cut answer, a 5xx) may have landed, and adding items is not idempotent, so it is \
            never sent again blindly: the playlist is read again, twice with a pause, to see whether it landed, and \
            only a request that provably did not is sent again; a write that cannot be settled exits non-zero saying \
            what landed.
            """,
            """
            replace, remove, dedupe, sort, rewrite and undo read the whole playlist and send only the difference \
            (removals by URI, range moves, inserts), then read it back and compare it with the plan.
            """,
        ],
        options: [PlaylistCommands.concurrencyOption, PlaylistCommands.jsonOption] + Ownership.options + [
            Option.listDuration, RequestBudgetOption.option,
        ],
        subcommands: [
            CommandSpec(
                name: "list", abstract: "list every playlist in your library (the default)", aliases: ["ls"],
                options: Ownership.options + [Option.listDuration, RequestBudgetOption.option],
                examples: [
                    ExampleSpec(
                        "spotify-playlists --owned --duration",
                        "How long each of your own playlists plays, and all of them together, as a table on a terminal."
                    )
                ]
            ).running(list).offering(PlaylistCommands.concurrencyOption, PlaylistCommands.jsonOption),
            CommandSpec(
                name: "get",
                abstract:
                    "fetch playlists by id, URI, URL or record (arguments, or one per line of standard input)",
                discussion: [
                    """
                    A playlist that is not found (404, e.g. a Spotify-owned editorial playlist) is reported and the \
                    others still print; the exit status is then 1.
                    """
                ],
                arguments: [PlaylistCommands.playlistArgument],
                options: [
                    Option.duration,
                    PlaylistCacheOptions.noCacheOption,
                    RequestBudgetOption.option,
                ],
                examples: [
                    ExampleSpec(
                        "spotify-playlists get --duration spotify:playlist:3cEYpjA9oz9GiPac4AsH4n | jq .duration_ms",
                        "How long a playlist plays, in milliseconds.")
                ]
            ).running(get).offering(PlaylistCommands.concurrencyOption, PlaylistCommands.jsonOption),
        ] + writeCommands + historyCommands + [localCommand.running(local).offering(PlaylistCommands.jsonOption)],
        input: [
            """
            get without PLAYLIST arguments reads one playlist per line: an id, a spotify:playlist: URI, an \
            open.spotify.com/playlist/ URL, or a JSON record with uri or id. Blank lines are skipped; anything else \
            is an error naming the line (exit 65).
            """,
            "create, add, remove and replace read the items to write: " + ItemInput.description,
            """
            rewrite's COMMAND reads the playlist's track records, each with playlist {id, uri, snapshot_id}, and \
            prints the items to keep, in order, in the same forms.
            """,
        ],
        output: [
            """
            \(recordDescription) get --duration adds duration_ms (null when Spotify does not return the playlist's \
            items). The writes (create, add, remove, replace, edit, delete) print the resulting playlist record, \
            with its new snapshot_id and items_total, and say on standard error what they did; add --liked and \
            remove --liked print nothing.
            """,
            changeRecordDescription,
            versionRecordDescription,
            """
            local list prints local_playlist records: type (local_playlist), name, items_total, duration_ms (of the \
            records that have one), created_at, updated_at; local show prints the stored track records unchanged.
            """,
        ],
        environment: PlaylistCommands.environment + PlaylistCacheOptions.environment
            + RequestBudgetOption.environment + [
                EnvironmentSpec(
                    "XDG_DATA_HOME",
                    """
                    Where the local playlists and the playlists' versions live (under spotify-toolkit/). Default: \
                    ~/.local/share.
                    """
                ),
                EnvironmentSpec(
                    PlaylistVersions.sizeVariable,
                    """
                    The most the playlists' versions may take in all (e.g. 512M, 1G, or bytes; 0 keeps none); the \
                    oldest versions go first. Default: \(PlaylistVersions.defaultMaxTotalBytes >> 20)M.
                    """
                ),
                EnvironmentSpec(
                    "XDG_STATE_HOME",
                    "Where the undo journal lives (under spotify-toolkit/undo/). Default: ~/.local/state."
                ),
            ] + NetworkEnvironment.all,
        files: [
            PlaylistCommands.tokensFile,
            FileSpec(
                "$XDG_STATE_HOME/spotify-toolkit/undo/",
                """
                The undo journal: one file per playlist (mode 0600, replaced atomically) with its items and order \
                before each of the last 10 destructive writes made here, for 90 days, of at most 500 playlists \
                (default ~/.local/state).
                """
            ),
            FileSpec(
                "$XDG_STATE_HOME/spotify-toolkit/unfinished/",
                "The items an interrupted or failed write did not get to, for the command it prints to finish the job."
            ),
            PlaylistCacheOptions.cacheFile,
            FileSpec(
                "$XDG_DATA_HOME/spotify-toolkit/playlist-versions/",
                """
                The playlists' versions (history, diff, restore): one file per playlist (mode 0600, replaced \
                atomically under versions.lock), at most \(PlaylistVersions.defaultMaxVersions) versions and \
                \(PlaylistVersions.defaultMaxBytes >> 20) MiB each, oldest first; a damaged one is set aside as \
                ID.damaged.
                """
            ),
            FileSpec(
                "$XDG_DATA_HOME/spotify-toolkit/local-playlists.json",
                "The app-local playlists (mode 0600, replaced atomically), with local-playlists.json.lock beside it."
            ),
        ],
        exitCodes: [
            ExitCodeSpec(
                .notFound,
                """
                get: a playlist was not found (404; the others still printed), or standard input held no playlist; \
                local: no local playlist by that name; history, diff, restore: no such version kept
                """
            ),
            ExitCodeSpec(.usage, "usage error, e.g. a PLAYLIST argument that is not a playlist id, URI or URL"),
            ExitCodeSpec(
                .dataError,
                """
                a line of standard input is not a playlist reference (get) or a track record (local create, add), the \
                message names the line; local create or rename to a name already taken; a local-playlists file or a \
                playlist's version history that cannot be read (left untouched)
                """
            ),
        ] + PlaylistCommands.networkExitCodes.filter { $0.code != .tempFail } + [
            ExitCodeSpec(
                .tempFail,
                """
                Spotify is rate limiting for longer than the wait cap, a list was edited while it was read, or a \
                playlist changed while it was written (someone else edited it: the message says what it holds); try \
                again
                """
            ),
            ExitCodeSpec(
                .hangUp,
                """
                a write stopped by SIGHUP, after saying what the playlist holds and how to finish or undo it
                """),
            ExitCodeSpec(
                .interrupted,
                """
                a write stopped by Ctrl-C (SIGINT), after saying what the playlist holds and how to finish or undo it
                """),
            ExitCodeSpec(
                .terminated,
                "a write stopped by SIGTERM, after saying what the playlist holds and how to finish or undo it"),
            ExitCodeSpec(
                .config,
                """
                the local-playlists file was written by a newer spotify-toolkit (left untouched), or its directory is \
                not private
                """
            ),
        ],
        examples: [
            ExampleSpec("spotify-playlists", "Your playlists, as a table on a terminal."),
            ExampleSpec(
                "spotify-playlists --owned | spotify-tracks | jq -s 'map(.duration_ms) | add / 3600000'",
                "How many hours your own playlists play, every one read (Spotify's editorial ones left out)."),
            ExampleSpec(
                "spotify-playlists | jq -c 'select(.name==\"Morning\")' | spotify-tracks | songcount --target 15m",
                "How many songs of the playlist called Morning fill fifteen minutes."),
        ],
        seeAlso: ["spotify-tracks", "songcount", "routine-link", "spotify-auth", "jq"],
        runsWithoutSubcommand: true  // alone, it lists
    ).running(list)

    /// The listing's command line (the tool alone, or list), read and checked once.
    struct ListOptions: CommandOptions {
        var json: Bool
        var ownership: Ownership?
        var withDuration: Bool
        var concurrency: Int?
        var maxRequests: RequestBudgetOption.Choice?

        init(_ command: ParsedCommand) throws {
            json = try command.flag(PlaylistCommands.jsonOption)
            ownership = try Ownership.chosen(command)
            concurrency = try PlaylistCommands.concurrency(command)
            withDuration = try command.flag(Option.listDuration)
            maxRequests = try RequestBudgetOption.choice(command)
        }
    }

    static func list(_ options: ListOptions, _ context: ToolContext) async throws -> ExitCode {
        try RequestBudgetOption.apply(options.maxRequests, context)
        let pager = Pager(api: try context.webAPI(), concurrency: options.concurrency)
        let userID = options.ownership == nil ? "" : try await LibraryReads.userID(api: pager.api)
        let progress = ProgressLine(context, noun: "playlists", shownAbove: PagePlan.pageSize)
        var output = PlaylistOutput(
            context, mode: context.outputMode(forcedJSON: options.json), withDuration: options.withDuration)
        let edits = EditedWhileRead()
        var listed: [PlaylistNames.Listed] = []
        // With --duration the records wait for their items' durations, read afterwards all together.
        var waiting: [PlaylistRecord] = []
        _ = try await pager.fetchAll(
            path: "/me/playlists", onTotalChanged: PlaylistCommands.totalChangedNote("your library", context, edits),
            progress: { progress.update(done: $0, total: $1) },
            body: { page in
                for playlist in page.items {
                    if options.ownership?.keeps(playlist, userID: userID) ?? true,
                        let record = PlaylistRecord(playlist)
                    {
                        if options.withDuration {
                            waiting.append(record)
                        } else {
                            try output.write(PlaylistRow(record))
                        }
                    }
                    if let id = playlist["id"]?.stringValue, let name = playlist["name"]?.stringValue {
                        listed.append(PlaylistNames.Listed(id: id, name: name))
                    }
                }
                try context.stdout.endBatch()  // each page downstream as it arrives
            })
        progress.clear()
        if options.withDuration {
            let source = try PlaylistCacheOptions.reader(
                PlaylistCacheOptions.Choice(), context, concurrency: options.concurrency)
            // A playlist without an id has no items to read: it keeps a null duration, and the
            // others keep theirs (the totals come back in the order of the ones read).
            let readable = waiting.indices.filter { waiting[$0].id != nil }
            let selectors = readable.map { index in
                let record = waiting[index]
                // The listing's snapshot_id is current: a cached copy of it needs no request.
                return PlaylistItemsReader.Selector(
                    reference: SpotifyReference(kind: .playlist, id: record.id ?? ""), snapshot: record.snapshotID,
                    snapshotIsCurrent: true, itemsTotal: record.itemsTotal, itemsHidden: record.itemsTotal == nil)
            }
            let totals = try await durations(
                of: selectors, source: source, progress: ProgressLine(context, shownAbove: PagePlan.pageSize),
                context: context, edits: edits)
            let durationOf = inListingOrder(totals, read: readable, count: waiting.count)
            for (index, record) in waiting.enumerated() {
                try output.write(PlaylistRow(record, durationMs: durationOf[index]))
            }
        }
        try output.finish()
        // A whole listing keeps the names for --offline; one edited while read is not whole.
        let status = edits.status(.success)
        if status == .success { PlaylistNames.keepForOffline(listed, context.environment) }
        return status
    }

    /// get's command line, read and checked once.
    struct GetOptions: CommandOptions {
        var json: Bool
        /// The PLAYLIST arguments (none: standard input).
        var playlists: [String]
        var withDuration: Bool
        var cache: PlaylistCacheOptions.Choice
        var concurrency: Int?
        var maxRequests: RequestBudgetOption.Choice?

        init(_ command: ParsedCommand) throws {
            json = try command.flag(PlaylistCommands.jsonOption)
            playlists = command.positionals
            withDuration = try command.flag(Option.duration)
            cache = try PlaylistCacheOptions.Choice(command)
            concurrency = try PlaylistCommands.concurrency(command)
            maxRequests = try RequestBudgetOption.choice(command)
        }
    }

    static func get(_ options: GetOptions, _ context: ToolContext) async throws -> ExitCode {
        try RequestBudgetOption.apply(options.maxRequests, context)
        let playlists = try await PlaylistCommands.references(
            options.playlists, offline: options.cache.offline, context, tool: "\(spec.name) get")
        if playlists.isEmpty { return PlaylistCommands.nothingRead(context, tool: "spotify-playlists get") }
        let source = try PlaylistCacheOptions.reader(options.cache, context, concurrency: options.concurrency)
        let api = try source.requirePager(for: "playlists").api
        let progress = ProgressLine(context, shownAbove: PagePlan.pageSize)
        var output = PlaylistOutput(
            context, mode: context.outputMode(forcedJSON: options.json), withDuration: options.withDuration)
        let edits = EditedWhileRead()
        let status = try await PlaylistCommands.eachPlaylist(playlists, context, progress: progress) { playlist in
            let record: PlaylistRecord
            switch try await fetchRecord(of: playlist.id, api: api, passing: [404]) {
            case .value(let fetched): record = fetched
            case .refused(let result): return try PlaylistCommands.refusal(SpotifyErrorBody(result), playlist: playlist)
            }
            var row = PlaylistRow(record)
            if options.withDuration {
                // The snapshot_id just fetched is current: a cached copy of it needs no further request.
                let selector = PlaylistItemsReader.Selector(
                    reference: playlist, snapshot: record.snapshotID.flatMap { $0.isEmpty ? nil : $0 },
                    snapshotIsCurrent: true, itemsTotal: record.itemsTotal)
                row = PlaylistRow(
                    record,
                    durationMs: try await durations(
                        of: [selector], source: source, progress: progress, context: context, edits: edits
                    ).first ?? nil)
            }
            try output.write(row)
            try context.stdout.endBatch()  // each playlist downstream as it is read
            return nil
        }
        try output.finish()
        return edits.status(status)
    }

    /// The playlist's record as it is now (`GET /playlists/{id}`, only the record's fields), or
    /// Spotify's answer when its status is one of `passing`.
    static func fetchRecord(of id: String, api: SpotifyWebAPI, passing: Set<Int> = []) async throws
        -> Answer<PlaylistRecord>
    {
        try await api.perform(
            method: "GET", path: "/playlists/\(id)",
            query: [("fields", PlaylistRecord.metadataFields), PlaylistEntry.additionalTypes], passing: passing
        ) { result -> Answer<PlaylistRecord> in
            guard result.isSuccess else { return .refused(result) }
            guard let json = try? JSONValue.parse(result.body), let record = PlaylistRecord(json) else {
                throw SpotifyWebAPI.UnreadableBody("the body is not a playlist object")
            }
            return .value(record)
        }.value
    }

    /// Each playlist's sum of item durations, in order, or null (with a note) when Spotify does not
    /// show its items. The playlists are read together, under the one limit of requests in flight.
    /// The totals of the playlists read (in the order read) in the listing's order: `read` holds
    /// each one's place in the listing, and a playlist that was not read keeps nil.
    static func inListingOrder(_ totals: [Int?], read: [Int], count: Int) -> [Int?] {
        var result = [Int?](repeating: nil, count: count)
        for (place, index) in read.enumerated() where place < totals.count && index < count {
            result[index] = totals[place]
        }
        return result
    }

    static func durations(
        of selectors: [PlaylistItemsReader.Selector], source: PlaylistItemsReader, progress: ProgressLine,
        context: ToolContext, edits: EditedWhileRead
    ) async throws -> [Int?] {
        guard !selectors.isEmpty else { return [] }
        var sums = DurationSums(
            playlists: selectors.map(\.reference), context: context, progress: progress, edits: edits)
        try await source.read(
            selectors, wanted: .records, uncachedFields: PlaylistEntry.durationFields, into: &sums)
        progress.clear()
        return sums.totals
    }

    /// Adds up each playlist's item durations as its pages are handed on.
    struct DurationSums: PlaylistReadHandler {
        let playlists: [SpotifyReference]
        let context: ToolContext
        let progress: ProgressLine
        let edits: EditedWhileRead
        var sums: [Int]
        var totals: [Int?]

        init(playlists: [SpotifyReference], context: ToolContext, progress: ProgressLine, edits: EditedWhileRead) {
            self.playlists = playlists
            self.context = context
            self.progress = progress
            self.edits = edits
            sums = Array(repeating: 0, count: playlists.count)
            totals = Array(repeating: nil, count: playlists.count)
        }

        mutating func page(_ page: Page, playlist index: Int) throws {
            for entry in page.items {
                // Saturating: durations come from the server (or a cached copy of its answer), and
                // two items of Int.max must give a long playlist, not a trap.
                sums[index] = saturatingAdd(
                    sums[index], PlaylistEntry.item(of: entry)?["duration_ms"]?.intValue.map { max($0, 0) } ?? 0)
            }
        }

        func totalChanged(playlist index: Int, was: Int, now: Int) {
            progress.clear()
            PlaylistCommands.totalChangedNote("playlist \(playlists[index].id)", context, edits)(was, now)
        }

        func editedWhileRead(playlist index: Int) {
            progress.clear()
            PlaylistCommands.editedNote("playlist \(playlists[index].id)", context, edits)
        }

        mutating func finished(playlist index: Int, _ result: PlaylistItemsReader.Result) throws {
            progress.clear()
            switch result {
            case .delivered:
                totals[index] = sums[index]
            case .refused(let refused):
                let reason = try PlaylistCommands.refusal(SpotifyErrorBody(refused), playlist: playlists[index])
                context.warn("\(reason.message); duration_ms is null")
            case .failed(let error):
                context.warn("\(error.message); duration_ms is null")
            }
        }

        func progress(_ run: PlaylistItemsReader.Progress) {
            progress.update(done: run.items, total: run.itemsKnown)
        }
    }

    /// A playlist record as the listing, get and the writes print it: with --duration followed by
    /// duration_ms (null when Spotify does not show its items), and on a terminal a table row.
    struct PlaylistRow: TableRecord {
        let playlist: PlaylistRecord
        /// --duration: duration_ms follows the record, and the row has a duration column.
        let withDuration: Bool
        /// The sum of its items' durations; nil when not asked for or Spotify does not show them.
        let durationMs: Int?

        init(_ playlist: PlaylistRecord) {
            (self.playlist, withDuration, durationMs) = (playlist, false, nil)
        }

        init(_ playlist: PlaylistRecord, durationMs: Int?) {
            (self.playlist, withDuration, self.durationMs) = (playlist, true, durationMs)
        }

        var json: JSONValue {
            guard withDuration else { return playlist.json }
            var record = playlist.object
            record["duration_ms"] = durationMs.map(JSONValue.int) ?? .null
            return .object(record)
        }

        var cells: [String] {
            var cells = [playlist.name ?? "", playlist.itemsTotal.map(groupedThousands) ?? "?"]
            if withDuration { cells.append(durationMs.map { formatClock(milliseconds: $0) } ?? "?") }
            return cells + [playlist.owner?.displayName ?? playlist.owner?.id ?? "", playlist.id ?? ""]
        }
    }

    /// Playlist rows as JSON Lines, or as a table under one header; with durations on a terminal,
    /// a total row under it.
    struct PlaylistOutput {
        let context: ToolContext
        var printer: RecordPrinter<PlaylistRow>
        let withDuration: Bool
        /// For the total row: how many playlists, their items, and the durations known.
        var count = 0
        var items = 0
        var durationMs = 0
        var withoutDuration = 0

        init(_ context: ToolContext, mode: OutputMode, withDuration: Bool) {
            self.context = context
            self.withDuration = withDuration
            printer = RecordPrinter(context, mode: mode, columns: Self.columns(withDuration: withDuration))
        }

        static func columns(withDuration: Bool) -> [TextTable.Column] {
            var columns: [TextTable.Column] = [
                .flexible("NAME", weight: 3), .fixed("ITEMS", width: 6, alignment: .right),
            ]
            if withDuration { columns.append(.fixed("DURATION", width: 9, alignment: .right)) }
            return columns + [.flexible("OWNER", weight: 1), .fixed("ID", width: 22)]
        }

        mutating func write(_ row: PlaylistRow) throws {
            try printer.write(row)
            guard printer.mode == .human else { return }
            count += 1
            items = saturatingAdd(items, max(row.playlist.itemsTotal ?? 0, 0))
            if let duration = row.durationMs {
                durationMs = saturatingAdd(durationMs, max(duration, 0))
            } else {
                withoutDuration += 1
            }
        }

        /// With durations on a terminal, a total row under the table: how many
        /// playlists, their items and how long they play together.
        func finish() throws {
            guard printer.mode == .human && withDuration, let table = printer.table, count > 0 else { return }
            var what = "total: \(plural(count, "playlist"))"
            if withoutDuration > 0 { what += " (\(withoutDuration) without a duration)" }
            try context.stdout.writeText(Self.totalLine(table, what: what, items: items, durationMs: durationMs) + "\n")
        }

        /// The total row in the table's columns, or, when the total is wider than its column
        /// (1,000 hours and more), on a line of its own, so it is never cut.
        static func totalLine(_ table: TextTable, what: String, items: Int, durationMs: Int) -> String {
            let clock = formatClock(milliseconds: durationMs)
            guard DisplayWidth.of(clock) > table.widths[2] else {
                return table.line([what, groupedThousands(items), clock]).trimmingTrailingSpaces()
            }
            return "\(what): \(countText(items)), \(clock)"
        }
    }
}

extension SpotifyPlaylists {
    /// The options, each declared once: the spec lists them and the handlers look them up by them.
    enum Option {
        /// --duration on the listing: the same, for every playlist listed.
        static let listDuration = OptionSpec(
            "duration", short: "d",
            help:
                """
                Add duration_ms to each playlist, the sum of the durations of its items (reads every item of every \
                playlist listed; null for the ones whose items Spotify does not show). On a terminal: a duration \
                column and a total row.
                """
        )
        static let duration = OptionSpec(
            "duration", short: "d",
            help:
                """
                Add duration_ms, the sum of the durations of all items (reads every item, or spotify-tracks' snapshot \
                cache when it holds the playlist's current version; playlists you own or collaborate on only). On a \
                terminal: a duration column and a total row.
                """
        )
    }
}
