import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `routine-link fit`: the songs of a playlist (or of your liked songs) whose total comes closest
/// to the routine's duration become a new Spotify playlist, linked to the routine. The same as
/// `spotify-tracks … | songcount --target D --best-fit | spotify-playlists create N | routine-link
/// link R`, in one command.
extension RoutineLink {
    struct FitOptions: OfOneRoutine {
        static let from = OptionSpec(
            "from", value: "PLAYLIST",
            help: "Choose from this playlist's songs (an id, URI, URL, playlist record, or its name).")
        static let liked = OptionSpec("liked", short: "l", help: "Choose from your liked songs.")
        static let name = OptionSpec(
            "name", value: "NAME", help: "The new playlist's name. Default: the routine's name and duration.")

        /// The routine's name, and --json.
        var routine: RoutineOptions
        /// --from's playlist; nil: --liked.
        var from: String?
        /// --name: the new playlist's; nil: the routine's name and duration.
        var playlistName: String?

        init(_ command: ParsedCommand) throws {
            routine = try RoutineOptions(command)
            from = try command.value(Self.from)
            let liked = try command.flag(Self.liked)
            guard (from != nil) != liked else {
                throw ToolError.usage("fit chooses from one source: --from PLAYLIST or --liked")
            }
            playlistName = try command.value(Self.name)
            guard playlistName != "" else { throw ToolError.usage("--name must not be empty") }
        }
    }

    static let fitCommand = CommandSpec(
        name: "fit",
        abstract: "make a playlist that fills the routine's duration, from a playlist or your liked songs, and link it",
        discussion: [
            """
            Reads the songs of --from PLAYLIST or of --liked, picks those whose total comes closest to the routine's \
            duration, keeping their order (songcount --best-fit: fewer songs, then earlier ones, win a tie), makes \
            them a new private playlist (spotify-playlists create) and links it to the routine. The routine needs a \
            duration (routine-link add NAME --duration 15m). Local files cannot be added to a Spotify playlist and are \
            not chosen. Needs the playlist write scopes: spotify-auth login --scope edit. A playlist linked before \
            stays in your library (fit never deletes); fit says so, with the spotify-playlists delete that removes it.
            """,
            """
            Prints the routine record, as link does; standard error says what was made: the playlist's name and id, \
            the songs, their total and how far it is from the duration.
            """,
        ],
        arguments: [nameArgument],
        options: [FitOptions.from, FitOptions.liked, FitOptions.name],
        examples: [
            ExampleSpec(
                "routine-link fit morning --liked",
                "Fifteen minutes of liked songs for the fifteen-minute morning routine, as a playlist, linked."),
            ExampleSpec(
                "routine-link fit run --from 3cEYpjA9oz9GiPac4AsH4n --name 'Run 30'",
                "A playlist's songs that fill the run routine."),
        ]
    )

