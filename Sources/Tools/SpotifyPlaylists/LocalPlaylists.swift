import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SpotifyPlaylists {
    static let localNamesOption = OptionSpec(
        "names", help: "local list: print only the names, one per line (what shell completion offers).")

    static let localCommand = CommandSpec(
        name: "local",
        abstract:
            """
            app-local playlists: track records kept on this machine under a name (create, list, show, add, rename, \
            delete)
            """,
        discussion: [
            """
            local create NAME stores the track records read from standard input (what spotify-tracks printed, so \
            names and durations work offline) as a new playlist (an empty standard input makes nothing and exits 1, \
            unless --allow-empty); local add NAME appends more; local show NAME prints them again, unchanged and in \
            order (spotify-playlists local show Mix | songcount --target 15m); local list prints a local_playlist \
            record per playlist (type, name, items_total, duration_ms, created_at, updated_at); local rename OLD NEW; \
            local delete NAME (on a terminal it asks first, since a local playlist cannot be brought back; --yes does \
            not ask, nor does a script or pipe).
            """,
            """
            Names are any Unicode text and match without regard to case. A file of local playlists that cannot be \
            read (exit 65) or was written by a newer spotify-toolkit (exit 78) is never overwritten.
            """,
        ],
        notes: [
            """
            The local playlists live in one file, $XDG_DATA_HOME/spotify-toolkit/local-playlists.json: every change \
            takes an exclusive lock, re-reads it and replaces it atomically, so processes writing at once lose \
            nothing and a killed one leaves the old or the new file.
            """
        ],
        arguments: [
            ArgumentSpec(
                "ACTION", help: "create, list, show, add, rename or delete.",
                completion: .choices(["create", "list", "show", "add", "rename", "delete"])),
            ArgumentSpec(
                "NAME", help: "The local playlist (rename: OLD NEW).", optional: true, repeatable: true,
                completion: .command("spotify-playlists local list --names")),
        ],
        options: [localNamesOption, WriteOption.allowEmpty, WriteOption.localYes],
        examples: [
            ExampleSpec(
                "spotify-tracks 3cEYpjA9oz9GiPac4AsH4n | spotify-playlists local create Morning",
                "Keep a playlist's tracks on this machine."),
            ExampleSpec("spotify-playlists local show morning | songcount --target 15m", "Count it in songs, offline."),
        ]
    )

    /// local's command line: the action and its names, checked once.
    struct LocalOptions: CommandOptions {
        enum Action: Equatable {
            case list
            case show(String)
            case create(String)
            case add(String)
            case rename(String, to: String)
            case delete(String)
        }

        var json: Bool
        var action: Action
        /// list --names: only the names.
        var namesOnly: Bool
        var allowEmpty: Bool
        /// delete --yes: do not ask first.
        var yes: Bool

        init(_ command: ParsedCommand) throws {
            // Every option is read first; an option the action does not take is then refused,
            // naming it, never accepted and ignored.
            namesOnly = try command.flag(localNamesOption)
            allowEmpty = try command.flag(WriteOption.allowEmpty)
            yes = try command.flag(WriteOption.localYes)
            json = try command.flag(PlaylistCommands.jsonOption)
            var arguments = command.positionals
            let action = arguments.removeFirst()
            func names(_ count: Int, _ usage: String) throws -> [String] {
                guard arguments.count == count else { throw ToolError.usage("local \(action) takes \(usage)") }
                return try arguments.map(LocalPlaylist.checkName)
            }
            switch action {
            // ls and rm as routine-link and spotify-playlists have them.
            case "list", "ls":
                _ = try names(0, "no NAME")
                self.action = .list
            case "show": self.action = .show(try names(1, "one NAME")[0])
            case "create": self.action = .create(try names(1, "one NAME and reads track records on standard input")[0])
            case "add": self.action = .add(try names(1, "one NAME and reads track records on standard input")[0])
            case "rename":
                let pair = try names(2, "OLD and NEW names")
                self.action = .rename(pair[0], to: pair[1])
            case "delete", "rm": self.action = .delete(try names(1, "one NAME")[0])
            default:
                throw ToolError.usage(
                    "unknown local action '\(action)'; one of: create, list, show, add, rename, delete")
            }
            let onlyFor: [(OptionSpec, given: Bool, taker: String)] = [
                (localNamesOption, namesOnly, "list"), (WriteOption.allowEmpty, allowEmpty, "create"),
                (WriteOption.localYes, yes, "delete"),
            ]
            for (option, given, taker) in onlyFor where given && !Self.takes(self.action, taker) {
                throw ToolError.usage("--\(option.long) is for local \(taker), not local \(action)")
            }
        }

        /// Whether `action` is the one called `name` (the one that takes an option).
        static func takes(_ action: Action, _ name: String) -> Bool {
            switch (action, name) {
            case (.list, "list"), (.create, "create"), (.delete, "delete"): true
            default: false
            }
        }
    }

    static func local(_ options: LocalOptions, _ context: ToolContext) async throws -> ExitCode {
        let mode = context.outputMode(forcedJSON: options.json)
        let store = LocalPlaylistLibrary.store(context.environment)
        switch options.action {
        case .list:
            let playlists = try store.read()?.playlists ?? []
            if options.namesOnly {
                for playlist in playlists { try context.stdout.writeText(TerminalText.clean(playlist.name) + "\n") }
            } else {
                try writeLocalList(playlists, context, mode: mode)
            }
        case .show(let name):
            guard let library = try store.read(), let index = library.index(of: name) else { throw missing(name) }
            try showLocal(library.playlists[index], context, human: mode == .human)
        case .create(let name), .add(let name):
            return try localAdd(to: name, creating: options.action == .create(name), options, store, context, mode)
        case .rename(let old, let new):
            let playlist = try store.update { library -> LocalPlaylist in
                guard let index = library.index(of: old) else { throw missing(old) }
                if let other = library.index(of: new), other != index {
                    throw ToolError.dataError(
                        "a local playlist called '\(library.playlists[other].name)' already exists")
                }
                library.playlists[index].name = new
                library.playlists[index].updatedAt = timestamp(context)
                return library.playlists[index]
            }
            try writeLocalList([playlist], context, mode: mode)
        case .delete(let name):
            return try localDelete(name, yes: options.yes, store, context)
        }
        return .success
    }

    /// local create and local add: the track records on standard input, as a new local playlist
    /// or at the end of one.
    static func localAdd(
        to name: String, creating: Bool, _ options: LocalOptions, _ store: DocumentStore<LocalPlaylistLibrary>,
        _ context: ToolContext, _ mode: OutputMode
    ) throws -> ExitCode {
        let action = creating ? "create" : "add"
        if context.terminal.stdinIsTerminal {
            throw ToolError.usage(
                """
                local \(action) reads track records on standard input; pipe them in: spotify-tracks PLAYLIST | \
                spotify-playlists local \(action) NAME
                """
            )
        }
        let records = try readTrackRecords(context.stdin)
        if records.isEmpty && creating && context.stdin.carriesData && !options.allowEmpty {
            // An empty pipe is a pipeline that went wrong upstream, not a wish for an empty playlist.
            context.warn(
                """
                no track records on standard input: did the filter before local create match anything? Nothing \
                was created; add --allow-empty to make an empty local playlist
                """
            )
            return .notFound
        }
        let now = timestamp(context)
        let playlist = try store.update { library -> LocalPlaylist in
            if creating {
                if let index = library.index(of: name) {
                    throw ToolError.dataError(
                        """
                        a local playlist called '\(library.playlists[index].name)' already exists; add to it with \
                        'local add' or pick another name
                        """
                    )
                }
                library.playlists.append(LocalPlaylist(name: name, createdAt: now, updatedAt: now, tracks: records))
                return library.playlists[library.playlists.count - 1]
            }
            guard let index = library.index(of: name) else { throw missing(name) }
            library.playlists[index].tracks += records
            library.playlists[index].updatedAt = now
            return library.playlists[index]
        }
        try writeLocalList([playlist], context, mode: mode)
        return .success
    }

    /// local delete, once confirmed.
    static func localDelete(
        _ name: String, yes: Bool, _ store: DocumentStore<LocalPlaylistLibrary>, _ context: ToolContext
    ) throws -> ExitCode {
        guard let library = try store.read(), let index = library.index(of: name) else { throw missing(name) }
        let asked = library.playlists[index]
        guard
            context.confirmed(
                """
                delete local playlist '\(asked.name)' (\(countText(asked.tracks.count)))? It is kept only on this \
                machine and cannot be brought back.
                """,
                skipQuestion: yes)
        else {
            context.warn("kept local playlist '\(asked.name)'; nothing was deleted")
            return .notFound
        }
        let removed = try store.update { library -> LocalPlaylist in
            guard let index = library.index(of: name) else { throw missing(name) }
            return library.playlists.remove(at: index)
        }
        context.warn("deleted local playlist '\(removed.name)' (\(countText(removed.tracks.count)))")
        return .success
    }

    static func missing(_ name: String) -> ToolError {
        ToolError(.notFound, "no local playlist called '\(name)'; 'spotify-playlists local list' shows them")
    }

    static func timestamp(_ context: ToolContext) -> String {
        isoSecondsTimestamp(context.now)
    }

    /// Standard input's records, each checked to be a JSON object with a uri and kept compact.
    static func readTrackRecords(_ input: StandardInput) throws -> [String] {
        var records: [String] = []
        try input.forEachObject { value in
            guard value["uri"]?.stringValue != nil else { throw StandardInput.Rejection("not a track record (no uri)") }
            records.append(value.serialized())
        }
        return records
    }

    /// The `local_playlist` record: type, name, items_total, duration_ms (of the records that have
    /// one), created_at, updated_at; on a terminal a row of its name, items, duration and when it
    /// last changed.
    struct LocalPlaylistRecord: TableRecord {
        let name: String
        let itemsTotal: Int
        let durationMs: Int
        let createdAt: String
        let updatedAt: String
        /// The zone the row shows updated_at in.
        let timeZone: LocalZone

        static let columns: [TextTable.Column] = [
            .flexible("NAME"), .fixed("ITEMS", width: 6, alignment: .right),
            .fixed("DURATION", width: 9, alignment: .right), .fixed("UPDATED", width: 16),
        ]

        init(_ playlist: LocalPlaylist, timeZone: LocalZone) {
            (name, itemsTotal, durationMs) = (playlist.name, playlist.tracks.count, playlist.durationMs)
            (createdAt, updatedAt, self.timeZone) = (playlist.createdAt, playlist.updatedAt, timeZone)
        }

        var json: JSONValue {
            [
                "type": "local_playlist", "name": .string(name), "items_total": .int(itemsTotal),
                "duration_ms": .int(durationMs), "created_at": .string(createdAt), "updated_at": .string(updatedAt),
            ]
        }

        var cells: [String] {
            [
                name, groupedThousands(itemsTotal), formatClock(milliseconds: durationMs),
                LocalTime.text(updatedAt, "yyyy-MM-dd HH:mm", in: timeZone),
            ]
        }
    }

    static func writeLocalList(_ playlists: [LocalPlaylist], _ context: ToolContext, mode: OutputMode) throws {
        var printer = RecordPrinter<LocalPlaylistRecord>(context, mode: mode, columns: LocalPlaylistRecord.columns)
        // The header even over no rows: `local list` with none says what it would show.
        if mode == .human { _ = try printer.startedTable() }
        for playlist in playlists { try printer.write(LocalPlaylistRecord(playlist, timeZone: context.timeZone)) }
    }

    static func showLocal(_ playlist: LocalPlaylist, _ context: ToolContext, human: Bool) throws {
        guard human else {
            for line in playlist.tracks { try context.stdout.writeText(line + "\n") }
            return
        }
        var table = try TrackTable(context, total: playlist.tracks.count, title: playlist.name)
        for (position, line) in playlist.tracks.enumerated() {
            guard let record = (try? JSONValue.parse(line))?.objectValue else { continue }
            try table.write(TrackRow(reading: record, position: position))
        }
        try table.finish()
    }
}
