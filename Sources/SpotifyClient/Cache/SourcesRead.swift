import HTTPClient
import ToolkitCore

/// Runs that mix playlists with the catalogue's sources of tracks: albums, artists, shows, tracks
/// and episodes. Every source is one or more lists of the same `ListScheduler` run, so their
/// requests share the one in-flight limit and what they bring is handed on source after source:
///
/// - an album: `GET /albums/{id}`, whose object embeds the first 50 tracks, then
///   `/albums/{id}/tracks` for the rest (a 60-track album costs 2 requests);
/// - an artist: `/artists/{id}/albums?include_groups=…` (10 a page since 2026), then each album
///   as above, newest release first; the albums are planned once the listing is handed on;
/// - a show: `GET /shows/{id}` (its first 50 episodes embedded), then `/shows/{id}/episodes`;
/// - a track or an episode: `GET /tracks/{id}`, `GET /episodes/{id}`: its own one-item list.
///
/// Playlists go through `Run` as in a playlists-only run (cache and all); the handler gets every
/// source's pages under the source's index. Catalogue sources are never cached.
extension PlaylistItemsReader {
    /// Items per page of `/artists/{id}/albums` (Spotify answers 400 above 10 since 2026).
    static let artistAlbumsPageSize = 10

    /// The groups `--include-groups` may name, as Spotify names them.
    package static let albumGroups = ["album", "single", "appears_on", "compilation"]

    func readSources<Handler: PlaylistReadHandler>(
        _ selectors: [Selector], arriving: LineFeed<Selector>?, wanted: CacheView, uncachedFields: String?,
        includeGroups: String, into handler: inout Handler
    ) async throws {
        let playlists = selectors.indices.filter { selectors[$0].reference.kind == .playlist }
        var run = Sources(
            inner: Run(
                reader: self, selectors: playlists.map { selectors[$0] }, wanted: wanted,
                uncachedFields: uncachedFields, handler: Forward(base: handler, sourceIndex: playlists)),
            selectors: selectors, includeGroups: includeGroups, offline: pager == nil)
        run.arriving = arriving
        defer { arriving?.stop() }  // a run that failed reads no more
        run.inner.progress.playlistsTotal = selectors.count
        run.inner.progress.itemsKnown = selectors.reduce(0) { saturatingAdd($0, max(0, $1.itemsTotal ?? 0)) }
        defer { handler = run.inner.handler.base }
        defer { run.inner.keeper?.waitUntilKept() }  // every playlist finished is kept, however the run ends
        if let pager {
            do {
                try await ListScheduler(api: pager.api, concurrency: pager.concurrency).run(&run)
            } catch let exhausted as RequestBudget.Exhausted {
                // The sources standard input has already brought count too, read or not: the total
                // the user waits for ("250 of 2,000"), not the ones planned so far.
                var total = run.inner.progress.playlistsTotal
                var more = false
                var playlistsOnly = run.selectors.allSatisfy { $0.reference.kind == .playlist }
                if let feed = run.arriving {
                    counting: while true {
                        switch try? feed.poll() {
                        case .element(let selector)?:
                            total += 1
                            if selector.reference.kind != .playlist { playlistsOnly = false }
                        case .end?: break counting
                        case .pending?, nil:
                            more = true
                            break counting
                        }
                    }
                }
                throw RequestBudget.stopped(
                    exhausted, done: run.inner.progress.playlists, of: total, atLeast: more,
                    noun: playlistsOnly ? "playlists" : "sources")
            }
        } else {
            // Offline every list is local: handed on at once, no request.
            var index = 0
            while true {
                guard var list = try run.nextList() else {
                    guard let wait = run.moreLists() else { break }
                    await wait()
                    continue
                }
                for delivery in list.takeDeliveries() { _ = try run.deliver(delivery, list: index) }
                index += 1
            }
        }
    }

    /// The handler as `Run` sees it: playlists numbered among playlists, passed on numbered among
    /// all the sources.
    struct Forward<Base: PlaylistReadHandler>: PlaylistReadHandler {
        var base: Base
        /// The source index of each playlist.
        var sourceIndex: [Int]

        var takesLines: Bool { base.takesLines }

        mutating func page(_ page: Page, playlist index: Int) throws {
            try base.page(page, playlist: sourceIndex[index])
        }

        mutating func line(
            kind: PlaylistEntry.Kind, record: UnsafeRawBufferPointer, entry: UnsafeRawBufferPointer, playlist index: Int
        ) throws {
            try base.line(kind: kind, record: record, entry: entry, playlist: sourceIndex[index])
        }

        mutating func totalChanged(playlist index: Int, was: Int, now: Int) {
            base.totalChanged(playlist: sourceIndex[index], was: was, now: now)
        }

        mutating func editedWhileRead(playlist index: Int) { base.editedWhileRead(playlist: sourceIndex[index]) }

        mutating func finished(playlist index: Int, _ result: Result) throws {
            try base.finished(playlist: sourceIndex[index], result)
        }

