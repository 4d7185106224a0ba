import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// spotify-playlists' writes: create, add, remove, replace, edit, delete. Each prints the
/// resulting playlist record (so `… | spotify-playlists create X | routine-link link morning`
/// works), says on stderr what it did, and with --dry-run prints the planned changes instead.
extension SpotifyPlaylists {
    enum WriteOption {
        static let dryRun = OptionSpec(
            "dry-run", short: "n",
            help: "Print the planned changes as change records and send no write request (reads may still be made).")
        static let description = OptionSpec("description", value: "TEXT", help: "The playlist's description.")
        static let name = OptionSpec("name", value: "NAME", help: "A new name for the playlist.")
        static let makePublic = OptionSpec("public", help: "Make it public (shown on your profile).")
        static let makePrivate = OptionSpec("private", help: "Make it private.")
        static let collaborative = OptionSpec(
            "collaborative", help: "Let others you share it with change it (a collaborative playlist is private).")
        static let yes = OptionSpec(
            "yes", short: "y", help: "Do not ask first (it asks only when standard input is a terminal).")
        static let localYes = OptionSpec(
            "yes", short: "y", help: "With delete: do not ask first (it asks only when standard input is a terminal).")
        static let position = OptionSpec(
            "position", value: "N", help: "Insert at this zero-based position instead of at the end.")
        // Each command's own words: `remove -h` says what --liked does for remove.
        static let liked = OptionSpec(
            "liked", short: "l",
            help:
                """
                Save the items to your Liked Songs instead of a playlist (no PLAYLIST); episodes go to Your \
                Episodes.
                """
        )
        static let unliked = OptionSpec(
            "liked", short: "l",
            help:
                """
                Remove the items from your Liked Songs instead of a playlist (no PLAYLIST); episodes from Your \
                Episodes.
                """
        )
        static let allowEmpty = OptionSpec(
            "allow-empty",
            help:
                """
                Make the playlist although a pipe or file on standard input held no items (refused otherwise, so a \
                pipeline that went wrong makes nothing).
                """
        )
        static let allowEmptyReplace = OptionSpec(
            "allow-empty",
            help:
                """
                With no items on standard input, empty the playlist (refused otherwise, so a pipeline that went wrong \
                changes nothing).
                """
        )
        static let force = OptionSpec(
            "force", short: "f",
            help:
                """
                Replace although the input was read from this playlist at another snapshot, or its items of this \
                playlist stop well short of its end (a read cut short?): the items after them are then removed.
                """
        )
    }

    /// Every action, with what its records carry, in `ChangeRecord.Action`'s own words.
    static let changeRecordDescription: String = {
        let actions = ChangeRecord.Action.allCases.map { "\($0.rawValue): \($0.carries)" }.joined(separator: "; ")
        return """
            With --dry-run, one change record per planned request instead: type ("change"), action, playlist (its \
            id; null for the one create would make, and for save and unsave), then what the request carries, by \
            action: \(actions).
            """
    }()

    static let playlistTarget = ArgumentSpec(
        "PLAYLIST",
        help:
            """
            The playlist to change: an id, spotify:playlist: URI, open.spotify.com URL, playlist record, or its name \
            (exact, else in any case).
            """
    )

    static let optionalTarget = ArgumentSpec(
        "PLAYLIST",
        help:
            """
            The playlist to change: an id, spotify:playlist: URI, open.spotify.com URL, playlist record, or its name \
            (none with --liked).
            """,
        optional: true)

    static let likedScope = SpotifyScope.Need([SpotifyScope.modifyLibrary], for: "changing your Liked Songs")

