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

    static func add(_ invocation: Invocation) async throws -> ExitCode {
        var durationMs: Int?
        if let text = try invocation.command.value(Option.duration) {
            let milliseconds = try parseDuration(text)
            guard milliseconds > 0 else { throw ToolError.usage("--duration must be longer than 0") }
            durationMs = milliseconds
        }
        let note = try invocation.command.value(Option.note)
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
        let durationText = try command.value(Option.newDuration)
        if try command.flag(Option.noDuration) {
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
        if let note = try command.value(Option.newNote) {
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
        if try invocation.command.flag(namesOption) {
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
        let skipQuestion = try invocation.command.flag(Option.yes)
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
        if try invocation.command.flag(Option.print) {
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
}
