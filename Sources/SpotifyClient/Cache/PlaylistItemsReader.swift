import Foundation
import HTTPClient
import LoopbackHTTP
import ToolkitCore

/// Where spotify-tracks and `spotify-playlists get --duration` get a playlist's entries: from the
/// snapshot cache when it holds the playlist's current version, else from Spotify
/// through the pager, keeping what came for the next run. Either way the caller's `body` gets the
/// same pages, so what it prints cannot differ.
package struct PlaylistItemsReader {
    /// A playlist to read, with the snapshot_id known before any request: from a piped playlist
    /// record (a hint: it may be stale), or from an answer of this run (`snapshotIsCurrent`).
    package struct Selector {
        package var reference: SpotifyReference
        package var snapshot: String?
        package var snapshotIsCurrent = false

        package init(reference: SpotifyReference, snapshot: String?, snapshotIsCurrent: Bool = false) {
            self.reference = reference
            self.snapshot = snapshot
            self.snapshotIsCurrent = snapshotIsCurrent
        }
    }

    package enum Result {
        case delivered
        /// The first page's 403 or 404, for the caller to explain.
        case refused(HTTPResult)
        /// This playlist could not be printed (offline with nothing cached); the others go on.
        case failed(ToolError)
    }

    let mode: CachePolicy.Mode
    let cache: PlaylistCache?
    /// nil offline: no request may be made (and no login is needed).
    package let pager: Pager?
    /// Notes for stderr (a damaged copy ignored, an offline copy's age, a copy not kept).
    let warn: @Sendable (String) -> Void

    package init(
        mode: CachePolicy.Mode, cache: PlaylistCache?, pager: Pager?, warn: @escaping @Sendable (String) -> Void
    ) {
        self.mode = mode
        self.cache = cache
        self.pager = pager
        self.warn = warn
    }

    /// The pager, for what the cache never holds (liked songs, playlist lists).
    package func requirePager(for what: String) throws -> Pager {
        guard let pager else {
            throw ToolError.unavailable(
                "--offline: \(what) are never cached (Spotify gives them no snapshot_id to check a copy against); run without --offline"
            )
        }
        return pager
    }

    /// A cached entry line: its kind, the record spotify-tracks prints for it (empty for an
    /// unavailable item), and Spotify's entry object, as bytes.
    package typealias LineHandler = (PlaylistEntry.Kind, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void

    /// Hands every entry of the playlist to `body`, page by page in order. `wanted`: `.full` for
    /// Spotify's untouched objects, `.records` when only what track records read is needed.
    /// `uncachedFields`: the `fields` filter when nothing will be kept (`--no-cache`). `lines`:
    /// when given, a cached copy goes to it line by line instead of to `body` (nothing parsed).
    /// `progress` gets (done, total) as pages arrive; `totalChanged` hears when the playlist's
    /// size moved while it was read.
    package func read(
        _ selector: Selector, wanted: CacheView, uncachedFields: String?, progress: (Int, Int) -> Void,
        totalChanged: @escaping (Int, Int) -> Void, lines: LineHandler? = nil,
        body: (Page) throws -> Void
    ) async throws -> Result {
        let id = selector.reference.id
        var entry: PlaylistCache.Entry?
        switch try cache?.load(id) ?? .absent {
        case .absent: break
        case .damaged(let path, let reason):
            warn("ignoring the cached copy \(path): \(reason); it will be fetched again")
        case .entry(let found): entry = found
        }
        var step = CachePolicy.firstStep(
            mode: mode, entry: entry?.header, wanted: wanted,
            snapshot: selector.snapshot, snapshotIsCurrent: selector.snapshotIsCurrent)
        do {
            if step == .checkSnapshot {
                switch try await currentSnapshot(id) {
                case .refused(let result): return .refused(result)
                case .value(let current):
                    step = CachePolicy.afterCheck(entry: entry?.header, wanted: wanted, current: current)
                }
            }
            switch step {
            case .serve:
                guard let entry else { throw ToolError.software("cache: served without an entry") }
                if try serve(entry, playlist: id, lines: lines, body: body) { return .delivered }
                if mode == .offline { return .failed(offlineMiss(.nothingCached, playlist: id)) }
                return try await fetch(
                    selector.reference, wanted: wanted, fields: uncachedFields, keepUnder: nil, progress: progress,
                    totalChanged: totalChanged, body: body)
            case .unavailable(let miss):
                return .failed(offlineMiss(miss, playlist: id))
            case .fetch(let snapshot):
                let keeping = snapshot != nil && (cache?.maxBytes ?? 0) > 0
                let fields = keeping ? (wanted == .records ? PlaylistEntry.itemFields : nil) : uncachedFields
                return try await fetch(
                    selector.reference, wanted: wanted, fields: fields, keepUnder: keeping ? snapshot : nil,
                    progress: progress,
                    totalChanged: totalChanged, body: body)
            case .checkSnapshot:
                throw ToolError.software("cache: snapshot checked twice")
            }
        } catch var error as ToolError where error.exitCode == .unavailable || error.exitCode == .tempFail {
            // No silent fallback: say that a copy exists, and let the user choose --offline.
            if let entry, entry.header.view.serves(wanted) {
                error.message +=
                    "; a copy of playlist \(id) cached \(CachePolicy.age(seconds: (cache?.now ?? 0) - entry.header.fetchedAt)) ago exists: --offline prints it"
            }
            throw error
        }
    }

    /// Prints a cached entry as the pages a fetch would have handed on, parsing one page at a
    /// time (a whole 100,000-item copy parsed at once took about 470 MB). False when its first
    /// page does not parse (it is then refetched); a line that does not parse later (possible only
    /// if something else wrote the file with a matching checksum) ends the run with the entry removed.
    func serve(_ entry: PlaylistCache.Entry, playlist id: String, lines: LineHandler?, body: (Page) throws -> Void)
        throws -> Bool
    {
        if mode == .offline {
            let age = CachePolicy.age(seconds: (cache?.now ?? 0) - entry.header.fetchedAt)
            warn(
                "playlist \(id): offline: printing the copy cached \(age) ago (snapshot_id \(entry.header.snapshotID))")
        }
        if let lines {
            defer { cache?.touch(id) }
            // validate() checked every line, so this cannot fail half-way through the output.
            try CacheEntryFormat.forEachLine(entry.data, entry.validated, lines)
            return true
        }
        var items: [JSONValue] = []
        items.reserveCapacity(PagePlan.pageSize)
        var offset = 0
        do {
            try CacheEntryFormat.forEachLine(entry.data, entry.validated) { _, _, bytes in
                guard let item = try? JSONValue.parse(buffer: bytes) else {
                    throw CacheEntryFormat.Damage(description: "entry \(offset + items.count + 1) is not JSON")
                }
                items.append(item)
                if items.count == PagePlan.pageSize {
                    try body(Page(offset: offset, total: entry.header.total, items: items))
                    offset += items.count
                    items.removeAll(keepingCapacity: true)
                }
            }
        } catch let damage as CacheEntryFormat.Damage {
            let path = cache?.path(of: id) ?? id
            guard offset == 0 else {
                try? cache?.directory.remove(PlaylistCache.fileName(id))
                throw ToolError.unavailable(
                    "the cached copy \(path) is damaged (\(damage)) after \(offset) items were printed; it was removed: run again"
                )
            }
            warn("ignoring the cached copy \(path): \(damage); it will be fetched again")
            return false
        }
        if !items.isEmpty || offset == 0 {
            try body(Page(offset: offset, total: entry.header.total, items: items))
        }
        cache?.touch(id)
        return true
    }

    func offlineMiss(_ miss: CachePolicy.OfflineMiss, playlist id: String) -> ToolError {
        switch miss {
        case .nothingCached:
            return ToolError.unavailable(
                "playlist \(id): --offline: nothing is cached for it; run once without --offline to keep a copy")
        case .needsFull:
            return ToolError.unavailable(
                "playlist \(id): --offline: the cached copy holds track records only, not Spotify's objects that --raw prints; run once with --raw without --offline"
            )
        }
    }

    /// Every page from Spotify; kept under `snapshot` when the playlist did not change meanwhile.
    func fetch(
        _ playlist: SpotifyReference, wanted: CacheView, fields: String?, keepUnder snapshot: String?,
        progress: (Int, Int) -> Void, totalChanged report: @escaping (Int, Int) -> Void,
        body: (Page) throws -> Void
    ) async throws -> Result {
        let id = playlist.id
        let pager = try requirePager(for: "playlists")
        var query = [PlaylistEntry.additionalTypes]
        if let fields { query.insert(("fields", fields), at: 0) }
        let limit = cache?.maxBytes ?? 0
        var kept: [UInt8]? = snapshot == nil ? nil : []
        var count = 0
        var totalChanged = false
        let summary = try await pager.fetchAll(
            path: "/playlists/\(id)/items", query: query, passing: [403, 404],
            onTotalChanged: { was, now in
                totalChanged = true
                report(was, now)
            },
            progress: progress,
            body: { page in
                if kept != nil {
                    for (index, item) in page.items.enumerated() {
                        let kind = PlaylistEntry.kind(of: item)
                        let record =
                            kind == .unavailable
                            ? nil : PlaylistEntry.record(item, position: page.offset + index, playlist: playlist)
                        CacheEntryFormat.appendEntry(item, kind: kind, record: record, to: &kept!)
                    }
                    count += page.items.count
                    if kept!.count > limit { kept = nil }  // too big to keep: stop collecting
                }
                try body(page)
            })
        if let refused = summary.refused { return .refused(refused) }
        if let kept, let cache, count == summary.total {
            // Asked again after the last page: only if the snapshot held throughout is every page of that version.
            let after: String? = if case .value(let current)? = try? await currentSnapshot(id) { current } else { nil }
            if CachePolicy.mayKeep(
                snapshotBefore: snapshot, snapshotAfter: after, totalChanged: totalChanged, bytes: kept.count,
                maxBytes: limit),
                let snapshot
            {
                let header = CacheEntryHeader(
                    playlistID: id, snapshotID: snapshot, view: fields == nil ? .full : .records, fetchedAt: cache.now,
                    total: count)
                do {
                    try cache.store(header, body: kept, count: count)
                } catch let error as ToolError {
                    warn("playlist \(id): not cached: \(error.message)")
                }
            }
        }
        return .delivered
    }

    /// `GET /playlists/{id}?fields=snapshot_id`: one small request. A 403 or 404 is handed back
    /// like the items request's, so the caller explains this playlist and the others still print.
    func currentSnapshot(_ id: String) async throws -> Answer<String?> {
        let pager = try requirePager(for: "playlists")
        return try await pager.api.perform(
            method: "GET", path: "/playlists/\(id)", query: [("fields", "snapshot_id")], passing: [403, 404]
        ) { result in
            guard result.isSuccess else { return Answer<String?>.refused(result) }
            guard let json = try? JSONValue.parse(result.body), json.objectValue != nil else {
                throw SpotifyWebAPI.UnreadableBody("the body is not a JSON object")
            }
            return .value(json["snapshot_id"]?.stringValue)
        }.value
    }
}