        mutating func progress(_ progress: Progress) { base.progress(progress) }

        mutating func named(_ name: String, playlist index: Int) { base.named(name, playlist: sourceIndex[index]) }

        mutating func read(atSnapshot snapshot: String, playlist index: Int) {
            base.read(atSnapshot: snapshot, playlist: sourceIndex[index])
        }
    }

    /// What one list of a mixed run is.
    enum Part {
        /// A playlist: `Run`'s list number `index`.
        case playlist(Int)
        /// An album, a show, a track or an episode: the whole source.
        case object(source: Int)
        /// An artist's album listing.
        case listing(source: Int)
        /// A line of standard input that could not be read: the run fails there, in its turn.
        case unreadable(source: Int)
        /// One of an artist's albums; `last`: the artist is done after it.
        case artistAlbum(source: Int, last: Bool)
    }

    /// A mixed run: the lists it gives the scheduler, and where what they hand on goes.
    struct Sources<Handler: PlaylistReadHandler>: ListRunSource {
        var inner: Run<Forward<Handler>>
        var selectors: [Selector]
        /// Sources still arriving after `selectors` (standard input as it is read).
        var arriving: LineFeed<Selector>?
        /// Why each unreadable line could not be read, by source.
        var unreadable: [Int: any Error] = [:]
        let includeGroups: String
        let offline: Bool
        /// The next selector to plan.
        var next = 0
        /// What each list given to the scheduler is, by list index.
        var parts: [Part] = []
        /// An artist's albums, planned after its listing is handed on, before anything else.
        var queued: [(ListRead, Part)] = []
        /// The artist whose listing is being read (its albums so far).
        var listing: (source: Int, albums: [JSONValue])?
        /// The first album of an artist that Spotify refused, reported when the artist is done.
        var refusedAlbum: [Int: HTTPResult] = [:]

        var isWaiting: Bool { listing != nil }

        mutating func nextList() throws -> ListRead? {
            if !queued.isEmpty {
                let (list, part) = queued.removeFirst()
                parts.append(part)
                return list
            }
            guard listing == nil else { return nil }
            if next == selectors.count, let feed = arriving {
                switch try poll(feed) {
                case .pending: return nil
                case .end: arriving = nil
                case .unreadable(let list): return list
                case .arrived: break
                }
            }
            guard next < selectors.count else { return nil }
            let source = next
            next += 1
            let reference = selectors[source].reference
            if reference.kind == .playlist {
                guard let list = try inner.nextList() else { return nil }
                parts.append(.playlist(inner.planned - 1))
                return list
            }
            if offline {
                parts.append(.object(source: source))
                return .local()
            }
            if reference.kind == .artist {
                listing = (source, [])
                parts.append(.listing(source: source))
                return ListRead(
                    target: .pages(path: "/artists/\(reference.id)/albums"), start: .firstPage,
                    queries: ListRead.Queries(page: [("include_groups", includeGroups)]), passing: [400, 403, 404],
                    pageSize: PlaylistItemsReader.artistAlbumsPageSize)
            }
            parts.append(.object(source: source))
            return Self.objectList(reference)
        }

        enum Arrival {
            case pending, end, arrived
            case unreadable(ListRead)
        }

        /// The next line of standard input: a source appended to the run (and to `inner`'s
        /// playlists when it is one), or a line that fails the run at its turn.
        mutating func poll(_ feed: LineFeed<Selector>) throws -> Arrival {
            let next: LineFeed<Selector>.Next
            do {
                next = try feed.poll()
            } catch {
                arriving = nil
                let source = selectors.count
                selectors.append(Selector(reference: SpotifyReference(kind: .track, id: ""), snapshot: nil))
                self.next += 1
                unreadable[source] = error
                parts.append(.unreadable(source: source))
                return .unreadable(.local())
            }
            switch next {
            case .pending: return .pending
            case .end: return .end
            case .element(let selector):
                let source = selectors.count
                selectors.append(selector)
                if selector.reference.kind == .playlist {
                    inner.selectors.append(selector)
                    inner.handler.sourceIndex.append(source)
                }
                inner.progress.playlistsTotal += 1
                inner.progress.itemsKnown = saturatingAdd(inner.progress.itemsKnown, max(0, selector.itemsTotal ?? 0))
                inner.handler.base.arrived(selector.reference, playlist: source)
                return .arrived
            }
        }

        mutating func moreLists() -> (@Sendable () async -> Void)? {
            guard let feed = arriving else { return nil }
            return { await feed.waitForMore() }
        }

