import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run's playlist reads are handed to, in order: playlist after playlist (by `index`, the
/// position in the selectors), page after page.
package protocol PlaylistReadHandler {
    /// When true, a cached copy goes to `line` line by line (nothing parsed) instead of to `page`.
    var takesLines: Bool { get }
    mutating func page(_ page: Page, playlist index: Int) throws
    mutating func line(
        kind: PlaylistEntry.Kind, record: UnsafeRawBufferPointer, entry: UnsafeRawBufferPointer, playlist index: Int
    ) throws
    /// The playlist's size moved while it was read.
    mutating func totalChanged(playlist index: Int, was: Int, now: Int)
    /// The playlist's snapshot_id moved while it was read, its size held (told after its pages,
    /// maybe after later playlists'): an item may be missing or repeated.
    mutating func editedWhileRead(playlist index: Int)
    /// The playlist is done: printed, refused (403/404, for the caller to explain) or failed
    /// (offline with nothing cached); the others go on either way.
    mutating func finished(playlist index: Int, _ result: PlaylistItemsReader.Result) throws
    mutating func progress(_ progress: PlaylistItemsReader.Progress)
    /// What the list at `index` is called, once known and before its pages: a playlist's name (a
    /// piped record's, then its object's), an artist's (from its albums). Told again if it changes.
    mutating func named(_ name: String, playlist index: Int)
    /// The snapshot_id the playlist at `index` was read at (the object's, or a copy's), before its pages.
    mutating func read(atSnapshot snapshot: String, playlist index: Int)
    /// The source at `index` has arrived (read from standard input while the run goes on),
    /// before anything of it is handed on.
    mutating func arrived(_ reference: SpotifyReference, playlist index: Int)
}

/// What a handler that wants pages only, and no notes or progress, need not write.
extension PlaylistReadHandler {
    package var takesLines: Bool { false }
    package func line(
        kind: PlaylistEntry.Kind, record: UnsafeRawBufferPointer, entry: UnsafeRawBufferPointer, playlist index: Int
    ) throws {}
    package func totalChanged(playlist index: Int, was: Int, now: Int) {}
    package func editedWhileRead(playlist index: Int) {}
    package func progress(_ progress: PlaylistItemsReader.Progress) {}
    package func named(_ name: String, playlist index: Int) {}
    package func read(atSnapshot snapshot: String, playlist index: Int) {}
    package func arrived(_ reference: SpotifyReference, playlist index: Int) {}
}

