import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// A playlist's history: every version a read or a write of ours met (`PlaylistVersions`),
/// listed (`history`), compared (`diff`) and put back (`restore`, through the one destructive
/// path `applyEdit`).
extension SpotifyPlaylists {
    static let versionsNote =
        """
        Every version of a playlist that this toolkit meets is kept: each spotify-tracks read (or get --duration) \
        that fetches a version it had not seen, and each version a replace, remove, dedupe, sort, rewrite, undo or \
        restore reads or leaves (add and create keep none; the next read does). A version keeps its items in order, \
        each with its date added and who added it.
        """

    static let versionsBound =
        """
        Kept under $XDG_DATA_HOME/spotify-toolkit/playlist-versions/ (default ~/.local/share; history is your data, \
        not cache: logging out keeps it): at most \(PlaylistVersions.defaultMaxVersions) versions and \
        \(PlaylistVersions.defaultMaxBytes >> 20) MiB per playlist, and SPOTIFY_TOOLKIT_HISTORY_SIZE (default \
        \(PlaylistVersions.defaultMaxTotalBytes >> 20)M) in all, the oldest versions going first. Versions share \
        their storage: an item kept by many versions is stored once.
        """

    static let versionArgumentHelp =
        "A version: its snapshot_id (as history prints it), or the start of one that names only it."

    static let historyCommands: [CommandSpec] = [
        CommandSpec(
            name: "history",
            abstract: "list the versions of a playlist this toolkit has met, newest first",
            discussion: [
                """
                Prints one playlist_version record per version kept, newest first: what the playlist held and when it \
                was first seen, and whether a read or one of our writes met it; on a terminal, a table. \
                \(versionsNote) Spotify keeps no history of its own: a version nobody read here is not known.
                """,
                versionsBound,
            ],
            arguments: [historyTarget],
            options: [PlaylistCommands.jsonOption],
            examples: [
                ExampleSpec("spotify-playlists history Morning", "Every version of Morning kept, as a table."),
                ExampleSpec(
                    "spotify-playlists history Morning | jq -r 'select(.seen_at >= \"2026-11-21\") | .snapshot_id'",
                    "The versions of the last week."),
            ]
        ).running(history),
        CommandSpec(
            name: "diff",
            abstract: "print the changes that turn one version of a playlist into another",
            discussion: [
                """
                Prints the change records that turn version FROM into version TO, the same that replace --dry-run \
                prints (remove, move, add with its position), each with entries: every entry it touches, with its \
                uri, position, added_at and added_by (who added it and when: a removed entry as FROM held it, an \
                added one as TO holds it). Without FROM and TO it compares the two latest versions kept; without TO, \
                FROM with the latest. now is the playlist as it is (one read, which is kept as a version too). \
                Nothing printed: the two hold the same items in the same order.
                """,
                versionsNote,
            ],
            arguments: [
                historyTarget,
                ArgumentSpec("FROM", help: versionArgumentHelp + " Or now.", optional: true),
                ArgumentSpec("TO", help: versionArgumentHelp + " Or now.", optional: true),
            ],
            options: [PlaylistCommands.jsonOption],
            examples: [
                ExampleSpec("spotify-playlists diff Shared", "What changed between the two latest versions kept."),
                ExampleSpec(
                    "spotify-playlists diff Shared 'AAAAB3m...' now | jq -r 'select(.action==\"remove\") | .items[]'",
                    "The items removed since that version."),
            ]
        ).running(diff),
        CommandSpec(
            name: "restore",
            abstract: "make a playlist what one of its versions held, keeping every date it can",
            discussion: [
                """
                Makes the playlist hold the items of version SNAPSHOT (see history), in its order, as replace does: \
                only the difference is sent, so every item that stays keeps its date added and added by; items \
                added back get today's date (the Web API cannot set one). Local files and unavailable entries cannot \
                be added back. Before writing it says what it will do, --dry-run prints the plan as change records, \
                the playlist as it was goes to the undo journal (spotify-playlists undo puts it back), and Ctrl-C \
                stops it between requests saying what the playlist holds. A version that was never kept is an error \
                (exit 1) and changes nothing.
                """,
                versionsNote,
            ],
            arguments: [
                destructiveTarget,
                ArgumentSpec("SNAPSHOT", help: versionArgumentHelp),
            ],
            options: [
                EditOption.maxMoves, EditOption.resetDates, EditOption.dropUnavailable, WriteOption.dryRun,
                PlaylistCommands.jsonOption,
            ],
            examples: [
                ExampleSpec(
                    """
                    spotify-playlists restore Shared "$(spotify-playlists history Shared | jq -r 'select(.seen_at < \
                    "2026-11-28") | .snapshot_id' | head -1)"
                    """,
                    "Put back the last version kept before today.")
            ]
        ).running(restore),
    ]

