import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `spotify-tracks`: every item of playlists, albums, artists, shows, tracks and episodes, or the
/// liked songs, as track records in order.
package enum SpotifyTracks {
    package static let spec = CommandSpec(
        name: "spotify-tracks",
        abstract:
            """
            print the tracks of playlists, albums, artists and shows, or your liked songs, as track records in order; \
            or search for tracks
            """,
        discussion: [
            """
            spotify-tracks prints every track of what you name, in order, one record per line, for jq, songcount and \
            the other tools: spotify-tracks Morning | songcount --target 15m says how many songs of your Morning \
            playlist fill fifteen minutes, and spotify-playlists | spotify-tracks is your whole library. It reads \
            each SOURCE named on the command line, or when there are none (or for an argument -), one per line of \
            standard input: playlists, albums, artists, shows, tracks and episodes, named by spotify:KIND:ID URIs, \
            open.spotify.com/KIND/ID URLs (also with an /intl-xx/ segment), records with a type and uri or id (so \
            spotify-playlists | jq -c 'select(.name=="Run")' | spotify-tracks works), a bare id (a playlist's) or \
            the name of one of your playlists. Several sources are printed one after the other in input order, \
            exactly as reading them one at a time would print them; the first is printed while later lines of \
            standard input are still coming.
            """,
            """
            An album prints its tracks in order, disc by disc. An artist prints the tracks of its releases, newest \
            release first, each album's tracks in order; --include-groups chooses which releases (album,single by \
            default). The same song on an album, a single and a compilation is printed each time (they are different \
            tracks to Spotify): jq -s 'unique_by([.name, [.artists[].name]])' keeps one of each, or see the README. A \
            show prints its episodes, newest first; a track or an episode prints itself.
            """,
            """
            The output is exactly what a clean run prints, or the run fails with a message that says what failed; it \
            never ends successfully with an item missing or repeated. If a playlist changes while it is read (someone \
            edited it), a note on stderr says so.
            """,
            """
            Spotify returns items only for playlists you own or collaborate on: for any other playlist it answers \
            403, and spotify-tracks says so and goes on with the next source. Spotify's own editorial and algorithmic \
            playlists answer 404 to apps in Development Mode, as does an album, artist, show, track or episode that \
            does not exist. Either way the others still print, and the exit status says that something failed \
            (spotify-playlists --owned keeps to the playlists you can read).
            """,
            """
            An unchanged playlist costs one small request: what it held is kept in a cache by version; --no-cache \
            bypasses it, and --offline prints the latest copy without any request. Only playlists are cached.
            """,
            "With --liked, the saved tracks of your library are read instead, newest first (never cached).",
            searchDiscussion,
            libraryDiscussion,
        ],
        notes: [
            """
            A playlist's first request is GET /playlists/{id}, which brings its snapshot_id and its first 100 \
            entries; the rest come from /playlists/{id}/items, 50 to a page (a playlist whose object has no entries, \
            one you neither own nor collaborate on, is asked through its items pages). A piped playlist record tells \
            items_total, so all of its pages are asked for at once; otherwise the first answer tells the total. An \
            album is GET /albums/{id} with its first 50 tracks, then /albums/{id}/tracks (a 60-track album costs 2 \
            requests); an artist's releases are listed by /artists/{id}/albums (10 a page, as Spotify allows since \
            2026), then each album is read so; a show is GET /shows/{id}, then /shows/{id}/episodes; a track or an \
            episode GET /tracks/{id} or /episodes/{id}.
            """,
            """
            Pages of all the sources are fetched concurrently, lowest output position first, at most 8 requests in \
            flight (the window starts at 4 and doubles while Spotify answers cleanly, so the first clean answer takes \
            it to 8; a 429 with a Retry-After pauses every request of the run once, until then, and the window \
            resumes as it was; a 429 without one halves it for the whole run, and it then grows back one at a time), \
            and written strictly in order as soon as the next page in order has arrived; pages that arrive early wait \
            in a bounded look-ahead, so memory stays flat however long the run is. Only the fields the records need \
            are asked for. Standard input is read as it arrives, so the stages of spotify-playlists | spotify-tracks \
            overlap; a bad line fails the run in its turn, after the sources before it.
            """,
            """
            Faults are retried: a 429 waits for its Retry-After (up to the wait cap); 5xx answers, reset or timed-out \
            connections, and truncated or unreadable pages are tried again with exponential backoff and jitter.
            """,
            PlaylistCacheOptions.cacheDiscussion,
            """
            --liked reads /me/tracks. The library is never cached: Spotify gives it no snapshot_id, and the cheap \
            check of its total and newest added_at cannot rule out every edit (a removal and saves within the same \
            second leave both unchanged), so a copy could be stale without anyone knowing.
            """,
            searchNotes,
            libraryNotes,
            """
            Long fetches show progress on stderr (1,250/10,000 items, and for several playlists 14/151 playlists), \
            redrawn in place and cleared at the end (and when a signal ends the run), only when stderr is a terminal \
            and stdout is a terminal or a file: with stdout a pipe, the reader downstream writes to the same terminal \
            and the line would run into its output.
            """,
        ],
        arguments: [
            ArgumentSpec(
                "SOURCE",
                help:
                    """
                    A playlist (its name, one of yours: exact, else in any case; its id, URI, URL or record), or an \
                    album, artist, show, track or episode (its spotify:KIND:ID URI, open.spotify.com URL or record); \
                    - or none: read them from standard input. With --search, a query ('Artist - Title' or 'Title'); \
                    with --from, a playlist file (- for standard input).
                    """,
                optional: true, repeatable: true,
                completion: .suggestions(["-"] + Sources.kinds.map { "spotify:\($0.rawValue):" }))
        ],
        options: [
            Option.liked,
            Sources.includeGroupsOption,
        ] + LibraryOption.all + [
            SearchOption.search,
            SearchOption.candidates,
            fromOption,
            TrackFormatOption.option,
            Option.raw,
            Option.noLocal,
            Option.tracksOnly,
            PlaylistCacheOptions.noCacheOption,
            PlaylistCacheOptions.offlineOption,
            PlaylistCommands.concurrencyOption,
            RequestBudgetOption.option,
            PlaylistCommands.jsonOption,
        ],
        input: [
            """
            Without SOURCE arguments, or for an argument -, one source per line: a spotify:KIND:ID URI, an \
            open.spotify.com/KIND/ID URL, a bare playlist id, or a JSON record with uri or id and maybe type (a \
            playlist record from spotify-playlists; a track record, which reads that track). KIND is playlist, album, \
            artist, show, track or episode. Blank lines are skipped; anything else is an error naming the line (exit \
            65).
            """,
            """
            With --search, one query per line: 'Artist - Title' (the first ' - ' separates them; 'A feat. B' and 'A, \
            B' name several artists), 'Title' alone, or a JSON record {"name": TITLE, "artists": [NAME or \
            {"name": NAME}, ...], "duration_ms": N} (other fields ignored). A line that starts with { but is not \
            such a record (not JSON, no name) is an error naming the line (exit 65).
            """,
            """
            With --from, each FILE (- for standard input) is a playlist file: CSV with a header row naming its \
            columns (Exportify's, any of its versions: Track URI, Track Name, Artist Name(s), Album Name, Track \
            Duration (ms), ISRC...; quoted fields, a byte-order mark and CRLF are fine), extended M3U (#EXTINF lines \
            and locations: Spotify URIs or URLs, or a music server's paths), XSPF 1 or JSPF. A track with a Spotify \
            URI or URL is read without a search, and without any request when the file also gives its name and \
            length; one with an ISRC is found by an isrc: search (the release that plays in your country first); the \
            others are searched for by title, artists and length as --search does. A row that cannot be read is an \
            error naming the file and line (in JSPF, the track's number), and the run goes on with the next rows.
            """,
        ],
        output: [
            """
            One record per item, in order: type (track or episode), id, uri, name, duration_ms, artists [{id, \
            name}], album {id, name, release_date, release_date_precision, images} (release_date 1999, 1999-03 or \
            1999-03-01 as release_date_precision says: year, month or day), explicit, external_ids {isrc} (null when \
            Spotify gives none), is_playable (whether it plays in your country: every read names your market; absent \
            where Spotify does not say), is_local, then for a track of an album, artist or track source disc_number \
            and track_number, then added_at (null outside playlists), added_by {id} (playlist items: who added it, \
            null where Spotify does not say), position (zero-based, counting every item of the source: an artist's \
            count on across its releases), playlist {id, uri, name, snapshot_id} (the playlist the item is in, and \
            the version the read began at, so that spotify-playlists replace can refuse records of a playlist \
            changed since; null for other sources) and source {type, id, uri, name}: what the item was read from, \
            the playlist, album, artist, show, track or episode named (name null when Spotify's answers did not tell \
            it). Episodes have artists [] and album null, show {id, name, images}, their own release_date, \
            release_date_precision, explicit and is_playable, and no external_ids. Local files are kept (id null, a \
            spotify:local: uri, is_local true) unless --no-local; episodes are kept unless --tracks-only. Items \
            Spotify sends as null (no longer available) are skipped and counted on stderr. With --liked, playlist is \
            null, there is no source, and position counts the saved tracks.
            """,
            """
            With --search, one record per match, in query order: the track record (added_at null, playlist null, \
            position the query's line number, or its number among the arguments, counting from 1), then query (the \
            text it answers: the line, or 'Artists - name' for a JSON record), match (the score from 0 to 1, two \
            decimals) and match_quality (exact from 0.95, good from 0.8, else fair). --candidates N gives up to N \
            records per query, best first, all with the query's position.
            """,
            """
            On a terminal: a table of position (counting from 1, as people do; the records keep Spotify's zero-based \
            position), name, artists and duration, then the number of items and their total duration.
            """,
            libraryOutput,
            """
            With --format m3u, xspf, jspf or csv, one playlist file for the whole run instead of records (see \
            --format). With --from, the track records of the files' tracks in file order, as above with added_at as \
            the file says (else null), playlist null and position the row's (counting from 0 over every row of every \
            file, read or not); a track found by a search adds query, match and match_quality (by its ISRC: \
            isrc:CODE, 1 and exact).
            """,
        ],
        environment: PlaylistCommands.environment + PlaylistCacheOptions.environment
            + RequestBudgetOption.environment + NetworkEnvironment.all,
        files: [
            PlaylistCommands.tokensFile,
            PlaylistCacheOptions.cacheFile,
        ],
        exitCodes: [
            ExitCodeSpec(
                .notFound,
                """
                a source was not found (404), e.g. a Spotify-owned editorial playlist or an album id that does not \
                exist; or with --search, a query had no match; the others still printed. Also: standard input held no \
                source at all (nothing was read)
                """
            ),
            ExitCodeSpec(.noInput, "with --from: a FILE does not exist or cannot be read"),
            ExitCodeSpec(
                .usage,
                """
                usage error, e.g. a SOURCE argument that is no id, URI or URL of a kind it reads, or --search with \
                --liked
                """
            ),
            ExitCodeSpec(
                .dataError,
                """
                a line of standard input is not a source's id, URI, URL or record (with --search: not a query); the \
                message names the line. With --from: a row of a file could not be read (named on stderr, the others \
                still printed)
                """
            ),
        ]
            + PlaylistCommands.networkExitCodes.map { spec in
                spec.code == .noPermission
                    ? ExitCodeSpec(
                        .noPermission,
                        """
                        not logged in, the session ended, or Spotify refused; a playlist you neither own nor \
                        collaborate on (403) is reported and the others still print
                        """
                    )
                    : spec
            },
        examples: [
            ExampleSpec(
                "spotify-tracks 3cEYpjA9oz9GiPac4AsH4n | songcount --target 15m",
                "How many songs of a playlist fill fifteen minutes."),
            ExampleSpec(
                "spotify-playlists | jq -c 'select(.name==\"Run\")' | spotify-tracks --tracks-only",
                "The tracks of the playlist called Run, without podcast episodes."),
            ExampleSpec("spotify-tracks --liked | jq -r .name | head", "Your ten most recently liked songs."),
            ExampleSpec(
                """
                spotify-tracks spotify:album:4aawyAB9vmqN3uQ7FjRGTy | jq -r '"\\(.disc_number)-\\(.track_number) \
                \\(.name)"'
                """,
                "An album's track list."),
            ExampleSpec(
                """
                spotify-tracks --include-groups album https://open.spotify.com/artist/0OdUWJ0sBjDrqHygGUXeCF | jq -s \
                'unique_by([.name, [.artists[].name]]) | .[]' -c
                """,
                "An artist's albums' songs, each once."),
            ExampleSpec(
                "spotify-tracks --search 'Queen - Bohemian Rhapsody' 'Daft Punk - Get Lucky'",
                "The best matching track for each query."),
            ExampleSpec(
                """
                jq -c '{name: .trackName, artists: [.artistName], duration_ms: .msPlayed}' export.jsonl | \
                spotify-tracks --search --candidates 3
                """,
                "Up to three candidates for each row of another service's export."),
            ExampleSpec(
                "spotify-tracks --raw https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n > entries.jsonl",
                "Keep Spotify's own entry objects."),
            ExampleSpec(
                "spotify-tracks --format csv Morning > morning.csv",
                "A playlist as a CSV file with Exportify's columns."),
            ExampleSpec(
                "spotify-tracks --from csv exportify/*.csv | spotify-playlists create Restored",
                "An Exportify backup made a playlist again, in order, without a search."),
            ExampleSpec(
                "spotify-tracks --format jspf Morning > Morning.jspf",
                "A playlist for ListenBrainz (or XSPF for a music server)."),
        ],
        seeAlso: ["spotify-playlists", "songcount", "spotify-auth", "jq"]
    ).running(run)

    /// Which entries to write, and how.
    struct Selection {
        var raw: Bool
        var noLocal: Bool
        var tracksOnly: Bool

        /// Whether an entry of this kind is written (null items only raw; they are counted otherwise).
        func keeps(_ kind: PlaylistEntry.Kind) -> Bool {
            switch kind {
            case .unavailable: raw
            case .local: !noLocal
            case .episode: !tracksOnly
            case .track: true
            }
        }
    }

    /// The command line, read and checked once: what the run reads, and how it writes it.
    struct Options: CommandOptions {
        /// What a run reads: one of these, never two.
        enum Reading: Sendable {
            /// The SOURCE arguments (none: standard input); an artist's releases as `--include-groups` chooses.
            case sources([String], includeGroups: String)
            case liked
            case library(LibraryRead)
            case search(SearchOptions)
            /// `--from`: the tracks of playlist files.
            case files(ImportOptions)
        }

        var reading: Reading
        var selection: Selection
        /// `--no-cache` and `--offline` (never with --search, which refuses both).
        var cache = PlaylistCacheOptions.Choice()
        var concurrency: Int?
        var json: Bool
        var maxRequests: RequestBudgetOption.Choice?
        /// `--format`: JSON Lines (a table on a terminal), or a playlist file.
        var format = TrackFormatOption.Choice()

        init(_ command: ParsedCommand) throws {
            maxRequests = try RequestBudgetOption.choice(command)
            selection = Selection(
                raw: try command.flag(Option.raw), noLocal: try command.flag(Option.noLocal),
                tracksOnly: try command.flag(Option.tracksOnly))
            concurrency = try PlaylistCommands.concurrency(command)
            json = try command.flag(PlaylistCommands.jsonOption)
            format = try TrackFormatOption.chosen(command)
            if format.file != nil && selection.raw {
                throw ToolError.usage("--raw writes Spotify's objects; it cannot be used with --format")
            }
            if let from = try command.value(fromOption) {
                reading = .files(try ImportOptions(command, value: from))
                return
            }
            if let library = try LibraryRead(command) {
                if format.file != nil && !library.source.printsTracks {
                    throw ToolError.usage("--\(library.source.rawValue) prints artists; --format writes tracks")
                }
                reading = .library(library)
            } else if try command.flag(SearchOption.search) {
                reading = .search(try SearchOptions(command))
                return  // it refuses --no-cache and --offline: the cache choice stays the default
            } else {
                if try command.value(SearchOption.candidates) != nil {
                    throw ToolError.usage("--candidates needs --search")
                }
                let liked = try command.flag(Option.liked)
                if liked && !command.positionals.isEmpty {
                    throw ToolError.usage("--liked reads your saved tracks; it takes no SOURCE")
                }
                let includeGroups = try Sources.includeGroups(command)
                reading = liked ? .liked : .sources(command.positionals, includeGroups: includeGroups)
            }
            cache = try PlaylistCacheOptions.Choice(command)
        }

        /// Whether records are drawn as a table (a terminal, no --json, no --raw, no --format).
        func human(_ context: ToolContext) -> Bool {
            !selection.raw && format.file == nil
                && context.outputMode(forcedJSON: json || format.forcesJSON) == .human
        }

        /// The run's playlist file, when `--format` asks for one (finished at the end of the run).
        func export(_ context: ToolContext, title: String? = nil) -> TrackExport? {
            TrackExport.make(format, context, title: title)
        }
    }

    static func run(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        try RequestBudgetOption.apply(options.maxRequests, context)
        return switch options.reading {
        case .sources(let arguments, let includeGroups):
            try await runSources(arguments, includeGroups: includeGroups, options, context)
        case .liked: try await runLiked(options, context)
        case .library(let library): try await runLibrary(library, options, context)
        case .search(let search): try await runSearch(search, options, context)
        case .files(let files): try await runImport(files, options, context)
        }
    }

    /// The saved tracks of the library, newest first (never cached).
    static func runLiked(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        let human = options.human(context)
        let source = try PlaylistCacheOptions.reader(options.cache, context, concurrency: options.concurrency)
        let progress = ProgressLine(context, shownAbove: PagePlan.pageSize)
        let edits = EditedWhileRead()
        let pager = try source.requirePager(for: "liked songs")
        let export = options.export(context, title: "Liked Songs")
        var output = Output(
            context: context, selection: options.selection, human: human, playlist: nil, export: export)
        _ = try await pager.fetchAll(
            path: "/me/tracks", query: [TrackRecord.market],
            onTotalChanged: PlaylistCommands.totalChangedNote("your liked songs", context, edits),
            progress: { progress.update(done: $0, total: $1) }, body: { try output.write($0) }
        )
        progress.clear()
        try output.finish()
        try export?.finish()
        return edits.status(.success)
    }

    /// The sources named by the arguments, or by standard input as it arrives, one after another.
    static func runSources(
        _ arguments: [String], includeGroups: String, _ options: Options, _ context: ToolContext
    ) async throws -> ExitCode {
        let selection = options.selection
        // Standard input is read as it arrives: the first source is read while the rest still come.
        let arriving = try PlaylistCacheOptions.arrivingSelectors(
            arguments, offline: options.cache.offline, context, tool: spec.name, kinds: Sources.kinds)
        let playlists =
            arriving != nil
            ? []
            : try await PlaylistCacheOptions.selectors(
                arguments, offline: options.cache.offline, context, tool: spec.name, kinds: Sources.kinds)
        if let arriving {
            guard try await arriving.awaitFirst() else { return PlaylistCommands.nothingRead(context, tool: spec.name) }
        } else if playlists.isEmpty {
            return PlaylistCommands.nothingRead(context, tool: spec.name)
        }
        let human = options.human(context)
        let source = try PlaylistCacheOptions.reader(options.cache, context, concurrency: options.concurrency)
        let progress = ProgressLine(context, shownAbove: PagePlan.pageSize)
        let edits = EditedWhileRead()
        let export = options.export(context)
        var handler = PlaylistsOutput(
            context: context, selection: selection, human: human, playlists: playlists.map(\.reference),
            progress: progress, edits: edits, export: export)
        do {
            try await source.read(
                playlists, arriving: arriving, wanted: selection.raw ? .full : .records,
                uncachedFields: selection.raw ? nil : PlaylistEntry.itemFields, includeGroups: includeGroups,
                into: &handler)
        } catch {
            progress.clear()
            throw error
        }
        progress.clear()
        try export?.finish()
        return edits.status(handler.status)
    }

    /// Writes the playlists of a run as they are handed on, one after another: each one's
    /// records or table, then its notes; a playlist Spotify refuses is reported in its turn.
    struct PlaylistsOutput: PlaylistReadHandler {
        let context: ToolContext
        let selection: Selection
        let human: Bool
        var playlists: [SpotifyReference]
        let progress: ProgressLine
        let edits: EditedWhileRead
        /// The run's playlist file (`--format`), shared by every source's output.
        let export: TrackExport?
        var current: Output?
        var status = ExitCode.success
        /// Each source's name once known (a playlist's, an artist's), for the records' playlist and source.
        var names: [Int: String] = [:]
        /// Each playlist's snapshot_id once known, for the records' playlist.
        var snapshots: [Int: String] = [:]

        var takesLines: Bool { !human }

        mutating func output(_ index: Int) -> Output {
            current
                ?? Output(
                    context: context, selection: selection, human: human, playlist: playlists[index],
                    name: names[index], snapshot: snapshots[index], export: export)
        }

        mutating func named(_ name: String, playlist index: Int) {
            names[index] = name
            if current != nil { current?.name = name }
        }

        mutating func read(atSnapshot snapshot: String, playlist index: Int) {
            snapshots[index] = snapshot
            if current != nil { current?.snapshot = snapshot }
        }

        mutating func page(_ page: Page, playlist index: Int) throws {
            var output = output(index)
            defer { current = output }
            try output.write(page)
        }

        mutating func line(
            kind: PlaylistEntry.Kind, record: UnsafeRawBufferPointer, entry: UnsafeRawBufferPointer, playlist index: Int
        ) throws {
            var output = output(index)
            defer { current = output }
            try output.write(kind: kind, record: record, entry: entry)
        }

        mutating func totalChanged(playlist index: Int, was: Int, now: Int) {
            progress.clear()
            PlaylistCommands.totalChangedNote(Sources.what(playlists[index]), context, edits)(was, now)
        }

        mutating func editedWhileRead(playlist index: Int) {
            progress.clear()
            PlaylistCommands.editedNote(Sources.what(playlists[index]), context, edits)
        }

        mutating func finished(playlist index: Int, _ result: PlaylistItemsReader.Result) throws {
            progress.clear()
            let output = output(index)
            current = nil
            switch result {
            case .delivered:
                try output.finish()
            case .refused(let refused):
                try PlaylistCommands.report(
                    Sources.refusal(SpotifyErrorBody(refused), source: playlists[index]), context, status: &status)
            case .failed(let error):
                try PlaylistCommands.report(error, context, status: &status)
            }
        }

        mutating func arrived(_ reference: SpotifyReference, playlist index: Int) {
            playlists.append(reference)
        }

        mutating func progress(_ run: PlaylistItemsReader.Progress) {
            let noun = playlists.allSatisfy { $0.kind == .playlist } ? "playlists" : "sources"
            progress.update(done: run.items, total: run.itemsKnown, lists: (run.playlists, run.playlistsTotal, noun))
        }
    }

    /// Writes one source's (or the liked songs') pages as records, raw entries or table rows.
    struct Output {
        let context: ToolContext
        let selection: Selection
        let human: Bool
        /// The source read (a playlist, album, artist, show, track or episode); nil for liked songs.
        let playlist: SpotifyReference?
        /// Its name, once known.
        var name: String?
        /// The playlist's snapshot_id its read began at, once known.
        var snapshot: String?
        /// The album or show the catalogue items being written belong to (an album's tracks lack
        /// `album`), from the first page of each.
        var container: JSONValue?
        /// Items of a catalogue source handed on so far: the next one's position (an artist's
        /// count on across its albums).
        var consumed = 0
        var table: TrackTable?
        /// Where records go instead of JSON Lines, with `--format`.
        var export: TrackExport?
        var unavailable = 0
        var written = 0

        init(
            context: ToolContext, selection: Selection, human: Bool, playlist: SpotifyReference?, name: String? = nil,
            snapshot: String? = nil, export: TrackExport? = nil
        ) {
            self.export = export
            self.context = context
            self.selection = selection
            self.human = human
            self.playlist = playlist
            self.name = name
            self.snapshot = snapshot
        }

        mutating func write(_ page: Page) throws {
            // An artist's albums run on: its positions outgrow any one album's total.
            if human && table == nil { try startTable(total: playlist?.kind == .artist ? 10_000 : page.total) }
            if let playlist, playlist.kind != .playlist { return try writeCatalogue(page, source: playlist) }
            let source = playlist.map { RecordSource($0, name: name) }
            for (index, entry) in page.items.enumerated() {
                let kind = PlaylistEntry.kind(of: entry)
                if kind == .unavailable && !selection.raw { unavailable += 1 }
                guard selection.keeps(kind) else { continue }
                let position = page.offset + index
                if selection.raw {
                    try context.stdout.write(entry)
                    written += 1
                } else if let record = PlaylistEntry.record(
                    entry, item: page.itemRecord(index), position: position, playlist: playlist, name: name,
                    snapshot: snapshot, source: source)
                {
                    try writeRow(TrackRow(record, position: position))
                }
            }
            try context.stdout.endBatch()  // each page downstream as it arrives (`| head` stops us early)
        }

        /// An album's or a show's tracks or episodes, or a track or an episode read on its own:
        /// Spotify's objects untouched with --raw, else records (see `CatalogItem`).
        mutating func writeCatalogue(_ page: Page, source reference: SpotifyReference) throws {
            if let source = page.source { container = source }
            for item in page.items {
                let position = consumed
                consumed += 1
                let entry = CatalogItem.entry(item, container: container)
                let kind = PlaylistEntry.kind(of: entry)
                if kind == .unavailable && !selection.raw { unavailable += 1 }
                guard selection.keeps(kind) else { continue }
                if selection.raw {
                    try context.stdout.write(item)
                    written += 1
                } else if let record = CatalogItem.record(
                    entry, position: position,
                    source: Sources.recordSource(reference, name: name, container: container, item: item))
                {
                    try writeRow(TrackRow(record, position: position))
                }
            }
            try context.stdout.flush()
        }

        /// One track record, as JSON, as a table row, or into the run's playlist file.
        mutating func writeRow(_ row: TrackRow) throws {
            if let export {
                try export.write(row.json)
            } else if table != nil {
                try table!.write(row)
            } else {
                try context.stdout.write(row)
            }
            written += 1
        }

        mutating func startTable(total: Int, title: String? = nil) throws {
            // The source's name heads its table, its URI beside it for a copy and paste.
            let heading = name.map { "\(TerminalText.clean($0))  \(playlist?.uri ?? "")" } ?? playlist?.uri
            table = try TrackTable(context, total: total, title: title ?? heading)
        }

        func finish() throws {
            if human {
                try context.stdout.writeText(TrackTable.totalLine(items: written, durationMs: table?.durationMs ?? 0))
            }
            try context.stdout.endBatch()  // a cached copy's lines, written at once, go on too
            if unavailable > 0 {
                let what = playlist.map(Sources.what) ?? "your liked songs"
                context.warn(
                    """
                    \(what): skipped \(unavailable) \(unavailable == 1 ? "item" : "items") Spotify no longer makes \
                    available (null)
                    """
                )
            }
        }
    }
}

extension SpotifyTracks {
    /// The options, each declared once: the spec lists them and `Options` reads them.
    enum Option {
        static let liked = OptionSpec(
            "liked", short: "l", help: "Read your liked songs (saved tracks) instead of playlists.")
        static let raw = OptionSpec(
            "raw",
            help:
                """
                Write Spotify's entry objects ({added_at, added_by, is_local, item, ...}) untouched instead of track \
                records; null items included.
                """
        )
        static let noLocal = OptionSpec("no-local", help: "Leave out local files (is_local, no Spotify id).")
        static let tracksOnly = OptionSpec("tracks-only", help: "Leave out podcast episodes.")
    }
}