        /// The list of an album, a show, a track or an episode.
        static func objectList(_ reference: SpotifyReference) -> ListRead {
            let path = "/\(reference.kind.rawValue)s/\(reference.id)"
            let object: ListRead.CatalogObject
            switch reference.kind {
            case .album: object = ListRead.CatalogObject(path: path, embedded: "tracks", pagesPath: path + "/tracks")
            case .show: object = ListRead.CatalogObject(path: path, embedded: "episodes", pagesPath: path + "/episodes")
            default: object = ListRead.CatalogObject(path: path, embedded: nil, pagesPath: path)
            }
            // The market, so that Spotify says whether each track plays in the user's country.
            let market = [TrackRecord.market]
            return ListRead(
                target: .object(object), start: .playlistObject, queries: ListRead.Queries(page: market, object: market)
            )
        }

        mutating func deliver(_ delivery: ListRead.Delivery, list index: Int) throws -> ListRead? {
            switch parts[index] {
            case .playlist(let inner): return try self.inner.deliver(delivery, list: inner)
            case .object(let source): try deliverObject(delivery, source: source, last: true)
            case .artistAlbum(let source, let last): try deliverObject(delivery, source: source, last: last)
            case .listing(let source): try deliverListing(delivery, source: source)
            case .unreadable(let source): if let error = unreadable.removeValue(forKey: source) { throw error }
            }
            return nil
        }

        /// An album's, a show's, a track's or an episode's pages, on their own or as one album of
        /// an artist (`last`: the artist's last).
        mutating func deliverObject(_ delivery: ListRead.Delivery, source: Int, last: Bool) throws {
            switch delivery {
            case .page(let page):
                if page.offset == 0 {
                    inner.progress.itemsKnown = saturatingAdd(inner.progress.itemsKnown, page.total)
                }
                try inner.handler.base.page(page, playlist: source)
                inner.progress.items = saturatingAdd(inner.progress.items, page.items.count)
                inner.handler.base.progress(inner.progress)
            case .totalChanged(let was, let now):
                inner.handler.base.totalChanged(playlist: source, was: was, now: now)
            case .refused(let result):
                if last || selectors[source].reference.kind != .artist {
                    try finish(source, .refused(refusedAlbum.removeValue(forKey: source) ?? result))
                } else if refusedAlbum[source] == nil {
                    refusedAlbum[source] = result
                }
            case .failed(let error):
                throw error
            case .end:
                if last {
                    try finish(source, refusedAlbum.removeValue(forKey: source).map(Result.refused) ?? .delivered)
                }
            case .local:
                let reference = selectors[source].reference
                try finish(
                    source,
                    .failed(
                        ToolError.unavailable(
                            """
                            \(reference.kind) \(reference.id): --offline prints cached playlists only; albums, \
                            artists, shows, tracks and episodes are never cached: run without --offline
                            """
                        )))
            case .cachedCopyIsCurrent, .checked, .changedWhileRead:
                break
            }
        }

        /// An artist's album listing: collected, and at its end its albums planned, newest first.
        mutating func deliverListing(_ delivery: ListRead.Delivery, source: Int) throws {
            switch delivery {
            case .page(let page):
                listing?.albums += page.items
            case .totalChanged(let was, let now):
                inner.handler.base.totalChanged(playlist: source, was: was, now: now)
            case .refused(let result):
                listing = nil
                try finish(source, .refused(result))
            case .failed(let error):
                listing = nil
                throw error
            case .end:
                let albums = Self.newestFirst(listing?.albums ?? [])
                listing = nil
                let artist = selectors[source].reference
                if let name = Self.name(of: artist, among: albums) { inner.handler.base.named(name, playlist: source) }
                let ids = albums.compactMap { $0["id"]?.stringValue }.filter(SpotifyReference.isValidID)
                guard !ids.isEmpty else { return try finish(source, .delivered) }
                queued = ids.enumerated().map { offset, id in
                    (
                        Self.objectList(SpotifyReference(kind: .album, id: id)),
                        .artistAlbum(source: source, last: offset == ids.count - 1)
                    )
                }
            case .local, .cachedCopyIsCurrent, .checked, .changedWhileRead:
                break
            }
        }

        mutating func finish(_ source: Int, _ result: Result) throws {
            inner.progress.playlists += 1
            try inner.handler.base.finished(playlist: source, result)
            inner.handler.base.progress(inner.progress)
        }

        /// Releases newest first by `release_date` ("2024", "2024-05" or "2024-05-17": the text
        /// sorts as the date does), Spotify's order kept among equal dates; undated ones last.
        static func newestFirst(_ albums: [JSONValue]) -> [JSONValue] {
            albums.enumerated().sorted { lhs, rhs in
                let left = lhs.element["release_date"]?.stringValue ?? ""
                let right = rhs.element["release_date"]?.stringValue ?? ""
                return left != right ? left > right : lhs.offset < rhs.offset
            }.map(\.element)
        }

        /// The artist's name as its releases credit it (the listing names no artist itself).
        static func name(of artist: SpotifyReference, among albums: [JSONValue]) -> String? {
            for album in albums {
                for credited in album["artists"]?.arrayValue ?? [] where credited["id"]?.stringValue == artist.id {
                    if let name = credited["name"]?.stringValue { return name }
                }
            }
            return nil
        }
    }
}
