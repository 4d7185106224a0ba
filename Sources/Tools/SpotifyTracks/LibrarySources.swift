import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// spotify-tracks' reads of what Spotify knows about you: `--top`, `--saved-albums` (track
/// records) and `--top-artists`, `--followed` (artist records).
extension SpotifyTracks {
    /// Which of them a run asks for.
    enum LibrarySource: String, CaseIterable {
        case top
        case savedAlbums = "saved-albums"
        case topArtists = "top-artists"
        case followed

        var option: OptionSpec {
            switch self {
            case .top: LibraryOption.top
            case .savedAlbums: LibraryOption.savedAlbums
            case .topArtists: LibraryOption.topArtists
            case .followed: LibraryOption.followed
            }
        }

        var ranked: Bool { self == .top || self == .topArtists }

        /// Whether it prints track records (the others print artists).
        var printsTracks: Bool { self == .top || self == .savedAlbums }
    }

    /// `--top`, `--saved-albums`, `--top-artists` or `--followed`, with `--range`: read and checked.
    struct LibraryRead: Sendable {
        var source: LibrarySource
        /// `--range`, for the ranked reads.
        var range: LibraryReads.TopRange

        /// The library read asked for; nil when none is. Checks what it cannot be combined with.
        init?(_ command: ParsedCommand) throws {
            let chosen = try LibrarySource.allCases.filter { try command.flag($0.option) }
            let rangeText = try command.value(LibraryOption.range)
            if rangeText != nil && !chosen.contains(where: \.ranked) {
                throw ToolError.usage("--range goes with --top or --top-artists")
            }
            guard let source = chosen.first else { return nil }
            let others =
                try chosen.dropFirst().map { "--\($0.rawValue)" }
                + [Option.liked, SearchOption.search, SearchOption.candidates].filter {
                    try command.flag($0) || command.value($0) != nil
                }.map { "--\($0.long)" }
            if let other = others.first {
                throw ToolError.usage(
                    "--\(source.rawValue) and \(other) cannot be used together; run them one at a time")
            }
            if !command.positionals.isEmpty {
                throw ToolError.usage("--\(source.rawValue) reads your library; it takes no PLAYLIST")
            }
            self.source = source
            range = .medium
            if let rangeText {
                guard let range = LibraryReads.TopRange(rawValue: rangeText) else {
                    throw ToolError.usage("--range must be short, medium or long, not '\(rangeText.prefix(40))'")
                }
                self.range = range
            }
        }
    }

    static let libraryDiscussion =
        """
        What Spotify knows about you: --top prints your top tracks, ranked from 1, over --range short (about 4 \
        weeks), medium (about 6 months; the default, as Spotify's) or long (about a year); --saved-albums prints the \
        tracks of your saved albums (newest saved first, each album's tracks in order). They print track records, so \
        they compose with songcount, spotify-playlists create and spotify-nowplaying play like any other; an album's \
        name and cover are on each of its tracks' records (jq 'unique_by(.album.id)' lists the albums). --top-artists \
        (ranked, with --range) and --followed print artist records instead. --top and --top-artists need the \
        user-top-read scope, --followed user-follow-read: spotify-auth login --scope history adds both.
        """

    /// Which endpoints the library reads ask (the man page's HOW IT WORKS).
    static let libraryNotes =
        """
        --top reads GET /me/top/tracks (50 to a page), --top-artists /me/top/artists, --saved-albums /me/albums (the \
        first 50 tracks of each album come with it, the rest from /albums/{id}/tracks), --followed /me/following \
        (cursor paging).
        """

    /// The records the library reads print (for the spec's output section).
    static let libraryOutput =
        """
        With --top, track records as above with added_at null, playlist null, position (rank - 1) and rank (1 for \
        your most played). With --saved-albums, track records with album filled from the saved album, then \
        disc_number, track_number, added_at (when you saved the album) and position (zero-based in its album). With \
        --top-artists or --followed, artist records: type (artist), id, uri, name, genres (maybe []), images (largest \
        first, maybe []), external_url, and with --top-artists rank. On a terminal: a table of rank (or position), \
        name and artists or genres. With --raw, Spotify's objects untouched: track and artist objects, and for \
        --saved-albums the saved album objects {added_at, album} with the album's first page of tracks.
        """