    static let writeCommands: [CommandSpec] =
        [
            CommandSpec(
                name: "create",
                abstract: "make a new playlist of the items on standard input",
                discussion: [
                    """
                    The playlist is private unless --public; the items go in, in order. When you already have a \
                    playlist of that name, it says so (names then need an id to tell them apart).
                    """,
                    """
                    An empty pipe or file on standard input (a filter upstream that matched nothing) makes nothing \
                    and exits 1, unless --allow-empty; a terminal, /dev/null or no standard input makes an empty \
                    playlist, as asked. Ctrl-C (or SIGTERM, SIGHUP) while items are added stops before the next batch \
                    and says what the playlist holds, with the command that adds the rest.
                    """,
                ],
                notes: [
                    """
                    Makes the playlist with POST /me/playlists, then adds the items in batches of 100 in order. If \
                    Spotify's answer to the creation is lost, your newest playlists are searched for it before \
                    another is made.
                    """
                ],
                arguments: [ArgumentSpec("NAME", help: "The new playlist's name.")],
                options: [
                    WriteOption.description, WriteOption.makePublic, WriteOption.collaborative, WriteOption.allowEmpty,
                    WriteOption.dryRun, PlaylistCommands.jsonOption,
                ],
                examples: [
                    ExampleSpec(
                        """
                        spotify-tracks --liked | songcount --target 15m --best-fit | spotify-playlists create \
                        'Morning 15'
                        """,
                        "A playlist of liked songs that fills fifteen minutes.")
                ]
            ).running(create).offering(PlaylistCommands.jsonOption),
            CommandSpec(
                name: "add",
                abstract:
                    "add the items on standard input to a playlist, in order, or with --liked to your Liked Songs",
                discussion: [
                    """
                    Ctrl-C (or SIGTERM, SIGHUP) stops before the next batch of 100 and says what landed, with the \
                    command that adds the rest.
                    """
                ],
                arguments: [optionalTarget],
                options: [WriteOption.position, WriteOption.liked, WriteOption.dryRun, PlaylistCommands.jsonOption],
                examples: [
                    ExampleSpec(
                        "spotify-tracks 3cEYpjA9oz9GiPac4AsH4n | spotify-playlists add 7d2D2S200NyUE5KYs80PwO",
                        "Copy one playlist's items to the end of another.")
                ]
            ).running(add),
            CommandSpec(
                name: "remove",
                abstract:
                    """
                    remove every occurrence of the items on standard input from a playlist, or with --liked from your \
                    Liked Songs
                    """,
                discussion: [
                    "Removes every occurrence of each item; the items that stay keep their dates. " + undoNote
                ],
                notes: [
                    """
                    Reads the whole playlist, then removes by URI (DELETE, 100 a request). A lost answer is simply \
                    sent again (removing is idempotent), and the result is proven by reading the playlist back.
                    """
                ],
                arguments: [optionalTarget],
                options: [WriteOption.unliked, WriteOption.dryRun, PlaylistCommands.jsonOption]
            ).running(remove),
            CommandSpec(
                name: "replace",
                abstract:
                    "make a playlist's items exactly the items on standard input, in order, keeping every date it can",
                discussion: [
                    """
                    Reads the whole playlist and sends only the difference: what is gone is removed, what is new is \
                    inserted where the input has it, and what stays is put in order with range moves, so every item \
                    that stays keeps its date added and added by. A song the input has fewer times than the playlist \
                    is removed and added back (the Web API removes every occurrence), and only those lose their \
                    dates. Before writing, standard error says what will happen (3,000 to 2,950 items: 50 removed, 12 \
                    moved, dates kept for 2,950); --dry-run prints the plan as change records. When keeping the dates \
                    would take more than --max-moves range moves, it is refused, naming --reset-dates, which writes \
                    the playlist afresh (the first 100 items replace it, the rest are appended; every date becomes now).
                    """,
                    """
                    Guards: an empty standard input is refused unless --allow-empty. Input read from this same \
                    playlist (track records name it and its snapshot_id) is refused when it was read at another \
                    snapshot_id (exit 75: it changed since, or an --offline copy is older), or when its items stop \
                    short of the playlist's end by its last page or more (50 items, or fewer when its size is not a \
                    multiple of 50: 20 of 120; a read cut short: spotify-tracks failed part-way and the pipe hid \
                    it), unless --force, which removes them; local files and unavailable entries there count as \
                    read, since spotify-tracks skips them on purpose. What remains possible: input from elsewhere \
                    that is short by mistake; undo puts it back. Local files and unavailable entries of the playlist \
                    stay where they are (the Web API can neither remove nor add them); --reset-dates drops them only \
                    with --drop-unavailable.
                    """,
                    undoNote,
                ],
                arguments: [playlistTarget],
                options: [
                    WriteOption.allowEmptyReplace, WriteOption.force, EditOption.maxMoves, EditOption.resetDates,
                    EditOption.dropUnavailable, WriteOption.dryRun, PlaylistCommands.jsonOption,
                ],
                examples: [
                    ExampleSpec(
                        "spotify-tracks --liked | songcount --target 1h --select | spotify-playlists replace 'Workout'",
                        "Make Workout the liked songs that fill an hour, keeping the dates of those it had."),
                    ExampleSpec(
                        "spotify-playlists replace --dry-run 7d2D2S200NyUE5KYs80PwO < mix.jsonl",
                        "See the requests a replace would send, and send none."),
                ]
            ).running(replace).offering(PlaylistCommands.jsonOption),
            CommandSpec(
                name: "edit",
                abstract: "change a playlist's name, description, visibility or collaboration",
                arguments: [playlistTarget],
                options: [
                    WriteOption.name, WriteOption.description, WriteOption.makePublic, WriteOption.makePrivate,
                    WriteOption.collaborative, WriteOption.dryRun, PlaylistCommands.jsonOption,
                ]
            ).running(edit),
            CommandSpec(
                name: "delete",
                abstract: "remove a playlist from your library (Spotify has no real delete)",
                discussion: [
                    """
                    Spotify never deletes a playlist: this unfollows it, so it leaves your library and profile. \
                    Anyone with its link can still open it, and following it again brings it back. The record printed \
                    is the playlist as it was.
                    """,
                    """
                    On a terminal, it asks first, naming the playlist and how many items it holds; anything but y or \
                    yes keeps it (exit 1). --yes does not ask; without a terminal on standard input (a script, a \
                    pipe) it does not ask either.
                    """,
                ],
                notes: ["Unfollows with DELETE /me/library and the playlist's URI."],
                aliases: ["rm"],
                arguments: [playlistTarget],
                options: [WriteOption.yes, WriteOption.dryRun, PlaylistCommands.jsonOption]
            ).running(delete).offering(PlaylistCommands.jsonOption),
        ] + editCommands

