import HTTPClient
import ToolkitCore

/// A playlist's entries as they are now, read whole and proven whole: a write is planned against
/// it, a lost answer settled by it, and what an interrupted write left is said from it. Never from
/// the cache: a write needs what Spotify holds.
package struct PlaylistContents: Sendable {
    package var id: String
    /// The snapshot_id the entries belong to (the same before and after they were read).
    package var snapshot: String?
    /// Spotify's entry objects, in order.
    package var entries: [JSONValue]

    /// What each entry can be written back as: its URI, or nil for one the Web API cannot add
    /// (a local file, an item Spotify no longer makes available).
    package var writableURIs: [String?] { entries.map(Self.writableURI) }

    package var count: Int { entries.count }

    package static func writableURI(_ entry: JSONValue) -> String? {
        switch PlaylistEntry.kind(of: entry) {
        case .track, .episode: PlaylistEntry.item(of: entry)?["uri"]?.stringValue
        case .local, .unavailable: nil
        }
    }

    /// The fields a write needs of each entry: what it is and its URI; and its date and adder, so
    /// the playlist a write leaves is kept as a version (`PlaylistVersions`).
    static let uriFields =
        "total,offset,items(added_at,added_by(id),is_local,item(type,uri,is_local),track(type,uri,is_local))"

    /// Reads every entry of playlist `id`. `fields`: the entries' `fields` filter (the default is
    /// what track records need). The read is proven whole against the playlist's snapshot_id: a
    /// playlist of up to 100 entries comes in the one answer that names it (no other request); a
    /// longer one is checked once after its last page (the reader's own check, then the total).
    /// When another client changed it meanwhile it is read again, and after `attempts` such reads
    /// the change is reported (75: try again), so nothing is ever planned against a torn read.
    package static func read(
        _ id: String, writer: PlaylistWriter, fields: String = PlaylistEntry.itemFields, attempts: Int = 3
    ) async throws -> PlaylistContents {
        let reference = SpotifyReference(kind: .playlist, id: id)
        for _ in 1...attempts {
            var collector = Collector(id: id)
            let reader = PlaylistItemsReader(
                mode: .bypass, cache: nil, pager: Pager(api: writer.api), warn: { _ in })
            try await reader.read(
                [PlaylistItemsReader.Selector(reference: reference, snapshot: nil)], wanted: .records,
                uncachedFields: fields, into: &collector)
            if let failure = collector.failure { throw failure }
            guard !collector.changed, collector.total == collector.entries.count else { continue }
            // One answer, the object's: its snapshot_id and every entry came together.
            if collector.pages == 1, collector.fromObject, let snapshot = collector.snapshot {
                return PlaylistContents(id: id, snapshot: snapshot, entries: collector.entries)
            }
            let after = try await writer.state(of: id)
            if after.snapshot == collector.snapshot, after.total == collector.entries.count {
                return PlaylistContents(id: id, snapshot: after.snapshot, entries: collector.entries)
            }
        }
        throw ToolError.tempFail(
            """
            playlist \(id) kept changing while it was read (\(attempts) tries): someone else is editing it; nothing \
            was written; try again
            """
        )
    }

    struct Collector: PlaylistReadHandler {
        let id: String
        var entries: [JSONValue] = []
        var changed = false
        var failure: ToolError?
        /// The playlist object's snapshot_id and total, from the first page (which carries the object).
        var snapshot: String?
        var total: Int?
        var pages = 0
        /// The first page was the object's embedded one (so its snapshot_id and entries are one answer).
        var fromObject = false

        mutating func page(_ page: Page, playlist index: Int) throws {
            if pages == 0 {
                snapshot = page.source?["snapshot_id"]?.stringValue
                total = page.total
                fromObject = page.source != nil && page.offset == 0 && page.items.count == page.total
            }
            pages += 1
            entries += page.items
        }
        mutating func totalChanged(playlist index: Int, was: Int, now: Int) { changed = true }
        mutating func editedWhileRead(playlist index: Int) { changed = true }
        mutating func finished(playlist index: Int, _ result: PlaylistItemsReader.Result) throws {
            switch result {
            case .delivered: break
            case .refused(let result):
                failure = .playlistItemsRefused(id, result, shows: "the items, and lets you change them,")
            case .failed(let error): failure = error
            }
        }
    }
}

extension ToolError {
    /// Spotify refused to list playlist `id`'s items (`result`, a 403 or 404): not found, or not
    /// the user's, as Spotify shows `what` only of playlists the user owns or collaborates on.
    static func playlistItemsRefused(_ id: String, _ result: HTTPResult, shows what: String) -> ToolError {
        let body = SpotifyErrorBody(result)
        return result.status == 404
            ? ToolError(.notFound, "playlist \(id): not found (404: \(body.message))")
            : ToolError.noPermission(
                """
                playlist \(id): Spotify shows \(what) only of playlists you own or collaborate on (\(result.status): \
                \(body.message))
                """
            )
    }
}