    static let historyTarget = ArgumentSpec(
        "PLAYLIST",
        help:
            """
            The playlist: an id, spotify:playlist: URI, open.spotify.com URL, playlist record, or its name (exact, \
            else in any case).
            """
    )

    static let versionRecordDescription =
        """
        history prints playlist_version records: type ("playlist_version"), playlist (its id), snapshot_id, seen_at \
        (when it was first met, UTC), items_total, met_by ("read", or the write of ours that left it: replace, remove, \
        dedupe, sort, rewrite, undo, restore). diff prints change records, each with entries [{uri, position, \
        added_at, added_by}].
        """

    // MARK: Options

    struct HistoryOptions: CommandOptions {
        var json: Bool
        var playlist: String

        init(_ command: ParsedCommand) throws {
            json = try command.flag(PlaylistCommands.jsonOption)
            guard command.positionals.count == 1 else { throw ToolError.usage("history takes one PLAYLIST") }
            playlist = command.positionals[0]
        }
    }

    struct DiffOptions: CommandOptions {
        var json: Bool
        var playlist: String
        var from: String?
        var to: String?

        init(_ command: ParsedCommand) throws {
            json = try command.flag(PlaylistCommands.jsonOption)
            guard (1...3).contains(command.positionals.count) else {
                throw ToolError.usage("diff takes a PLAYLIST, and then FROM and TO (versions, or now)")
            }
            playlist = command.positionals[0]
            from = command.positionals.count > 1 ? command.positionals[1] : nil
            to = command.positionals.count > 2 ? command.positionals[2] : nil
            for text in [from, to].compactMap({ $0 }) where text.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ToolError.usage("diff: an empty version; name one by its snapshot_id (see history), or now")
            }
        }
    }

    struct RestoreOptions: CommandOptions {
        var settings: WriteSettings
        var playlist: String
        var snapshot: String

        init(_ command: ParsedCommand) throws {
            settings = try WriteSettings(command)
            guard command.positionals.count == 2 else {
                throw ToolError.usage("restore takes a PLAYLIST and the SNAPSHOT to restore (see history)")
            }
            playlist = command.positionals[0]
            snapshot = command.positionals[1].trimmingCharacters(in: .whitespaces)
            if snapshot.isEmpty || snapshot == "now" {
                throw ToolError.usage("restore needs a version kept: its snapshot_id, as history prints it")
            }
        }
    }

    // MARK: Records

    /// One version kept, as history prints it.
    struct VersionRecord: TableRecord {
        let playlist: String
        let summary: PlaylistVersionBook.Summary
        let zone: LocalZone

        var json: JSONValue {
            [
                "type": "playlist_version", "playlist": .string(playlist), "snapshot_id": .string(summary.snapshotID),
                "seen_at": .string(isoTimestamp(summary.seenAt)), "items_total": .int(summary.itemsTotal),
                "met_by": .string(summary.metBy),
            ]
        }

        var cells: [String] {
            [
                LocalTime.text(isoTimestamp(summary.seenAt), "yyyy-MM-dd HH:mm:ss", in: zone),
                groupedThousands(summary.itemsTotal), summary.metBy, summary.snapshotID,
            ]
        }

        static let columns: [TextTable.Column] = [
            .fixed("SEEN", width: 19), .fixed("ITEMS", width: 6, alignment: .right), .fixed("MET BY", width: 8),
            .flexible("SNAPSHOT_ID", weight: 1),
        ]
    }

    // MARK: Handlers

    static func versionStore(_ context: ToolContext) throws -> PlaylistVersions {
        try PlaylistVersions(environment: context.environment, clock: context.clock)
    }

    /// Keeps what a read or a write of ours proved the playlist holds; a history that cannot be
    /// written is said, and never fails the command.
    static func keepVersion(_ contents: PlaylistContents, metBy: String, _ context: ToolContext) {
        guard let snapshot = contents.snapshot, !snapshot.isEmpty else { return }
        do {
            let version = PlaylistVersion(
                snapshotID: snapshot, seenAt: context.now, metBy: metBy,
                items: contents.entries.map(PlaylistVersion.Item.init(entry:)))
            try versionStore(context).record(contents.id, version, warn: context.warn)
        } catch {
            context.warn(
                "playlist \(contents.id): version not kept: \((error as? ToolError)?.message ?? "\(error)")")
        }
    }

    static func history(_ options: HistoryOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await PlaylistNames.reference(options.playlist, context, exact: false)
        let book = try versionStore(context).book(playlist.id)
        guard book.count > 0 else {
            context.warn(noVersions(playlist.id))
            return .notFound
        }
        var printer = RecordPrinter<VersionRecord>(
            context, mode: context.outputMode(forcedJSON: options.json), columns: VersionRecord.columns)
        for summary in book.summaries.reversed() {
            try printer.write(VersionRecord(playlist: playlist.id, summary: summary, zone: context.timeZone))
        }
        return .success
    }

    static func noVersions(_ id: String) -> String {
        """
        no version of playlist \(id) is kept yet: a read keeps one (spotify-tracks \(id)), as does any replace, \
        remove, dedupe, sort, rewrite or undo of it
        """
    }

    static func diff(_ options: DiffOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await PlaylistNames.reference(options.playlist, context, exact: false)
        var book = try versionStore(context).book(playlist.id)
        // `now` is read first, so that the version it meets is one of those compared.
        var current: PlaylistVersion?
        if options.from == "now" || options.to == "now" {
            let contents = try await PlaylistContents.read(playlist.id, writer: try context.playlistWriter())
            keepVersion(contents, metBy: "read", context)
            current = PlaylistVersion(
                snapshotID: contents.snapshot ?? "", seenAt: context.now, metBy: "read",
                items: contents.entries.map(PlaylistVersion.Item.init(entry:)))
            book = (try? versionStore(context).book(playlist.id)) ?? book
        }
        func version(_ text: String) throws -> PlaylistVersion {
            if text == "now", let current { return current }
            let summary = try VersionChoice.find(text, in: book, playlist: playlist.id)
            guard let version = book.version(summary.snapshotID) else {
                throw ToolError.software("version \(summary.snapshotID) of playlist \(playlist.id) vanished")
            }
            return version
        }
        let from: PlaylistVersion
        let to: PlaylistVersion
        switch (options.from, options.to) {
        case (nil, _):
            let summaries = book.summaries
            guard summaries.count >= 2 else {
                throw ToolError(
                    .notFound,
                    summaries.isEmpty
                        ? noVersions(playlist.id)
                        : """
                        only one version of playlist \(playlist.id) is kept (\(summaries[0].snapshotID)); compare it \
                        with the playlist as it is: spotify-playlists diff \(playlist.id) \(summaries[0].snapshotID) now
                        """
                )
            }
            from = try version(summaries[summaries.count - 2].snapshotID)
            to = try version(summaries[summaries.count - 1].snapshotID)
        case (let fromText?, let toText):
            from = try version(fromText)
            guard let toText else {
                guard let latest = book.summaries.last else { throw ToolError(.notFound, noVersions(playlist.id)) }
                to = try version(latest.snapshotID)
                break
            }
            to = try version(toText)
        }
        let changes = VersionDiff.changes(from: from.items, to: to.items)
        let summary = VersionDiff.summary(changes, from: from.items.count, to: to.items.count)
        context.warn("playlist \(playlist.id): \(from.snapshotID) → \(to.snapshotID): \(summary)")
        for change in changes {
            try context.stdout.write(
                ChangeRecord(
                    change.step.action, playlist: playlist.id, change.step.carried,
                    entries: change.entries.map(\.json)))
        }
        return .success
    }

    static func restore(_ options: RestoreOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        let book = try versionStore(context).book(playlist.id)
        let summary = try VersionChoice.find(options.snapshot, in: book, playlist: playlist.id)
        guard let version = book.version(summary.snapshotID) else {
            throw ToolError.software("version \(summary.snapshotID) of playlist \(playlist.id) vanished")
        }
        let seen = LocalTime.text(isoTimestamp(summary.seenAt), "yyyy-MM-dd HH:mm", in: context.timeZone)
        return try await applyEdit("restore", to: playlist, settings: options.settings, context: context) { contents in
            context.warn(
                """
                restoring playlist \(playlist.id) to version \(summary.snapshotID) (seen \(seen), \
                \(countText(summary.itemsTotal)))
                """
            )
            let wanted = version.items.compactMap(VersionDiff.writableURI)
            let pinnedNow = contents.writableURIs.count { $0 == nil }
            let gone = version.items.count - wanted.count - pinnedNow
            if gone > 0 {
                let entries = countText(
                    gone, noun: "local file or unavailable entry", plural: "local files or unavailable entries")
                context.warn("\(entries) of that version cannot come back: the Web API cannot add them")
            }
            return wanted
        }
    }
}