    // MARK: Handlers

    static func create(_ options: CreateOptions, _ context: ToolContext) async throws -> ExitCode {
        let name = options.name
        let items = context.terminal.stdinIsTerminal ? ItemInput() : try ItemInput.read(context.stdin)
        if items.uris.isEmpty && !options.allowEmpty && context.stdin.carriesData {
            if let held = items.skippedSummary {
                context.warn(
                    """
                    nothing to add: standard input held only \(held), which the Web API cannot add; nothing was \
                    created (add --allow-empty to make an empty playlist)
                    """
                )
            } else {
                context.warn(
                    """
                    no items on standard input (an empty \
                    \(DescriptorKind(context.stdin.fileDescriptor) == .pipe ? "pipe" : "file")): did the filter \
                    before create match anything? Nothing was created; add --allow-empty to make an empty playlist
                    """
                )
            }
            return .notFound
        }
        // Checked before the playlist is made, as add checks it: a playlist full at 10,000 is
        // not what was asked for, and the rest could not be added after it.
        if items.uris.count > PlaylistWriter.maxItems {
            throw ToolError.dataError(
                """
                \(groupedThousands(items.uris.count)) items would pass the \
                \(groupedThousands(PlaylistWriter.maxItems)) a playlist can hold; nothing was created
                """
            )
        }
        if options.settings.dryRun {
            var details: JSONObject = [
                "name": .string(name), "public": .bool(options.isPublic), "collaborative": .bool(options.collaborative),
            ]
            if let description = options.description { details["description"] = .string(description) }
            try context.stdout.write(ChangeRecord(.create, playlist: nil, .details(details)))
            try writeAddChanges(items.uris, playlist: nil, position: nil, context)
            context.warn(WriteCost.create(items: items.uris.count).note)
            return skipped(items, context)
        }
        let writer = try context.playlistWriter()
        let deferral = SignalDeferral.begin()
        defer { deferral.end(discarding: true) }
        let created = try await writer.create(
            name: name, description: options.description, isPublic: options.isPublic,
            collaborative: options.collaborative
        ) { existing in
            // Names then become ambiguous to every command that takes one: say so while it is news.
            context.warn(
                """
                you already have a playlist called '\(TerminalText.clean(name))' \
                (\(existing.sorted().joined(separator: ", "))); this makes another
                """
            )
        }
        guard let id = created["id"]?.stringValue else { throw ToolError.software("create: no id") }
        // The creation's answer carries the empty playlist's snapshot_id: a first batch that
        // provably did not land is then told apart.
        let start = PlaylistWriter.State(snapshot: created["snapshot_id"]?.stringValue, total: 0)
        let made = "made playlist '\(TerminalText.clean(name))' (\(id))"
        if let stopped = try await addReporting(
            items.uris, to: id, at: nil, from: start, writer: writer, context: context, made: made)
        {
            return stopped
        }
        context.warn("\(made) with \(countText(items.uris.count))")
        try await printRecord(
            of: id, writer, context, mode: options.settings.mode(context),
            expecting: items.uris.count)
        return skipped(items, context)
    }