    static func fit(_ options: FitOptions, _ context: ToolContext) async throws -> ExitCode {
        let book = try book(context)
        let routine = book.routines[try book.existingIndex(of: options.name)]
        guard let targetMs = routine.durationMs, targetMs > 0 else {
            throw ToolError.usage(
                """
                '\(routine.name)' has no duration to fill; give it one: routine-link add '\(routine.name)' --duration \
                15m
                """
            )
        }
        var source: SpotifyReference?
        if let from = options.from { source = try await PlaylistNames.reference(from, context, exact: false) }
        let name = options.playlistName ?? "\(routine.name) \(formatClock(milliseconds: targetMs))"

        let api = try context.webAPI()
        let songs = try await songs(from: source, api: api, context: context)
        guard !songs.isEmpty else {
            throw ToolError(
                .notFound, "\(source.map { "playlist \($0.id)" } ?? "your liked songs") has no songs to choose from")
        }
        let fit = BestFit.choose(durations: songs.map(\.durationMs), targetMs: targetMs)
        guard !fit.indices.isEmpty else {
            throw ToolError(
                .notFound,
                "no songs fit '\(routine.name)' (\(formatClock(milliseconds: targetMs))): every one is too long")
        }
        let uris = fit.indices.map { songs[$0].uri }
        // Checked before the playlist is made: one full at 10,000 would not fit the routine.
        if uris.count > PlaylistWriter.maxItems {
            throw ToolError.dataError(
                """
                the fit takes \(groupedThousands(uris.count)) songs, more than the \
                \(groupedThousands(PlaylistWriter.maxItems)) a playlist can hold; nothing was created
                """
            )
        }

        let writer = PlaylistWriter(
            api: api, settlePause: context.developer.settlePause)
        let created = try await writer.create(
            name: name, description: "Fits the routine '\(routine.name)': \(fit.summary).", isPublic: false,
            collaborative: false)
        guard let id = created["id"]?.stringValue else { throw ToolError.software("fit: the new playlist has no id") }
        do {
            // From the creation's snapshot_id, so a first batch that provably did not land is sent again.
            _ = try await writer.add(
                uris, to: id, at: nil, from: .init(snapshot: created["snapshot_id"]?.stringValue, total: 0))
        } catch let stopped as PlaylistWriter.AddStopped {
            var error = stopped.toolError
            error.message +=
                """
                ; made playlist '\(TerminalText.clean(name))' (\(id)) with \(stopped.landed) of the \(uris.count) \
                songs chosen, and linked nothing (spotify-playlists delete \(id) removes it)
                """
            throw error
        }
        let record = try await writer.record(of: id)
        guard let playlist = PlaylistLink(playlistObject: .object(record)) else {
            throw ToolError.software("fit: the new playlist's record cannot be linked")
        }
        let linked = try store(context).update { try $0.link(routine.name, to: playlist) }
        context.warn(
            "made playlist '\(TerminalText.clean(name))' (\(id)): \(fit.summary); linked it to '\(linked.name)'")
        // Only a playlist is deleted so; a linked album or track is not the library's to delete.
        if let previous = routine.playlist, previous.id != id, previous.uri.hasPrefix("spotify:playlist:") {
            // fit never deletes: the playlist it replaces in the link is still in the library.
            context.warn(
                """
                the playlist linked before, \(playlistName(previous)) (\(previous.id)), stays in your library; if you \
                no longer want it: spotify-playlists delete \(previous.id)
                """
            )
        }
        try Printer(context, json: options.json).write(
            linked.record, human: "linked '\(linked.name)' to \(playlistName(playlist))")
        return .success
    }

    struct Song {
        var uri: String
        var durationMs: Int
    }

    /// The songs that can go in a playlist (a Spotify URI and a duration), in order.
    static func songs(from playlist: SpotifyReference?, api: SpotifyWebAPI, context: ToolContext) async throws
        -> [Song]
    {
        var songs: [Song] = []
        func take(_ page: Page, _ reference: SpotifyReference?) {
            for (index, entry) in page.items.enumerated() where PlaylistEntry.kind(of: entry) == .track {
                guard let record = PlaylistEntry.record(entry, position: page.offset + index, playlist: reference),
                    let uri = record.uri, let duration = record.durationMs, duration > 0
                else { continue }
                songs.append(Song(uri: uri, durationMs: duration))
            }
        }
        guard let playlist else {
            _ = try await Pager(api: api).fetchAll(path: "/me/tracks", body: { take($0, nil) })
            return songs
        }
        var collector = SongCollector(playlist: playlist)
        let reader = PlaylistItemsReader(mode: .bypass, cache: nil, pager: Pager(api: api), warn: context.warn)
        try await reader.read(
            [PlaylistItemsReader.Selector(reference: playlist, snapshot: nil)], wanted: .records,
            uncachedFields: PlaylistEntry.itemFields, into: &collector)
        if let refusal = collector.refusal { throw refusal }
        for page in collector.pages { take(page, playlist) }
        return songs
    }

    /// Keeps a playlist's pages (at most 10,000 items), or why Spotify refused them.
    struct SongCollector: PlaylistReadHandler {
        let playlist: SpotifyReference
        var pages: [Page] = []
        var refusal: ToolError?

        mutating func page(_ page: Page, playlist index: Int) throws { pages.append(page) }
        mutating func finished(playlist index: Int, _ result: PlaylistItemsReader.Result) throws {
            switch result {
            case .delivered: break
            case .refused(let result):
                let body = SpotifyErrorBody(result)
                refusal =
                    result.status == 404
                    ? ToolError(.notFound, "playlist \(playlist.id): not found (404: \(body.message))")
                    : ToolError.noPermission(
                        """
                        playlist \(playlist.id): Spotify shows the items only of playlists you own or collaborate on \
                        (\(result.status): \(body.message))
                        """
                    )
            case .failed(let error): refusal = error
            }
        }
    }
}
