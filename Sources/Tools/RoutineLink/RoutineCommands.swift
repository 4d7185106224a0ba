import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// routine-link's routine and link subcommands: add, edit, list, show, remove, link, open.
extension RoutineLink {

    static func add(_ options: AddOptions, _ context: ToolContext) throws -> ExitCode {
        let routine = try store(context).update {
            try $0.add(
                name: options.name, durationMs: options.durationMs, note: options.note, now: isoTimestamp(context.now))
        }
        try Printer(context, json: options.json).write(routine.record, human: "added " + routine.record.line)
        return .success
    }

    static func edit(_ options: EditOptions, _ context: ToolContext) throws -> ExitCode {
        let routine = try store(context).update { try $0.edit(options.name, options.change) }
        var line = "edited " + routine.record.line
        if let note = routine.note { line += "; note: " + note }
        try Printer(context, json: options.json).write(routine.record, human: line)
        if case .set(let durationMs) = options.change.durationMs, let playlist = routine.playlist {
            // A playlist fit made for the old duration no longer fills the new one.
            context.warn(
                """
                '\(routine.name)' is linked to \(playlistName(playlist)) (\(playlist.id)), which may fill the old \
                duration; to fit \(formatClock(milliseconds: durationMs)): routine-link fit \
                \(shellQuoted(TerminalText.clean(routine.name))) --from PLAYLIST (or --liked)
                """
            )
        }
        return .success
    }

    static func list(_ options: ListOptions, _ context: ToolContext) throws -> ExitCode {
        let routines = try book(context).routines
        if options.namesOnly {
            for routine in routines { try context.stdout.writeText(TerminalText.clean(routine.name) + "\n") }
            return .success
        }
        let records = routines.map(\.record)
        try Printer(context, json: options.json).writeAll(records, header: RoutineRecord.header) {
            records.map(\.cells)
        }
        if routines.isEmpty && context.terminal.stderrIsTerminal {
            context.warn("no routines yet; add one with: routine-link add NAME --duration 15m")
        }
        return .success
    }

    static func show(_ options: RoutineOptions, _ context: ToolContext) throws -> ExitCode {
        let book = try book(context)
        let record = book.routines[try book.existingIndex(of: options.name)].record
        try Printer(context, json: options.json).write(record, human: record.details(in: context.timeZone))
        return .success
    }

    static func remove(_ options: RemoveOptions, _ context: ToolContext) throws -> ExitCode {
        if !options.skipQuestion {
            // Unlike spotify-playlists delete, remove has always refused to guess without a
            // terminal: a script says --yes.
            guard context.terminal.stdinIsTerminal else {
                throw ToolError.usage(
                    """
                    remove asks before deleting; standard input is not a terminal, so pass --yes to remove without \
                    asking
                    """
                )
            }
            let book = try book(context)
            let routine = book.routines[try book.existingIndex(of: options.name)]
            guard
                context.confirmed(
                    "remove routine '\(routine.name)'\(withSessions(routine.sessions.count))?", skipQuestion: false)
            else {
                context.warn("kept '\(routine.name)'; nothing was removed")
                return .notFound
            }
        }
        let removed = try store(context).update { try $0.remove(options.name) }
        context.warn("removed '\(removed.name)'\(withSessions(removed.sessions.count))")
        return .success
    }

    /// What goes with a routine that is removed: " and its 1 session", " (no sessions)" (never
    /// "its 0 sessions").
    static func withSessions(_ count: Int) -> String {
        count == 0 ? " (no sessions)" : " and its \(plural(count, "session"))"
    }

    // MARK: Links

    static func link(_ options: LinkOptions, _ context: ToolContext) async throws -> ExitCode {
        var playlist: PlaylistLink
        if let argument = options.playlist {
            // Fail on an unknown routine before asking Spotify for a playlist's name.
            _ = try book(context).existingIndex(of: options.name)
            let named = try await PlaylistNames.resolve([argument], context) {
                (try? SpotifyReference.parse($0, expectingOneOf: PlaylistLink.kinds)) != nil
            }
            playlist = PlaylistLink(try SpotifyReference.argument(named[0], expectingOneOf: PlaylistLink.kinds))
        } else {
            guard !context.terminal.stdinIsTerminal || options.saysStandardInput else {
                throw ToolError.usage(
                    """
                    give a PLAYLIST (id, URI or URL), or pipe a playlist record: spotify-playlists | jq -c \
                    'select(.name=="Morning")' | routine-link link NAME
                    """
                )
            }
            playlist = try playlistFromInput(context.stdin)
            // Fail on an unknown routine before asking Spotify anything.
            _ = try book(context).existingIndex(of: options.name)
        }
        if playlist.name == nil {
            playlist = try await fetchMetadata(playlist, context)
        }
        let linked = playlist
        let routine = try store(context).update { try $0.link(options.name, to: linked) }
        try Printer(context, json: options.json).write(
            routine.record, human: "linked '\(routine.name)' to \(playlistName(linked))")
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

    static func open(_ options: OpenOptions, _ context: ToolContext) throws -> ExitCode {
        let book = try book(context)
        let playlist = try linkedPlaylist(book.routines[try book.existingIndex(of: options.name)])
        let opener = LinkOpener(environment: context.environment)
        let link = LinkOpener.playlistLink(playlist, schemeHasHandler: opener.spotifySchemeHasHandler())
        if options.printOnly {
            try context.stdout.writeText(link + "\n")
            return .success
        }
        return try openLink(link, playlist, context)
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
}