    static func add(_ options: AddOptions, _ context: ToolContext) async throws -> ExitCode {
        guard let target = options.playlist else {
            return try await liked(save: true, dryRun: options.settings.dryRun, context)
        }
        let items = try itemsFromInput(context, action: "add")
        let position = options.position
        let playlist = try await writeTarget(target, context, exact: false)
        if options.settings.dryRun {
            try writeAddChanges(items.uris, playlist: playlist.id, position: position, context)
            context.warn(WriteCost.add(items: items.uris.count).note)
            return skipped(items, context)
        }
        guard !items.uris.isEmpty else { return nothingToDo(items, context, action: "add") }
        let writer = try context.playlistWriter()
        let before = try await writer.state(of: playlist.id)
        if let position, position > before.total {
            throw ToolError.usage(
                "--position \(position) is past the end of playlist \(playlist.id) (\(before.total) items)")
        }
        if before.total + items.uris.count > PlaylistWriter.maxItems {
            throw ToolError.dataError(
                """
                playlist \(playlist.id) holds \(groupedThousands(before.total)) items; \
                \(groupedThousands(items.uris.count)) more would pass the \
                \(groupedThousands(PlaylistWriter.maxItems)) a playlist can hold; nothing was added
                """
            )
        }
        let deferral = SignalDeferral.begin()
        defer { deferral.end(discarding: true) }
        if let stopped = try await addReporting(
            items.uris, to: playlist.id, at: position, from: before, writer: writer, context: context, made: nil)
        {
            return stopped
        }
        context.warn("added \(countText(items.uris.count)) to playlist \(playlist.id)")
        try await printRecord(
            of: playlist.id, writer, context, mode: options.settings.mode(context),
            expecting: before.total + items.uris.count, inserted: (position ?? before.total, items.uris))
        return skipped(items, context)
    }

    /// How a write that stopped part-way (an edit's steps, an add's batches) is reported: what the
    /// playlist holds now (`landed`) and the one command that finishes or undoes it (`finish`).
    /// After a signal, a warning and the signal's exit status; after a request that failed with
    /// nothing landed, that request's error. A cause only one write has, it words itself.
    struct StoppedWrite {
        var landed: String
        var finish: String

        func interrupted(by number: Int32, _ context: ToolContext) -> ExitCode {
            context.warn("interrupted: \(landed); \(finish)")
            return .answering(signal: number)
        }