/// Which kept version a command-line word names. Pure.
enum VersionChoice {
    /// Its exact snapshot_id, else the one version whose snapshot_id begins with `text`.
    static func find(
        _ text: String, in book: PlaylistVersionBook, playlist: String
    ) throws -> PlaylistVersionBook.Summary {
        let text = text.trimmingCharacters(in: .whitespaces)
        let summaries = book.summaries
        if let exact = summaries.last(where: { $0.snapshotID == text }) { return exact }
        let matches = text.count >= 4 ? summaries.filter { $0.snapshotID.hasPrefix(text) } : []
        if matches.count == 1 { return matches[0] }
        let shown = TerminalText.clean(String(text.prefix(120)))
        if matches.count > 1 {
            throw ToolError.usage(
                """
                '\(shown)' begins \(matches.count) versions of playlist \(playlist) \
                (\(matches.map(\.snapshotID).joined(separator: ", "))); give more of its snapshot_id
                """
            )
        }
        throw ToolError(
            .notFound,
            """
            playlist \(playlist) has no version '\(shown)' kept (\(summaries.count) kept: spotify-playlists history \
            \(playlist)); nothing was changed
            """
        )
    }
}

/// The change records between two versions: `PlaylistEditPlan`'s steps from one to the other,
/// each with the entries it touches (who added them and when). Pure.
enum VersionDiff {
    struct Entry: Equatable {
        var item: PlaylistVersion.Item
        /// Where it is when the step is carried out (removes and moves: before it; adds: after).
        var position: Int