/// Where spotify-tracks and `spotify-playlists get --duration` get playlists' entries: from the
/// snapshot cache when it holds a playlist's current version, else from Spotify, keeping what
/// came for the next run. Either way the handler gets the same pages, so what it prints cannot
/// differ. All the playlists of one run are read by one `ListScheduler`: their requests share
/// one in-flight limit and overlap, and what they bring is handed on playlist after playlist.
package struct PlaylistItemsReader {
    /// A playlist to read, with what is known of it before any request: from a piped playlist
    /// record (a hint: it may be stale), or from an answer of this run (`snapshotIsCurrent`).
    package struct Selector {
        package var reference: SpotifyReference
        package var snapshot: String?
        package var snapshotIsCurrent = false
        /// The record's `items_total`: every page can be planned at once.
        package var itemsTotal: Int?
        /// The record says Spotify shows no items of it (`items_total` null: a playlist you neither
        /// own nor collaborate on): its items page is asked first, so its 403 costs one request.
        package var itemsHidden = false
        /// The record's `name`, until the playlist object tells the current one.
        package var name: String?

        package init(
            reference: SpotifyReference, snapshot: String?, snapshotIsCurrent: Bool = false, itemsTotal: Int? = nil,
            itemsHidden: Bool = false, name: String? = nil
        ) {
            self.reference = reference
            self.name = name
            self.snapshot = snapshot.flatMap { $0.isEmpty ? nil : $0 }
            self.snapshotIsCurrent = snapshotIsCurrent
            self.itemsTotal = itemsTotal
            self.itemsHidden = itemsHidden
        }
    }

    package enum Result {
        case delivered
        /// The first request's 403 or 404, for the caller to explain.
        case refused(HTTPResult)
        /// This playlist could not be printed (offline with nothing cached); the others go on.
        case failed(ToolError)
    }

    /// The whole run so far: items handed on of those known (records' `items_total`, then each
    /// playlist's real total once it answers), and playlists done.
    package struct Progress: Sendable, Equatable {
        package var items = 0
        package var itemsKnown = 0
        package var playlists = 0
        package var playlistsTotal = 0
    }

    let mode: CachePolicy.Mode
    let cache: PlaylistCache?
    /// nil offline: no request may be made (and no login is needed).
    package let pager: Pager?
    /// Notes for stderr (a damaged copy ignored, an offline copy's age, a copy not kept).
    let warn: @Sendable (String) -> Void
    /// Where every version a fetch proves whole is kept (`spotify-playlists history`); nil: nowhere.
    package var versions: PlaylistVersions?

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
                """
                --offline: \(what) are never cached (Spotify gives them no snapshot_id to check a copy against); run \
                without --offline
                """
            )
        }
        return pager
    }

    /// A cached entry line: its kind, the record spotify-tracks prints for it (empty for an
    /// unavailable item), and Spotify's entry object, as bytes.
    typealias LineHandler = (PlaylistEntry.Kind, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void

    /// Hands every entry of every playlist to `handler`, playlist after playlist, page by page in
    /// order. `wanted`: `.full` for Spotify's untouched objects, `.records` when only what track
    /// records read is needed. `uncachedFields`: the `fields` filter when nothing will be kept.
    package func read<Handler: PlaylistReadHandler>(
        _ selectors: [Selector], wanted: CacheView, uncachedFields: String?, includeGroups: String = "album,single",
        into handler: inout Handler
    ) async throws {
        try await read(
            selectors, arriving: nil, wanted: wanted, uncachedFields: uncachedFields, includeGroups: includeGroups,
            into: &handler)
    }

    /// The same for `selectors` and then those `arriving` (standard input as it is read): each is
    /// planned as soon as it arrives, while the ones before it are read and handed on, and the
    /// handler is told of it (`arrived`) before anything of it is handed on. A line that could not
    /// be read fails the run in its turn, after what the sources before it print.
    package func read<Handler: PlaylistReadHandler>(
        _ selectors: [Selector], arriving: LineFeed<Selector>?, wanted: CacheView, uncachedFields: String?,
        includeGroups: String = "album,single", into handler: inout Handler
    ) async throws {
        // What arrives may be of any kind, so a stream is read as a mixed run.
        if arriving != nil || selectors.contains(where: { $0.reference.kind != .playlist }) {
            return try await readSources(
                selectors, arriving: arriving, wanted: wanted, uncachedFields: uncachedFields,
                includeGroups: includeGroups, into: &handler)
        }
        var run = Run(
            reader: self, selectors: selectors, wanted: wanted, uncachedFields: uncachedFields, handler: handler)
        run.progress.playlistsTotal = selectors.count
        run.progress.itemsKnown = selectors.reduce(0) { saturatingAdd($0, max(0, $1.itemsTotal ?? 0)) }
        defer { handler = run.handler }
        defer { run.keeper?.waitUntilKept() }  // every playlist finished is kept, however the run ends
        if let pager {
            do {
                try await ListScheduler(api: pager.api, concurrency: pager.concurrency).run(&run)
            } catch let exhausted as RequestBudget.Exhausted {
                throw RequestBudget.stopped(
                    exhausted, done: run.progress.playlists, of: run.progress.playlistsTotal, noun: "playlists")
            }
        } else {
            // Offline every list is local: handed on at once, no request.
            while var list = try run.nextList() {
                for delivery in list.takeDeliveries() { _ = try run.deliver(delivery, list: run.planned - 1) }
            }
        }
    }

    /// How a playlist's read begins, from what is known before any request (pure).
    static func plan(
        _ selector: Selector, mode: CachePolicy.Mode, entry: CacheEntryHeader?, wanted: CacheView,
        uncachedFields: String?, keeping: Bool
    ) -> (CachePolicy.FirstStep, ListRead?) {
        let step = CachePolicy.firstStep(mode: mode, entry: entry, wanted: wanted, snapshot: selector.snapshot)
        guard step == .fetch else { return (step, nil) }
        let fields = keeping ? (wanted == .records ? PlaylistEntry.itemFields : nil) : uncachedFields
        let queries = ListRead.Queries(
            page: (fields.map { [("fields", $0)] } ?? []) + PlaylistEntry.readQuery,
            object: [("fields", PlaylistEntry.objectFields(pageFields: fields))] + PlaylistEntry.readQuery)
        // A cached copy of another version than the record names: the record may be the stale
        // one, so the playlist object is asked first (one request when the copy is current), and
        // the pages only once it has answered.
        // A current snapshot_id that is not the copy's (else nothing would be fetched) says the copy is stale.
        let cachedSnapshot =
            mode == .normal && !selector.snapshotIsCurrent ? CachePolicy.usableSnapshot(entry, wanted: wanted) : nil
        // The object embeds the first 100 entries: one request where pages of 50 take two, and
        // for most playlists the whole read (--duration read every playlist by its pages).
        let start: ListRead.Start = selector.itemsHidden ? .firstPage : .playlistObject
        let list = ListRead(
            target: .playlist(id: selector.reference.id), start: start, queries: queries,
            expectedTotal: start == .playlistObject && cachedSnapshot != nil ? nil : selector.itemsTotal, keep: keeping,
            snapshotBefore: selector.snapshot, cachedSnapshot: cachedSnapshot)
        return (step, list)
    }

    /// One run: the lists it gives the scheduler, and what it does with what they hand on.
    struct Run<Handler: PlaylistReadHandler>: ListRunSource {
        let reader: PlaylistItemsReader
        var selectors: [Selector]
        let wanted: CacheView
        let uncachedFields: String?
        var handler: Handler
        var progress = Progress()
        /// How many selectors have been planned.
        var planned = 0
        /// What each planned, unfinished playlist needs at its turn.
        var turns: [Int: Turn] = [:]
        var started: Set<Int> = []
        /// Where what is fetched goes to be kept (the cache, the history); nil: nothing is kept.
        let keeper: ReadKeeper?
        /// Each playlist's name, as the records carry it: the piped record's, then its object's.
        var names: [Int: String] = [:]
        /// The snapshot_id each playlist's read began at, as the records carry it.
        var snapshots: [Int: String] = [:]

        struct Turn {
            var step: CachePolicy.FirstStep
            /// The cached entry's header when planned (for the `--offline` hint in errors).
            var cached: CacheEntryHeader?
            /// Said at the playlist's turn, not when it was planned ahead.
            var notes: [String] = []
            /// An error reading its cached copy (a file that may not be trusted): thrown at its
            /// turn, after what the playlists before it print.
            var failure: (any Error)?
            var keeping: Bool
            /// The snapshot a copy must have to be printed (nil offline: the latest copy).
            var servable: String?
            /// The copy read and checked when planned, held for its turn so that it is not read
            /// and checked again (a warm read did both twice); nil past `heldBytesLimit`.
            var loaded: PlaylistCache.Entry?
        }

        /// How much of the copies planned ahead is held in memory at once; past it a copy is
        /// read again at its turn.
        static var heldBytesLimit: Int { 16 << 20 }

        /// Whether a fetch is proven whole for keeping: in the cache, or as a version in the history.
        var keeping: Bool { keeper != nil }

        init(
            reader: PlaylistItemsReader, selectors: [Selector], wanted: CacheView, uncachedFields: String?,
            handler: Handler
        ) {
            self.reader = reader
            self.selectors = selectors
            self.wanted = wanted
            self.uncachedFields = uncachedFields
            self.handler = handler
            let keeping = reader.mode == .normal && ((reader.cache?.maxBytes ?? 0) > 0 || reader.versions?.isOn == true)
            keeper =
                keeping
                ? ReadKeeper(cache: reader.cache, versions: reader.versions, view: wanted, warn: reader.warn) : nil
        }

        mutating func nextList() throws -> ListRead? {
            guard planned < selectors.count else { return nil }
            let index = planned
            planned += 1
            let selector = selectors[index]
            var turn = Turn(step: .fetch, keeping: keeping)
            do {
                switch try reader.cache?.load(selector.reference.id) ?? .absent {
                case .absent: break
                case .damaged(let path, let reason):
                    turn.notes.append("ignoring the cached copy \(path): \(reason); it will be fetched again")
                case .entry(let entry):
                    turn.cached = entry.header
                    let held = turns.values.reduce(0) { $0 + ($1.loaded?.data.count ?? 0) }
                    if entry.header.view.serves(wanted), held + entry.data.count <= Self.heldBytesLimit {
                        turn.loaded = entry
                    }
                }
            } catch {
                turn.failure = error
                turns[index] = turn
                return .local()
            }
            let (step, list) = PlaylistItemsReader.plan(
                selector, mode: reader.mode, entry: turn.cached, wanted: wanted, uncachedFields: uncachedFields,
                keeping: turn.keeping)
            turn.step = step
            turn.servable =
                reader.mode == .offline
                ? nil : step == .serve ? selector.snapshot : CachePolicy.usableSnapshot(turn.cached, wanted: wanted)
            turns[index] = turn
            return list ?? .local()
        }

        mutating func deliver(_ delivery: ListRead.Delivery, list index: Int) throws -> ListRead? {
            let selector = selectors[index]
            let id = selector.reference.id
            if started.insert(index).inserted {
                if let name = selector.name {
                    names[index] = name
                    handler.named(name, playlist: index)
                }
                for note in turns[index]?.notes ?? [] { reader.warn(note) }
                if turns[index]?.keeping == true { keeper?.send(.begin) }
            }
            switch delivery {
            case .local, .cachedCopyIsCurrent:
                if let failure = turns[index]?.failure { throw failure }
                if case .unavailable(let miss)? = turns[index]?.step {
                    return try finish(index, .failed(reader.offlineMiss(miss, playlist: id)))
                }
                if try serveCached(index) { return try finish(index, .delivered) }
                if reader.mode == .offline {
                    return try finish(index, .failed(reader.offlineMiss(.nothingCached, playlist: id)))
                }
                // The copy could not be used after all: read the playlist, keeping nothing.
                turns[index]?.keeping = false
                keeper?.send(.drop)
                let (_, list) = PlaylistItemsReader.plan(
                    Selector(reference: selector.reference, snapshot: nil), mode: .bypass, entry: nil, wanted: wanted,
                    uncachedFields: uncachedFields, keeping: false)
                return list
            case .page(let page):
                try deliverPage(page, list: index)
            case .totalChanged(let was, let now):
                handler.totalChanged(playlist: index, was: was, now: now)
            case .changedWhileRead:
                handler.editedWhileRead(playlist: index)
            case .refused(let result):
                return try finish(index, .refused(result))
            case .failed(let error):
                throw annotated(error, playlist: index)
            case .checked(let keepUnder):
                keeper?.send(.checked(playlist: index, id: id, keepUnder: keepUnder))
            case .end(let total, let keep):
                return try deliverEnd(total: total, keep: keep, list: index)
            }
            return nil
        }

        /// A page of list `index`: its name and version when it says them, its entries collected
        /// (for the cache and the versions), handed on, and counted.
        mutating func deliverPage(_ page: Page, list index: Int) throws {
            let selector = selectors[index]
            var page = page
            if let name = page.source?["name"]?.stringValue, name != names[index] {
                names[index] = name
                handler.named(name, playlist: index)
            }
            if page.offset == 0 {
                // The object names its version; a read begun at its first page knows it from the selector.
                let begun =
                    page.source?["snapshot_id"]?.stringValue
                    ?? (selector.snapshotIsCurrent ? selector.snapshot : nil)
                if let begun, !begun.isEmpty {
                    snapshots[index] = begun
                    handler.read(atSnapshot: begun, playlist: index)
                }
            }
            if turns[index]?.keeping == true, let keeper {
                // Built once here, for the copy and for what the handler prints.
                if wanted == .records && keeper.collectsCopy { page.buildItemRecords() }
                keeper.send(.page(page))
            }
            if page.offset == 0 {
                progress.itemsKnown = saturatingAdd(
                    progress.itemsKnown, page.total - max(0, selector.itemsTotal ?? 0))
            }
            try handler.page(page, playlist: index)
            progress.items = saturatingAdd(progress.items, page.items.count)
            handler.progress(progress)
        }

        /// The end of list `index` (`total` entries): what was collected is kept under the version
        /// it was read at, now or once the check answers.
        mutating func deliverEnd(total: Int, keep: ListRead.Keep, list index: Int) throws -> ListRead? {
            if turns[index]?.keeping == true {
                keeper?.send(
                    .end(
                        playlist: index, id: selectors[index].reference.id, total: total, keep: keep,
                        snapshot: snapshots[index], name: names[index]))
            }
            return try finish(index, .delivered)
        }

        mutating func finish(_ index: Int, _ result: Result) throws -> ListRead? {
            if turns[index]?.keeping == true { keeper?.send(.drop) }
            turns[index] = nil
            names[index] = nil
            snapshots[index] = nil
            progress.playlists += 1
            try handler.finished(playlist: index, result)
            handler.progress(progress)
            return nil
        }

        /// Prints the cached copy; false when there is none that can be used (it is then fetched).
        mutating func serveCached(_ index: Int) throws -> Bool {
            let id = selectors[index].reference.id
            let entry: PlaylistCache.Entry
            let servable = turns[index]?.servable
            let lookup = try turns[index]?.loaded.map(PlaylistCache.Lookup.entry) ?? reader.cache?.load(id) ?? .absent
            turns[index]?.loaded = nil
            switch lookup {
            // The version that justified printing it (read again at its turn, another process may
            // have replaced the file since).
            case .entry(let found)
            where found.header.view.serves(wanted)
                && (servable == nil || found.header.snapshotID == servable):
                entry = found
            case .damaged(let path, let reason):
                reader.warn("ignoring the cached copy \(path): \(reason); it will be fetched again")
                return false
            default:
                return false
            }
            // The name it had when fetched heads its table, as a fetch's does (unless a piped record named it).
            if names[index] == nil, let name = entry.header.name {
                names[index] = name
                handler.named(name, playlist: index)
            }
            handler.read(atSnapshot: entry.header.snapshotID, playlist: index)
            var served = 0
            // A local copy: the line handler is an escaping closure, which cannot hold `self`.
            var handler = self.handler
            defer { self.handler = handler }
            let lines: LineHandler? =
                handler.takesLines
                ? { kind, record, line in
                    try handler.line(kind: kind, record: record, entry: line, playlist: index)
                    served += 1
                } : nil
            let shown = try reader.serve(entry, playlist: id, lines: lines) { page in
                try handler.page(page, playlist: index)
                served += page.items.count
            }
            guard shown else { return false }
            keeper?.send(.served(entry, id: id))
            progress.itemsKnown = saturatingAdd(
                progress.itemsKnown, entry.header.total - max(0, selectors[index].itemsTotal ?? 0))
            progress.items = saturatingAdd(progress.items, served)
            return true
        }

        /// No silent fallback: when Spotify cannot be reached, say that a copy exists, and let
        /// the user choose --offline.
        func annotated(_ error: any Error, playlist index: Int) -> any Error {
            guard var error = error as? ToolError, error.exitCode == .unavailable || error.exitCode == .tempFail,
                let cached = turns[index]?.cached, cached.view.serves(wanted)
            else { return error }
            let age = CachePolicy.age(seconds: (reader.cache?.now ?? 0) - cached.fetchedAt)
            error.message +=
                "; a copy of playlist \(selectors[index].reference.id) cached \(age) ago exists: --offline prints it"
            return error
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
        let context = CacheEntryFormat.RecordContext(
            playlistID: id, name: entry.header.name, snapshot: entry.header.snapshotID)
        if let lines {
            defer { cache?.touch(id) }
            // validate() checked every line, so this cannot fail half-way through the output.
            try CacheEntryFormat.forEachRecord(entry.data, entry.validated, context: context, lines)
            return true
        }
        var pages = 0
        do {
            try CacheEntryFormat.forEachPage(entry.data, entry.validated, pageSize: PagePlan.pageSize) {
                items, offset in
                try body(Page(offset: offset, total: entry.header.total, items: items))
                pages += 1
            }
        } catch let damage as CacheEntryFormat.Damage {
            let path = cache?.path(of: id) ?? id
            guard pages == 0 else {
                try? cache?.directory.remove(PlaylistCache.fileName(id))
                throw ToolError.unavailable(
                    """
                    the cached copy \(path) is damaged (\(damage)) after \(pages * PagePlan.pageSize) items were \
                    printed; it was removed: run again
                    """
                )
            }
            warn("ignoring the cached copy \(path): \(damage); it will be fetched again")
            return false
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
                """
                playlist \(id): --offline: the cached copy holds track records only, not Spotify's objects that --raw \
                prints; run once with --raw without --offline
                """
            )
        }
    }
}