        func failed(_ error: ToolError) -> ToolError {
            ToolError(error.exitCode, "\(error.message); \(landed); \(finish)")
        }
    }

    /// Adds in batches; when that stops part-way, says exactly what landed and writes the rest to
    /// a file for the command that finishes the job. nil when every batch landed.
    static func addReporting(
        _ uris: [String], to id: String, at position: Int?, from state: PlaylistWriter.State, writer: PlaylistWriter,
        context: ToolContext, made: String?
    ) async throws -> ExitCode? {
        let progress = RequestProgress(
            context, planned: (uris.count + PlaylistWriter.batchSize - 1) / PlaylistWriter.batchSize)
        do {
            _ = try await writer.add(
                uris, to: id, at: position, from: state, interruption: { SignalDeferral.pending })
            await progress.end()
            return nil
        } catch let stopped as PlaylistWriter.AddStopped {
            await progress.end()
            // Refused before anything landed (a missing scope, a playlist not yours): the error is
            // the whole story, and no recipe for the rest applies to a command that added nothing.
            if case .failed(let error) = stopped.cause, error.exitCode == .noPermission, stopped.landed == 0,
                made == nil
            {
                throw ToolError(error.exitCode, "\(error.message); nothing was added to playlist \(id)")
            }
            let rest = Array(uris.dropFirst(stopped.landed))
            let file = try unfinishedFile(rest, playlist: id, context: context)
            let landed =
                """
                \(made.map { $0 + "; " } ?? "")playlist \(id) holds \(groupedThousands(stopped.landed)) of the \
                \(countText(uris.count)) asked for
                """
            let finish =
                "add the rest with: spotify-playlists add \(id) --position \(stopped.position) < \(shellQuoted(file))"
            let report = StoppedWrite(landed: landed, finish: finish)
            switch stopped.cause {
            case .signal(let number): return report.interrupted(by: number, context)
            case .failed(let error): throw report.failed(error)
            case .unsettled(let error):
                throw ToolError(
                    error.exitCode,
                    """
                    \(error.message); \(landed), and whether the \(countText(stopped.batch)) at position \
                    \(stopped.position) landed is unknown: check with spotify-tracks \(id) before adding the rest \
                    (\(shellQuoted(file)))
                    """
                )
            }
        } catch {
            await progress.end()
            throw error
        }
    }

    static func remove(_ options: RemoveOptions, _ context: ToolContext) async throws -> ExitCode {
        guard let target = options.playlist else {
            return try await liked(save: false, dryRun: options.settings.dryRun, context)
        }
        let items = try itemsFromInput(context, action: "remove")
        let playlist = try await writeTarget(target, context, exact: true)
        if items.uris.isEmpty && !options.settings.dryRun {
            return nothingToDo(items, context, action: "remove")
        }
        let gone = Set(items.uris)
        let status = try await applyEdit("remove", to: playlist, settings: options.settings, context: context) {
            $0.writableURIs.compactMap { $0 }.filter { !gone.contains($0) }
        }
        return status == .success ? skipped(items, context) : status
    }

    static func replace(_ options: ReplaceOptions, _ context: ToolContext) async throws -> ExitCode {
        let settings = options.settings
        let items = try itemsFromInput(context, action: "replace")
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        if items.uris.isEmpty && !options.allowEmpty {
            throw ToolError.usage(
                """
                replace got no items on standard input and would empty playlist \(playlist.id); add --allow-empty to \
                mean that
                """
            )
        }
        if settings.resetDates, let note = items.skippedNote, !settings.dropUnavailable {
            // Rewriting afresh would drop them from the playlist for good.
            throw ToolError.dataError(
                """
                \(note), so replace --reset-dates would drop them from playlist \(playlist.id); nothing was changed. \
                Add --drop-unavailable, or leave out --reset-dates to keep those the playlist has
                """
            )
        }
        let status = try await applyEdit("replace", to: playlist, settings: settings, context: context) { contents in
            if !options.force {
                try ReplaceGuard.check(items, against: contents)
            }
            return items.uris
        }
        return status == .success ? skipped(items, context) : status
    }