        var json: JSONValue {
            [
                "uri": item.uri.map(JSONValue.string) ?? .null, "position": .int(position),
                "added_at": item.addedAt.map(JSONValue.string) ?? .null,
                "added_by": item.addedBy.map(JSONValue.string) ?? .null,
            ]
        }
    }

    struct Change: Equatable {
        var step: PlaylistEditPlan.Step
        var entries: [Entry]
    }

    /// The URI a write can send for an entry: none for a local file or an unavailable item.
    static func writableURI(_ item: PlaylistVersion.Item) -> String? {
        guard let uri = item.uri, !uri.hasPrefix("spotify:local:") else { return nil }
        return uri
    }

    static func changes(from: [PlaylistVersion.Item], to: [PlaylistVersion.Item]) -> [Change] {
        let current = from.map(writableURI)
        let wanted = to.compactMap(writableURI)
        let plan = PlaylistEditPlan(from: current, to: wanted)
        // The entries each add brings, by URI, in order: a URI's occurrences that the plan keeps
        // are its first ones (all of them removed when the plan removes it whole).
        var fromCount: [String: Int] = [:]
        for case let uri? in current { fromCount[uri, default: 0] += 1 }
        var toCount: [String: Int] = [:]
        for uri in wanted { toCount[uri, default: 0] += 1 }
        var added: [String: ArraySlice<PlaylistVersion.Item>] = [:]
        var occurrences: [String: [PlaylistVersion.Item]] = [:]
        for item in to { if let uri = writableURI(item) { occurrences[uri, default: []].append(item) } }
        for (uri, items) in occurrences {
            let have = fromCount[uri, default: 0]
            let kept = toCount[uri, default: 0] < have ? 0 : have
            added[uri] = items.dropFirst(kept)
        }
        var list = from
        var changes: [Change] = []
        for step in plan.steps {
            var entries: [Entry] = []
            switch step {
            case .remove(let uris):
                let gone = Set(uris)
                for (position, item) in list.enumerated() where writableURI(item).map(gone.contains) ?? false {
                    entries.append(Entry(item: item, position: position))
                }
            case .move(let start, _, let length):
                for offset in 0..<length { entries.append(Entry(item: list[start + offset], position: start + offset)) }
            case .insert(let uris, let position):
                for (offset, uri) in uris.enumerated() {
                    let item =
                        added[uri]?.popFirst() ?? PlaylistVersion.Item(uri: uri, addedAt: nil, addedBy: nil)
                    entries.append(Entry(item: item, position: position + offset))
                }
            case .replace:
                break  // never planned between versions
            }
            var one = PlaylistEditPlan(from: [], to: [])
            one.steps = [step]
            let inserted = entries.map(\.item)
            var next = inserted.makeIterator()
            list = one.applied(to: list, uri: writableURI) { _ in next.next()! }
            changes.append(Change(step: step, entries: entries))
        }
        return changes
    }

