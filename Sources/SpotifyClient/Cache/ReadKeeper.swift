import Dispatch
import ToolkitCore

/// What a read keeps of the playlists it fetches: each version proven whole goes into the snapshot
/// cache (the compact copy) and into the version history. The read hands its pages and verdicts
/// over; a serial queue of the keeper's own encodes and writes them, in the order handed over,
/// beside the read. Encoding a copy, rewriting a history file and writing the copy took a third
/// of a cold read's CPU (about 3 s for 100,000 items) when done on the read's own path.
///
/// Notes (a full cache, a copy not kept) are said by the read's thread when it next hands
/// something over or waits, never in the middle of its output. `waitUntilKept()` waits until
/// everything handed over is kept: a run that stops early (a request budget spent, a failure)
/// still keeps every playlist it finished.
final class ReadKeeper: @unchecked Sendable {
    enum Event: Sendable {
        /// A playlist's pages begin: collected for the cache, the history, or both (what is on).
        case begin
        case page(Page)
        /// The playlist being read keeps nothing after all (refused, failed, read without keeping).
        case drop
        /// Its pages ended at `total` items, read at `snapshot`: keep now or once checked.
        case end(playlist: Int, id: String, total: Int, keep: ListRead.Keep, snapshot: String?, name: String?)
        /// The snapshot check of playlist `index` answered: what it held is kept under `keepUnder`.
        case checked(playlist: Int, id: String, keepUnder: String?)
        /// A copy printed from the cache: a version the history may lack.
        case served(PlaylistCache.Entry, id: String)
    }

    private let queue = DispatchQueue(label: "spotify-toolkit.read-keeper")
    /// Pages handed over and not yet kept: past this many the read waits, so a slow disk holds
    /// a bounded number of pages in memory (a page is at most 100 items).
    private let room = DispatchSemaphore(value: 32)
    /// Touched on `queue` only.
    private var keeping: Keeping
    private let notes = Locked<[String]>([])
    private let warn: @Sendable (String) -> Void
    /// Whether the pages handed over are collected for the cache (not only for the history).
    let collectsCopy: Bool

    init(
        cache: PlaylistCache?, versions: PlaylistVersions?, view: CacheView, warn: @escaping @Sendable (String) -> Void
    ) {
        self.warn = warn
        let notes = notes
        keeping = Keeping(
            cache: cache, versions: versions, view: view, note: { note in notes.withLock { $0.append(note) } })
        collectsCopy = keeping.collectsCopy
    }

    func send(_ event: Event) {
        sayNotes()
        room.wait()
        queue.async {
            self.keeping.apply(event)
            self.room.signal()
        }
    }

    /// Waits until everything handed over is kept, and says what there is to say.
    func waitUntilKept() {
        queue.sync {}
        sayNotes()
    }

    private func sayNotes() {
        for note in notes.withLock({ notes in
            defer { notes = [] }
            return notes
        }) { warn(note) }
    }
}

/// What `ReadKeeper`'s queue does with each event: the playlist being read collected, those
/// awaiting their snapshot check held, and each version proven whole stored.
struct Keeping {
    let cache: PlaylistCache?
    let versions: PlaylistVersions?
    let view: CacheView
    let note: @Sendable (String) -> Void
    /// The playlist being read: its entries collected for the cache, when they may be kept.
    var copy: CacheEntryFormat.Builder?
    /// The playlist being read, as a version for the history (nil: none is kept).
    var versionItems: [PlaylistVersion.Item]?
    /// Entries of playlists already read, kept once their snapshot check proves them.
    var awaitingCheck: [Int: (entries: CacheEntryFormat.Builder, name: String?, snapshot: String?)] = [:]
    /// Versions of playlists already read, kept once their snapshot check proves them.
    var awaitingVersion: [Int: (items: [PlaylistVersion.Item], snapshot: String?)] = [:]
    /// Whether this run has said that the cache is full of what it read.
    var saidFull = false

    var collectsCopy: Bool { (cache?.maxBytes ?? 0) > 0 }