    static func edit(_ options: EditDetailsOptions, _ context: ToolContext) async throws -> ExitCode {
        let details = options.details
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        if options.settings.dryRun {
            try context.stdout.write(ChangeRecord(.edit, playlist: playlist.id, .details(details)))
            context.warn(WriteCost.edit.note)
            return .success
        }
        let writer = try context.playlistWriter()
        // Spotify has no public collaborative playlist: refused as create refuses it, not sent.
        if details["public"] == .bool(true), details["collaborative"] == nil,
            try await currentRecord(of: playlist.id, writer).collaborative == true
        {
            throw ToolError.usage(
                """
                playlist \(playlist.id) is collaborative, and a collaborative playlist is private: --public is \
                refused, as create refuses --public with --collaborative; nothing was changed (make it \
                non-collaborative in Spotify first)
                """
            )
        }
        do {
            try await writer.changeDetails(playlist.id, details)
        } catch let refusal as PlaylistWriter.Refusal where refusal.result.status == 403 {
            // A collaborator may change the items but not the details: say which this is.
            let record = try? await currentRecord(of: playlist.id, writer)
            var error = refusal.toolError
            if record?.collaborative == true {
                error.message +=
                    """
                    ; playlist \(playlist.id) is collaborative: its collaborators can change its items, but only its \
                    owner can change its name, description and visibility
                    """
            }
            throw error
        }
        context.warn("changed \(details.keys.sorted().joined(separator: ", ")) of playlist \(playlist.id)")
        try await printRecord(of: playlist.id, writer, context, mode: options.settings.mode(context))
        return .success
    }

    static func delete(_ options: DeleteOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        if options.settings.dryRun {
            try context.stdout.write(ChangeRecord(.delete, playlist: playlist.id, .details([:])))
            context.warn(WriteCost.delete.note)
            return .success
        }
        let writer = try PlaylistWriter(api: context.webAPI())
        let record = try await currentRecord(of: playlist.id, writer)
        let name = record.name.map { "'\($0)'" } ?? playlist.id
        let items = record.itemsTotal.map { " (\(countText($0)))" } ?? ""
        guard context.confirmed("delete playlist \(name)\(items) from your library?", skipQuestion: options.yes) else {
            context.warn("kept playlist \(name) (\(playlist.id)); nothing was deleted")
            return .notFound
        }
        try await writer.unfollow(playlist.id)
        context.warn(
            """
            removed playlist \(playlist.id) from your library; Spotify has no real delete: it is unfollowed, and \
            anyone with its link can still open it
            """
        )
        var output = PlaylistOutput(context, mode: options.settings.mode(context), withDuration: false)
        try output.write(PlaylistRow(record))
        return .success
    }

    /// `add --liked` / `remove --liked`: save or unsave the items, 40 a request, in order. Prints
    /// nothing on stdout (Liked Songs has no record); stderr says how many.
    static func liked(save: Bool, dryRun: Bool, _ context: ToolContext) async throws -> ExitCode {
        let action = save ? "add" : "remove"
        let items = try itemsFromInput(context, action: "\(action) --liked")
        let uris = save ? items.uris : items.uris.uniqued()
        if dryRun {
            let batches = SavedItems.batches(uris)
            for batch in batches {
                try context.stdout.write(ChangeRecord(save ? .save : .unsave, playlist: nil, .items(batch)))
            }
            context.warn(WriteCost.liked(batches: batches.count).note)
            return skipped(items, context)
        }
        guard !uris.isEmpty else { return nothingToDo(items, context, action: action) }
        let library = try SavedItems(api: context.webAPI())
        let deferral = SignalDeferral.begin()
        defer { deferral.end(discarding: true) }
        // Episodes go to Your Episodes, not Liked Songs: the message names both.
        let episodes = uris.count { $0.hasPrefix("spotify:episode:") }
        let direction = save ? "to" : "from"
        var places: [String] = []
        if episodes == 0 {
            places.append("\(countText(uris.count)) \(direction) your Liked Songs")
        } else {
            let tracks = uris.count - episodes
            if tracks > 0 { places.append("\(countText(tracks, noun: "track")) \(direction) your Liked Songs") }
            places.append("\(countText(episodes, noun: "episode")) \(direction) Your Episodes")
        }
        if save {
            try await library.save(uris, scope: likedScope, interruption: { SignalDeferral.pending })
            context.warn("saved \(places.joined(separator: " and "))")
        } else {
            try await library.remove(uris, scope: likedScope, interruption: { SignalDeferral.pending })
            context.warn("removed \(places.joined(separator: " and "))")
        }
        return skipped(items, context)
    }