    /// "300 → 270 items: 30 removed, 1 moved": what the changes do, for standard error.
    static func summary(_ changes: [Change], from: Int, to: Int) -> String {
        var removed = 0
        var moved = 0
        var addedCount = 0
        for change in changes {
            switch change.step {
            case .remove: removed += change.entries.count
            case .move: moved += change.entries.count
            case .insert: addedCount += change.entries.count
            case .replace: break
            }
        }
        let sizes = "\(groupedThousands(from)) → \(SpotifyPlaylists.countText(to))"
        guard !changes.isEmpty else { return "\(sizes): the same items in the same order" }
        var parts: [String] = []
        if removed > 0 { parts.append("\(groupedThousands(removed)) removed") }
        if addedCount > 0 { parts.append("\(groupedThousands(addedCount)) added") }
        if moved > 0 { parts.append("\(groupedThousands(moved)) moved") }
        return "\(sizes): \(parts.joined(separator: ", "))"
    }
}

extension PlaylistEditPlan.Step {
    /// The change record's action and what it carries, as --dry-run prints it.
    var action: SpotifyPlaylists.ChangeRecord.Action {
        switch self {
        case .remove: .remove
        case .move: .move
        case .insert: .add
        case .replace: .replace
        }
    }

    var carried: SpotifyPlaylists.ChangeRecord.Carried {
        switch self {
        case .remove(let uris), .replace(let uris): .items(uris)
        case .insert(let uris, let position): .positioned(position, uris)
        case .move(let start, let insertBefore, let length):
            .move(start: start, insertBefore: insertBefore, length: length)
        }
    }
}