    mutating func apply(_ event: ReadKeeper.Event) {
        switch event {
        case .begin:
            copy = collectsCopy ? CacheEntryFormat.Builder(view: view) : nil
            versionItems = versions?.isOn == true ? [] : nil
        case .page(let page):
            collect(page)
        case .drop:
            (copy, versionItems) = (nil, nil)
        case .end(let index, let id, let total, let keep, let snapshot, let name):
            end(index, id: id, total: total, keep: keep, snapshot: snapshot, name: name)
            (copy, versionItems) = (nil, nil)
        case .checked(let index, let id, let keepUnder):
            if let (items, snapshot) = awaitingVersion.removeValue(forKey: index), let keepUnder,
                snapshot == keepUnder
            {
                keepVersion(items, under: keepUnder, playlist: id)
            }
            if let (kept, name, snapshot) = awaitingCheck.removeValue(forKey: index), let keepUnder,
                snapshot == keepUnder
            {
                store(kept, under: keepUnder, playlist: id, name: name)
            }
        case .served(let entry, let id):
            keepServedVersion(entry, playlist: id)
        }
    }

    /// Appends a page's entries to what will be kept, until it is too big to keep.
    mutating func collect(_ page: Page) {
        if versionItems != nil { versionItems! += page.items.map(PlaylistVersion.Item.init(entry:)) }
        guard copy != nil else { return }
        for (index, entry) in page.items.enumerated() {
            copy!.append(entry, item: view == .full ? nil : page.itemRecord(index))
        }
        if copy!.body.count > (cache?.maxBytes ?? 0) { copy = nil }  // too big to keep: stop collecting
    }

    /// The end of list `index` (`total` entries): what was collected is kept under the version
    /// it was read at, now or once the check answers.
    mutating func end(
        _ index: Int, id: String, total: Int, keep: ListRead.Keep, snapshot: String?, name: String?
    ) {
        if let items = versionItems, items.count == total {
            switch keep {
            case .under(let proven) where proven == snapshot:
                keepVersion(items, under: proven, playlist: id)
            case .afterCheck: awaitingVersion[index] = (items, snapshot)
            case .no, .under: break
            }
        }
        if let copy, let cache, copy.count == total, copy.body.count <= cache.maxBytes {
            switch keep {
            // Its records name the version they were read at: kept only under that one.
            case .under(let proven) where proven == snapshot:
                store(copy, under: proven, playlist: id, name: name)
            case .afterCheck:
                // Held until the check answers; while checks are slow, no more than the
                // cache could keep anyway.
                let held = awaitingCheck.values.reduce(0) { $0 + $1.entries.body.count }
                if held + copy.body.count <= cache.maxBytes {
                    awaitingCheck[index] = (copy, name, snapshot)
                }
            case .no, .under: break
            }
        }
    }

    /// Keeps a playlist's entries under the snapshot_id they provably belong to: the one place
    /// a read records a new snapshot of a playlist.
    mutating func store(
        _ kept: CacheEntryFormat.Builder, under snapshot: String, playlist id: String, name: String?
    ) {
        guard let cache,
            CachePolicy.mayKeep(
                provenSnapshot: snapshot, count: kept.count, total: kept.count, bytes: kept.body.count,
                maxBytes: cache.maxBytes)
        else { return }
        let header = CacheEntryHeader(
            playlistID: id, snapshotID: snapshot, view: kept.view, fetchedAt: cache.now, total: kept.count,
            name: name)
        do {
            if try !cache.store(header, body: kept.body, count: kept.count) && !saidFull {
                saidFull = true
                note(
                    """
                    the snapshot cache is full of what this run read (\(CachePolicy.sizeVariable) allows \
                    \(cache.maxBytes >> 20) MiB): playlist \(id) and any after it that do not fit are not kept; \
                    raise it to keep them
                    """
                )
            }
        } catch let error as ToolError {
            note("playlist \(id): not cached: \(error.message)")
        } catch {
            note("playlist \(id): not cached: \(error)")
        }
    }

    /// A copy printed from the cache is a version met too: kept when the history lacks it (a
    /// cache older than the history, or a history cleared), parsed only then.
    func keepServedVersion(_ entry: PlaylistCache.Entry, playlist id: String) {
        guard let versions, versions.isOn, !versions.contains(id, snapshot: entry.header.snapshotID),
            let entries = try? CacheEntryFormat.entries(entry.data, entry.validated)
        else { return }
        keepVersion(entries.map(PlaylistVersion.Item.init(entry:)), under: entry.header.snapshotID, playlist: id)
    }

    /// Keeps a version proven whole in the history; a history that cannot be written never fails a read.
    func keepVersion(_ items: [PlaylistVersion.Item], under snapshot: String, playlist id: String) {
        guard let versions else { return }
        let version = PlaylistVersion(snapshotID: snapshot, seenAt: versions.now, metBy: "read", items: items)
        do {
            try versions.record(id, version, firstDurably: false, warn: note)
        } catch {
            note("playlist \(id): version not kept: \((error as? ToolError)?.message ?? "\(error)")")
        }
    }
}