    // MARK: Shared steps

    /// The playlist a write changes: an id, URI, URL or record, or a name of one of yours
    /// (destructive writes insist on the exact name).
    static func writeTarget(_ text: String, _ context: ToolContext, exact: Bool) async throws -> SpotifyReference {
        if text.trimmingCharacters(in: .whitespaces) == "-" {
            throw ToolError.usage(
                "'-': name the PLAYLIST to change itself (its name, id, URI or URL); standard input is not read for it")
        }
        return try await PlaylistNames.reference(text, context, exact: exact)
    }

    static func itemsFromInput(_ context: ToolContext, action: String) throws -> ItemInput {
        if context.terminal.stdinIsTerminal {
            throw ToolError.usage(
                """
                \(action) reads the items on standard input; pipe them in: spotify-tracks SOURCE | spotify-playlists \
                \(action) PLAYLIST
                """
            )
        }
        return try ItemInput.read(context.stdin)
    }

    /// A change record (--dry-run): type ("change"), action, playlist (its id; null for the one
    /// create would make, and for Liked Songs), then what the request carries.
    struct ChangeRecord: JSONRecord {
        /// The request a record plans; its raw value is the record's `action`.
        enum Action: String, CaseIterable, Sendable {
            case create, add, remove, replace, move, edit, delete, save, unsave

            /// The fields after type, action and playlist, for the man page (the README's record
            /// reference says the same; `ChangeRecordDocsTests` holds both to what is printed).
            var carries: String {
                switch self {
                case .create: "name, public, collaborative, and description when one is given"
                case .add: "position (null: at the end) and items (at most 100 URIs, in order)"
                case .remove: "items (at most 100 URIs, each removed wherever it is)"
                case .replace: "items (--reset-dates: the first 100 URIs become the whole playlist)"
                case .move:
                    """
                    range_start, insert_before and range_length (the range_length items from position range_start \
                    go before the item now at insert_before, both counted before the move, and keep their dates)
                    """
                case .edit: "what it changes, of name, description, public and collaborative"
                case .delete: "nothing more"
                case .save: "items (add --liked, at most 40 URIs)"
                case .unsave: "items (remove --liked, at most 40 URIs)"
                }
            }
        }

        enum Carried: Sendable {
            /// create's and edit's details, in the order the request sends them (delete: none).
            case details(JSONObject)
            case items([String])
            /// position (null: at the end), then items.
            case positioned(Int?, [String])
            case move(start: Int, insertBefore: Int, length: Int)
        }

        let action: Action
        let playlist: String?
        let carried: Carried
        /// diff's: each entry the change touches, {uri, position, added_at, added_by}, last.
        var entries: [JSONValue]?

        init(_ action: Action, playlist: String?, _ carried: Carried, entries: [JSONValue]? = nil) {
            (self.action, self.playlist, self.carried, self.entries) = (action, playlist, carried, entries)
        }

