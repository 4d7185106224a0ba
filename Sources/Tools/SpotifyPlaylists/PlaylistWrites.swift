import Foundation
import HTTPClient
import SpotifyClient
import ToolkitCLI
import ToolkitCore

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
        static let position = OptionSpec(
            "position", value: "N", help: "Insert at this zero-based position instead of at the end.")
        static let liked = OptionSpec(
            "liked", short: "l",
            help: "add: save the items to your Liked Songs; remove: remove them from it (40 a request). No PLAYLIST.")
        static let allowEmpty = OptionSpec(
            "allow-empty", help: "replace: with no items on standard input, empty the playlist (refused otherwise).")
    }

    static let changeRecordDescription =
        "With --dry-run, one change record per planned request instead: type (\"change\"), action (create, add, replace, remove, edit, delete, save, unsave), playlist (its id; null for the one create would make), and what the request carries: position and items (at most 100 URIs, in order), or the details (name, description, public, collaborative)."

    static let playlistTarget = ArgumentSpec(
        "PLAYLIST",
        help: "The playlist to change: an id, spotify:playlist: URI, open.spotify.com URL or playlist record.")

    static let optionalTarget = ArgumentSpec(
        "PLAYLIST",
        help:
            "The playlist to change: an id, spotify:playlist: URI, open.spotify.com URL or playlist record (none with --liked).",
        optional: true)

    static let likedScope = SpotifyScope.Need([SpotifyScope.modifyLibrary], for: "changing your Liked Songs")

    static let writeCommands: [CommandSpec] = [
        CommandSpec(
            name: "create",
            abstract: "make a new playlist of the items on standard input (none: an empty one)",
            discussion: [
                "Makes the playlist with POST /me/playlists (private unless --public), then adds the items in batches of 100 in order. If Spotify's answer to the creation is lost, your newest playlists are searched for it before another is made."
            ],
            arguments: [ArgumentSpec("NAME", help: "The new playlist's name.")],
            options: [
                WriteOption.description, WriteOption.makePublic, WriteOption.collaborative, WriteOption.dryRun,
                PlaylistCommands.jsonOption,
            ],
            examples: [
                ExampleSpec(
                    "spotify-tracks --liked | songcount --target 15m --best-fit | spotify-playlists create 'Morning 15'",
                    "A playlist of liked songs that fills fifteen minutes.")
            ]
        ).running(handler(create)),
        CommandSpec(
            name: "add",
            abstract: "add the items on standard input to a playlist, in order, or with --liked to your Liked Songs",
            arguments: [optionalTarget],
            options: [WriteOption.position, WriteOption.liked, WriteOption.dryRun, PlaylistCommands.jsonOption],
            examples: [
                ExampleSpec(
                    "spotify-tracks 3cEYpjA9oz9GiPac4AsH4n | spotify-playlists add 7d2D2S200NyUE5KYs80PwO",
                    "Copy one playlist's items to the end of another.")
            ]
        ).running(handler(add)),
        CommandSpec(
            name: "remove",
            abstract:
                "remove every occurrence of the items on standard input from a playlist, or with --liked from your Liked Songs",
            arguments: [optionalTarget],
            options: [WriteOption.liked, WriteOption.dryRun, PlaylistCommands.jsonOption]
        ).running(handler(remove)),
        CommandSpec(
            name: "replace",
            abstract: "make a playlist's items exactly the items on standard input, in order",
            discussion: [
                "The first 100 items replace the playlist's (PUT), the rest are appended in batches of 100. An empty standard input is refused unless --allow-empty, so a pipeline that went wrong never empties a playlist; so is one with local files or unavailable items (exit 65), which the Web API cannot write back."
            ],
            arguments: [playlistTarget],
            options: [WriteOption.allowEmpty, WriteOption.dryRun, PlaylistCommands.jsonOption],
            examples: [
                ExampleSpec(
                    "spotify-tracks ID | jq -c 'select(.uri != null)' | jq -sc 'unique_by(.uri) | sort_by(.position) | .[]' | spotify-playlists replace ID",
                    "Dedupe a playlist, keeping each item's first place.")
            ]
        ).running(handler(replace)),
        CommandSpec(
            name: "edit",
            abstract: "change a playlist's name, description, visibility or collaboration",
            arguments: [playlistTarget],
            options: [
                WriteOption.name, WriteOption.description, WriteOption.makePublic, WriteOption.makePrivate,
                WriteOption.collaborative, WriteOption.dryRun, PlaylistCommands.jsonOption,
            ]
        ).running(handler(edit)),
        CommandSpec(
            name: "delete",
            abstract: "remove a playlist from your library (Spotify has no real delete)",
            discussion: [
                "Spotify never deletes a playlist: this unfollows it (DELETE /me/library with its URI), so it leaves your library and profile. Anyone with its link can still open it, and following it again brings it back. The record printed is the playlist as it was."
            ],
            arguments: [playlistTarget],
            options: [WriteOption.dryRun, PlaylistCommands.jsonOption]
        ).running(handler(delete)),
    ]

    // MARK: Handlers

    static func create(_ command: ParsedCommand, _ context: ToolContext, human: Bool) async throws -> ExitCode {
        guard let name = command.positionals.first, command.positionals.count == 1, !name.isEmpty else {
            throw ToolError.usage("create takes one NAME")
        }
        let collaborative = command.flag(WriteOption.collaborative)
        let isPublic = command.flag(WriteOption.makePublic)
        if collaborative && isPublic {
            throw ToolError.usage(
                "a collaborative playlist is private: --public and --collaborative do not go together")
        }
        let items = context.terminal.stdinIsTerminal ? ItemInput() : try ItemInput.read(context.stdin)
        let description = command.value(WriteOption.description)
        if command.flag(WriteOption.dryRun) {
            var details: JSONObject = [
                "name": .string(name), "public": .bool(isPublic), "collaborative": .bool(collaborative),
            ]
            if let description { details["description"] = .string(description) }
            try context.stdout.write(.object(change("create", playlist: nil, details)))
            try writeAddChanges(items.uris, playlist: nil, position: nil, context)
            return skipped(items, context)
        }
        let writer = try PlaylistWriter(api: context.webAPI())
        let created = try await writer.create(
            name: name, description: description, isPublic: isPublic, collaborative: collaborative)
        guard let id = created["id"]?.stringValue else { throw ToolError.software("create: no id") }
        var done = 0
        do {
            _ = try await writer.add(items.uris, to: id, at: nil, from: .init(snapshot: nil, total: 0)) { done = $0 }
        } catch {
            throw partly(error, "made playlist '\(name)' (\(id)) and added \(done) of \(items.uris.count) items")
        }
        context.warn("made playlist '\(TerminalText.clean(name))' (\(id)) with \(countText(items.uris.count))")
        try await printRecord(of: id, writer, context, human: human, expecting: items.uris.count)
        return skipped(items, context)
    }

    static func add(_ command: ParsedCommand, _ context: ToolContext, human: Bool) async throws -> ExitCode {
        if command.flag(WriteOption.liked) { return try await liked(save: true, command, context) }
        let playlist = try target(command)
        let items = try itemsFromInput(context, action: "add")
        let position = try command.value(WriteOption.position).map { text -> Int in
            guard let value = Int(text), (0...PlaylistWriter.maxItems).contains(value) else {
                throw ToolError.usage(
                    "--position must be a whole number from 0 to \(PlaylistWriter.maxItems), not '\(text)'")
            }
            return value
        }
        if command.flag(WriteOption.dryRun) {
            try writeAddChanges(items.uris, playlist: playlist.id, position: position, context)
            return skipped(items, context)
        }
        guard !items.uris.isEmpty else { return nothingToDo(items, context) }
        let writer = try PlaylistWriter(api: context.webAPI())
        let before = try await writer.state(of: playlist.id)
        if let position, position > before.total {
            throw ToolError.usage(
                "--position \(position) is past the end of playlist \(playlist.id) (\(before.total) items)")
        }
        var done = 0
        do {
            _ = try await writer.add(items.uris, to: playlist.id, at: position, from: before) { done = $0 }
        } catch {
            throw partly(error, "added \(done) of \(items.uris.count) items to playlist \(playlist.id)")
        }
        context.warn("added \(countText(items.uris.count)) to playlist \(playlist.id)")
        try await printRecord(
            of: playlist.id, writer, context, human: human, expecting: before.total + items.uris.count)
        return skipped(items, context)
    }

    static func remove(_ command: ParsedCommand, _ context: ToolContext, human: Bool) async throws -> ExitCode {
        if command.flag(WriteOption.liked) { return try await liked(save: false, command, context) }
        let playlist = try target(command)
        let items = try itemsFromInput(context, action: "remove")
        if command.flag(WriteOption.dryRun) {
            for batch in items.uris.uniqued().chunked(PlaylistWriter.batchSize) {
                try context.stdout.write(.object(change("remove", playlist: playlist.id, ["items": uriList(batch)])))
            }
            return skipped(items, context)
        }
        guard !items.uris.isEmpty else { return nothingToDo(items, context) }
        let writer = try PlaylistWriter(api: context.webAPI())
        let before = try await writer.state(of: playlist.id)
        let after = try await writer.remove(items.uris, from: playlist.id, state: before)
        context.warn(
            "removed \(countText(before.total - after.total)) from playlist \(playlist.id) (every occurrence of \(countText(items.uris.uniqued().count, noun: "item")))"
        )
        try await printRecord(of: playlist.id, writer, context, human: human)
        return skipped(items, context)
    }

    static func replace(_ command: ParsedCommand, _ context: ToolContext, human: Bool) async throws -> ExitCode {
        let playlist = try target(command)
        let items = try itemsFromInput(context, action: "replace")
        if let note = items.skippedNote {
            // Adding them skips them; replacing would drop them from the playlist for good.
            throw ToolError.dataError(
                "\(note), so replace would drop them from playlist \(playlist.id); nothing was changed. Leave them out of the input (spotify-tracks --no-local) to mean that"
            )
        }
        if items.uris.isEmpty && !command.flag(WriteOption.allowEmpty) {
            throw ToolError.usage(
                "replace got no items on standard input and would empty playlist \(playlist.id); add --allow-empty to mean that"
            )
        }
        if command.flag(WriteOption.dryRun) {
            let first = Array(items.uris.prefix(PlaylistWriter.batchSize))
            try context.stdout.write(.object(change("replace", playlist: playlist.id, ["items": uriList(first)])))
            let rest = Array(items.uris.dropFirst(PlaylistWriter.batchSize))
            try writeAddChanges(rest, playlist: playlist.id, position: first.count, context)
            return skipped(items, context)
        }
        let writer = try PlaylistWriter(api: context.webAPI())
        let before = try await writer.state(of: playlist.id)
        var done = 0
        do {
            _ = try await writer.replace(playlist.id, with: items.uris, from: before) { done = $0 }
        } catch {
            let state =
                done == 0
                ? "playlist \(playlist.id) may still hold its \(before.total) items"
                : "playlist \(playlist.id) now holds the first \(done) of the \(items.uris.count) items"
            throw partly(error, state)
        }
        context.warn("replaced the items of playlist \(playlist.id) with \(countText(items.uris.count))")
        try await printRecord(of: playlist.id, writer, context, human: human, expecting: items.uris.count)
        return skipped(items, context)
    }

    static func edit(_ command: ParsedCommand, _ context: ToolContext, human: Bool) async throws -> ExitCode {
        let playlist = try target(command)
        var details: JSONObject = [:]
        if let name = command.value(WriteOption.name) {
            guard !name.isEmpty else { throw ToolError.usage("--name must not be empty") }
            details["name"] = .string(name)
        }
        if let description = command.value(WriteOption.description) { details["description"] = .string(description) }
        switch (command.flag(WriteOption.makePublic), command.flag(WriteOption.makePrivate)) {
        case (true, true): throw ToolError.usage("--public and --private do not go together")
        case (true, false): details["public"] = true
        case (false, true): details["public"] = false
        case (false, false): break
        }
        if command.flag(WriteOption.collaborative) {
            if details["public"] == .bool(true) {
                throw ToolError.usage(
                    "a collaborative playlist is private: --public and --collaborative do not go together")
            }
            details["collaborative"] = true
            details["public"] = false
        }
        guard !details.isEmpty else {
            throw ToolError.usage(
                "edit needs something to change: --name, --description, --public, --private or --collaborative")
        }
        if command.flag(WriteOption.dryRun) {
            try context.stdout.write(.object(change("edit", playlist: playlist.id, details)))
            return .success
        }
        let writer = try PlaylistWriter(api: context.webAPI())
        try await writer.changeDetails(playlist.id, details)
        context.warn("changed \(details.keys.joined(separator: ", ")) of playlist \(playlist.id)")
        try await printRecord(of: playlist.id, writer, context, human: human)
        return .success
    }

    static func delete(_ command: ParsedCommand, _ context: ToolContext, human: Bool) async throws -> ExitCode {
        let playlist = try target(command)
        if command.flag(WriteOption.dryRun) {
            try context.stdout.write(.object(change("delete", playlist: playlist.id, [:])))
            return .success
        }
        let writer = try PlaylistWriter(api: context.webAPI())
        let record = try await writer.record(of: playlist.id)
        try await writer.unfollow(playlist.id)
        context.warn(
            "removed playlist \(playlist.id) from your library; Spotify has no real delete: it is unfollowed, and anyone with its link can still open it"
        )
        var output = Output(context: context, human: human, withDuration: false)
        try output.write(record)
        return .success
    }

    /// `add --liked` / `remove --liked`: save or unsave the items, 40 a request, in order. Prints
    /// nothing on stdout (Liked Songs has no record); stderr says how many.
    static func liked(save: Bool, _ command: ParsedCommand, _ context: ToolContext) async throws -> ExitCode {
        let action = save ? "add" : "remove"
        guard command.positionals.isEmpty else {
            throw ToolError.usage("\(action) --liked changes your Liked Songs; it takes no PLAYLIST")
        }
        if command.value(WriteOption.position) != nil { throw ToolError.usage("--position does not go with --liked") }
        let items = try itemsFromInput(context, action: "\(action) --liked")
        let uris = save ? items.uris : items.uris.uniqued()
        if command.flag(WriteOption.dryRun) {
            for batch in SavedItems.batches(uris) {
                try context.stdout.write(
                    .object(change(save ? "save" : "unsave", playlist: nil, ["items": uriList(batch)])))
            }
            return skipped(items, context)
        }
        guard !uris.isEmpty else { return nothingToDo(items, context) }
        let library = try SavedItems(api: context.webAPI())
        if save {
            try await library.save(uris, scope: likedScope)
            context.warn("saved \(countText(uris.count)) to your Liked Songs")
        } else {
            try await library.remove(uris, scope: likedScope)
            context.warn("removed \(countText(uris.count)) from your Liked Songs")
        }
        return skipped(items, context)
    }

    // MARK: Shared steps

    static func target(_ command: ParsedCommand) throws -> SpotifyReference {
        guard command.positionals.count == 1 else {
            throw ToolError.usage("name one PLAYLIST to change (or, for add and remove, --liked for your Liked Songs)")
        }
        return try SpotifyReference.argument(command.positionals[0], expecting: .playlist)
    }

    static func itemsFromInput(_ context: ToolContext, action: String) throws -> ItemInput {
        if context.terminal.stdinIsTerminal {
            throw ToolError.usage(
                "\(action) reads the items on standard input; pipe them in: spotify-tracks SOURCE | spotify-playlists \(action) PLAYLIST"
            )
        }
        return try ItemInput.read(context.stdin)
    }

    static func change(_ action: String, playlist: String?, _ fields: JSONObject) -> JSONObject {
        var record: JSONObject = [
            "type": "change", "action": .string(action), "playlist": playlist.map(JSONValue.string) ?? .null,
        ]
        for (key, value) in fields { record[key] = value }
        return record
    }

    static func writeAddChanges(_ uris: [String], playlist: String?, position: Int?, _ context: ToolContext) throws {
        var at = position
        for batch in uris.chunked(PlaylistWriter.batchSize) {
            try context.stdout.write(
                .object(
                    change(
                        "add", playlist: playlist,
                        ["position": at.map(JSONValue.int) ?? .null, "items": uriList(batch)])))
            at = at.map { $0 + batch.count }
        }
    }

    static func uriList(_ uris: [String]) -> JSONValue { .array(uris.map(JSONValue.string)) }

    static func countText(_ count: Int, noun: String = "item") -> String {
        "\(groupedThousands(count)) \(count == 1 ? noun : noun + "s")"
    }

    /// Prints the playlist record after the write: its new snapshot_id and items_total. When the
    /// total is not what the write should have left (`expecting`), says so and fails: a request
    /// whose answer was lost before its first byte can be sent again by the HTTP layer itself
    /// (libcurl does that on a reused connection), so a batch may have landed twice.
    static func printRecord(
        of id: String, _ writer: PlaylistWriter, _ context: ToolContext, human: Bool, expecting total: Int? = nil
    ) async throws {
        let record = try await writer.record(of: id)
        var output = Output(context: context, human: human, withDuration: false)
        try output.write(record)
        if let total, let now = record["items_total"]?.intValue, now != total {
            throw ToolError.unavailable(
                "playlist \(id) now holds \(groupedThousands(now)) items, not the \(groupedThousands(total)) this write should have left: someone changed it meanwhile, or an answer was lost and the request sent again, so a batch may have landed twice; check it with spotify-tracks \(id)"
            )
        }
    }

    /// Skipped items are said, and make the status 1: not everything asked for was written.
    static func skipped(_ items: ItemInput, _ context: ToolContext) -> ExitCode {
        guard let note = items.skippedNote else { return .success }
        context.warn(note)
        return .notFound
    }

    static func nothingToDo(_ items: ItemInput, _ context: ToolContext) -> ExitCode {
        context.warn("no items on standard input: nothing to write")
        _ = skipped(items, context)
        return .notFound
    }

    /// A write that failed part-way: the message says what landed.
    static func partly(_ error: any Error, _ state: String) -> any Error {
        var tool: ToolError
        if let refusal = error as? PlaylistWriter.Refusal {
            tool = refusal.toolError
        } else if let error = error as? ToolError {
            tool = error
        } else {
            return error
        }
        tool.message += "; \(state)"
        return tool
    }
}