    /// The library source's run: its pages, written in order.
    static func runLibrary(_ library: LibraryRead, _ options: Options, _ context: ToolContext) async throws
        -> ExitCode
    {
        let (source, range, selection) = (library.source, library.range, options.selection)
        let human = options.human(context)
        let pager = try PlaylistCacheOptions.reader(options.cache, context, concurrency: options.concurrency)
            .requirePager(for: source == .followed ? "followed artists" : "your top tracks, artists and saved albums")
        let progress = ProgressLine(context, shownAbove: PagePlan.pageSize)
        let edits = EditedWhileRead()
        defer { progress.clear() }
        switch source {
        case .top:
            let export = options.export(context, title: "Your top tracks of \(range.description)")
            var output = Output(context: context, selection: selection, human: human, playlist: nil, export: export)
            _ = try await pager.fetchAll(
                path: "/me/top/tracks", query: [("time_range", range.timeRange)], scope: LibraryReads.topScope,
                onTotalChanged: PlaylistCommands.totalChangedNote("your top tracks", context, edits),
                progress: { progress.update(done: $0, total: $1) },
                body: { page in
                    if human && output.table == nil {
                        try output.startTable(total: page.total + 1, title: "Your top tracks of \(range.description)")
                    }
                    for (index, track) in page.items.enumerated() {
                        let rank = page.offset + index + 1
                        if selection.raw {
                            try context.stdout.write(track)
                        } else if let record = LibraryReads.topTrackRecord(track, rank: rank) {
                            try output.writeRow(TrackRow(record, position: rank - 1))  // shown from 1: the rank
                        }
                    }
                    try context.stdout.flush()
                })
            progress.clear()
            if !selection.raw { try output.finish() }
            try export?.finish()
        case .savedAlbums:
            return try await savedAlbums(
                pager, context, selection: selection, human: human, progress: progress, edits: edits,
                export: options.export(context, title: "Your saved albums"))
        case .topArtists, .followed:
            var artists = ArtistOutput(context: context, human: human, raw: selection.raw)
            if source == .followed {
                try await LibraryReads.followedArtists(api: pager.api) { page in
                    for artist in page { try artists.write(artist, rank: nil) }
                    try context.stdout.flush()
                }
            } else {
                _ = try await pager.fetchAll(
                    path: "/me/top/artists", query: [("time_range", range.timeRange)], scope: LibraryReads.topScope,
                    onTotalChanged: PlaylistCommands.totalChangedNote("your top artists", context, edits),
                    progress: { progress.update(done: $0, total: $1) },
                    body: { page in
                        for (index, artist) in page.items.enumerated() {
                            try artists.write(artist, rank: page.offset + index + 1)
                        }
                        try context.stdout.flush()
                    })
            }
            progress.clear()
            try artists.finish()
        }
        return edits.status(.success)
    }

    /// `--saved-albums`: each album's embedded tracks as its page arrives; an album with more than
    /// the embedded page holds the output (in order) until its rest is read, after the last page.
    static func savedAlbums(
        _ pager: Pager, _ context: ToolContext, selection: Selection, human: Bool, progress: ProgressLine,
        edits: EditedWhileRead, export: TrackExport? = nil
    ) async throws -> ExitCode {
        var output = Output(context: context, selection: selection, human: human, playlist: nil, export: export)
        // The # column is the position in the album: three digits are room enough.
        if human { try output.startTable(total: 1000, title: "Your saved albums") }
        /// What waits behind an album whose rest is still to be read: records, or such an album.
        enum Held {
            case records([TrackRecord])
            case rest(LibraryReads.AlbumRest)
        }
        var held: [Held] = []
        _ = try await pager.fetchAll(
            path: "/me/albums", query: [TrackRecord.market],
            scope: SpotifyScope.Need(["user-library-read"], for: "reading your saved albums"),
            onTotalChanged: PlaylistCommands.totalChangedNote("your saved albums", context, edits),
            progress: { progress.update(done: $0, total: $1) },
            body: { page in
                for saved in page.items {
                    if selection.raw {
                        try context.stdout.write(saved)
                        continue
                    }
                    let (records, rest) = LibraryReads.savedAlbumTracks(saved)
                    if held.isEmpty {
                        for record in records { try output.writeRow(TrackRow(record)) }
                    } else {
                        held.append(.records(records))
                    }
                    if let rest { held.append(.rest(rest)) }
                }
                try context.stdout.flush()
            })
        progress.clear()
        for part in held {
            let records: [TrackRecord]
            switch part {
            case .records(let ready): records = ready
            case .rest(let rest): records = try await LibraryReads.rest(of: rest, api: pager.api)
            }
            for record in records { try output.writeRow(TrackRow(record)) }
            try context.stdout.flush()
        }
        if !selection.raw { try output.finish() }
        try export?.finish()
        return edits.status(.success)
    }

    /// Artist records as JSON Lines, Spotify's objects (`--raw`), or table rows.
    struct ArtistOutput {
        let context: ToolContext
        let raw: Bool
        var printer: RecordPrinter<ArtistRow>
        var written = 0

        init(context: ToolContext, human: Bool, raw: Bool) {
            self.context = context
            self.raw = raw
            printer = RecordPrinter(
                context, mode: human ? .human : .jsonLines,
                columns: [
                    .fixed("#", width: 3, alignment: .right), .flexible("NAME", weight: 2),
                    .flexible("GENRES", weight: 3),
                ])
        }

        mutating func write(_ artist: JSONValue, rank: Int?) throws {
            if raw { return try context.stdout.write(artist) }
            guard let record = LibraryReads.artistRecord(artist, rank: rank) else { return }
            written += 1
            try printer.write(ArtistRow(record: record, number: rank ?? written))
        }

        func finish() throws {
            if printer.mode == .human { try context.stdout.writeText("\(groupedThousands(written)) artists\n") }
        }
    }

    /// The options, each declared once: the spec lists them and `Options` reads them.
    enum LibraryOption {
        static let top = OptionSpec(
            "top", help: "Read your top tracks (most played first, with rank) instead of playlists.")
        static let range = OptionSpec(
            "range", value: "RANGE",
            help:
                """
                With --top or --top-artists: over short (about 4 weeks), medium (about 6 months) or long (about a year).
                """,
            default: "medium", completion: .choices(LibraryReads.TopRange.allCases.map(\.rawValue)))
        static let savedAlbums = OptionSpec(
            "saved-albums", help: "Read the tracks of your saved albums (album after album, newest saved first).")
        static let topArtists = OptionSpec(
            "top-artists", help: "Print your top artists as artist records (most played first, with rank).")
        static let followed = OptionSpec("followed", help: "Print the artists you follow as artist records.")

        static let all = [top, range, savedAlbums, topArtists, followed]
    }
}