        var json: JSONValue {
            var record: JSONObject = [
                "type": "change", "action": .string(action.rawValue),
                "playlist": playlist.map(JSONValue.string) ?? .null,
            ]
            switch carried {
            case .details(let details):
                for (key, value) in details { record[key] = value }
            case .items(let uris):
                record["items"] = .array(uris.map(JSONValue.string))
            case .positioned(let position, let uris):
                record["position"] = position.map(JSONValue.int) ?? .null
                record["items"] = .array(uris.map(JSONValue.string))
            case .move(let start, let insertBefore, let length):
                record["range_start"] = .int(start)
                record["insert_before"] = .int(insertBefore)
                record["range_length"] = .int(length)
            }
            if let entries { record["entries"] = .array(entries) }
            return .object(record)
        }
    }

    static func writeAddChanges(_ uris: [String], playlist: String?, position: Int?, _ context: ToolContext) throws {
        var at = position
        for batch in uris.chunked(PlaylistWriter.batchSize) {
            try context.stdout.write(ChangeRecord(.add, playlist: playlist, .positioned(at, batch)))
            at = at.map { $0 + batch.count }
        }
    }

    static func countText(_ count: Int, noun: String = "item", plural: String? = nil) -> String {
        "\(groupedThousands(count)) \(count == 1 ? noun : plural ?? noun + "s")"
    }

    /// Prints the playlist record after the write: its new snapshot_id and items_total. When the
    /// total is not what the write should have left (`expecting`), says so and fails: a request
    /// whose answer was lost before its first byte can be sent again by the HTTP layer itself
    /// (libcurl does that on a reused connection), so a batch may have landed twice.
    static func printRecord(
        of id: String, _ writer: PlaylistWriter, _ context: ToolContext, mode: OutputMode,
        expecting total: Int? = nil, inserted: (position: Int, uris: [String])? = nil
    ) async throws {
        let record = try await currentRecord(of: id, writer)
        var output = PlaylistOutput(context, mode: mode, withDuration: false)
        try output.write(PlaylistRow(record))
        if let total, let now = record.itemsTotal, now != total {
            throw ToolError.tempFail(
                """
                playlist \(id) now holds \(groupedThousands(now)) items, not the \(groupedThousands(total)) this \
                write should have left: someone changed it meanwhile, or an answer was lost and the request sent \
                again, so a batch may have landed twice; check it with spotify-tracks \(id)
                """
            )
        }
        // Batches are separate requests: another client's edit between two of them can split or
        // reorder what was added. One batch cannot be split.
        if let inserted, inserted.uris.count > PlaylistWriter.batchSize {
            let range = inserted.position..<inserted.position + inserted.uris.count
            let now = try await writer.uris(of: id, in: range)
            if now != inserted.uris.map(Optional.some) {
                throw ToolError.tempFail(
                    """
                    playlist \(id) changed while items were being added: the \(countText(inserted.uris.count)) are \
                    not all in order at positions \(range.lowerBound) to \(range.upperBound - 1); check it with \
                    spotify-tracks \(id)
                    """
                )
            }
        }
    }

    /// The playlist's record as it is now.
    static func currentRecord(of id: String, _ writer: PlaylistWriter) async throws -> PlaylistRecord {
        switch try await fetchRecord(of: id, api: writer.api) {
        case .value(let record): return record
        // No status passes: a refusal is thrown, never returned.
        case .refused(let result): throw ToolError.software("GET /playlists/\(id) answered \(result.status)")
        }
    }

    /// Skipped items are said, and make the status 1: not everything asked for was written.
    static func skipped(_ items: ItemInput, _ context: ToolContext) -> ExitCode {
        guard let note = items.skippedNote else { return .success }
        context.warn(note)
        return .notFound
    }

    /// Nothing the Web API can write: say what standard input held instead, and why none of it is
    /// an item ("no items" after one local file read as a lie).
    static func nothingToDo(_ items: ItemInput, _ context: ToolContext, action: String) -> ExitCode {
        if let held = items.skippedSummary {
            context.warn(
                """
                nothing to \(action): standard input held only \(held), which the Web API cannot \(action); nothing \
                was changed
                """
            )
        } else {
            context.warn("no items on standard input: nothing to \(action)")
        }
        return .notFound
    }
}
