import HTTPClient
import ToolkitCore

/// How one list of a run (a playlist's items, the liked songs, the user's playlists) is read: a
/// pure state machine, with no I/O. The `ListScheduler` asks it which requests are ready, tells it
/// each answer as it arrives, in any order, and takes what it can hand on, strictly in order:
/// the first page, the later pages by offset, then the end (and whether the pages may be kept in
/// the snapshot cache).
///
/// It plans as much as is known up front. A piped record's `items_total` lets every page be
/// requested at once; a playlist's first request is its object (`GET /playlists/{id}` with a
/// `fields` filter), whose answer carries the snapshot_id, the total and the first entries
/// together, so no separate discovery or snapshot round trip is needed.
struct ListRead: Sendable {
    /// Where the list lives.
    enum Target: Sendable, Equatable {
        /// A playlist: its object (`/playlists/{id}`) and its pages (`/playlists/{id}/items`).
        case playlist(id: String)
        /// A plain paged endpoint (`/me/tracks`, `/me/playlists`, `/artists/{id}/albums`).
        case pages(path: String)
        /// A catalogue object read as a list: an album or a show, whose object embeds the first
        /// page of its tracks or episodes; or a track or an episode, its own one-item list.
        case object(CatalogObject)
    }

    /// Where a catalogue object and its pages live, and where its object keeps its first page.
    struct CatalogObject: Sendable, Equatable {
        /// `/albums/{id}`, `/shows/{id}`, `/tracks/{id}`, `/episodes/{id}`.
        var path: String
        /// The key of the embedded page (`tracks`, `episodes`); nil: the object is the one item.
        var embedded: String?
        /// The rest of the list (`/albums/{id}/tracks`, `/shows/{id}/episodes`).
        var pagesPath: String
    }

    /// How the read begins.
    enum Start: Sendable, Equatable {
        /// The playlist object with its first entries embedded.
        case playlistObject
        /// The first page of the paged endpoint (for a playlist Spotify shows no items of, this is
        /// the one request that answers its 403).
        case firstPage
        /// Nothing to request: the caller hands the list on itself (a cached copy, an offline miss).
        case local
    }

    struct Request: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case playlistObject
            /// `GET /playlists/{id}?fields=snapshot_id` first, when a cached copy may be current:
            /// a few bytes decide whether the copy is printed, instead of the object with its
            /// first page of entries (about 43 KB) that is thrown away when it is.
            case cacheCheck
            case page(offset: Int)
            /// `GET /playlists/{id}?fields=snapshot_id` once every page has arrived: proves that
            /// nothing changed while the pages were read, so they may be kept.
            case snapshotCheck
        }
        var kind: Kind
        /// Answers of an earlier attempt (before a fallback) are ignored.
        var epoch: Int
    }

    /// What an answer was, as the scheduler tells it.
    enum Answer: Sendable {
        case page(Page)
        /// The playlist object: its snapshot_id, and its embedded first page, nil when Spotify sent
        /// none (or one that is not a clean first page), as for playlists you neither own nor
        /// collaborate on. A catalogue object answers the same way, without a snapshot_id.
        /// `source`: the object without its page, handed on with the first page.
        case playlistObject(snapshot: String?, firstPage: Page?, source: JSONValue? = nil)
        case snapshot(String?)
        /// The first request's status was one handed back (403, 404) for the caller to explain.
        case refused(HTTPResult)
        /// The request failed for good (after its retries); handed on as an error in its turn.
        case failed(any Error)
    }

    /// What the list hands on, in order.
    enum Delivery: Sendable {
        case page(Page)
        /// The list's total moved while it was read (told once, before the page that showed it).
        case totalChanged(was: Int, now: Int)
        case refused(HTTPResult)
        case failed(any Error)
        /// A `.local` list's turn.
        case local
        /// The playlist object names the snapshot the cache holds: print the copy instead.
        case cachedCopyIsCurrent
        /// Every page was handed on. `total`: the first answer's. `keep`: whether the pages may
        /// be kept, when the caller wants to keep them.
        case end(total: Int, keep: Keep)
        /// After `.end(keep: .afterCheck)`, once the snapshot check answered (the output has
        /// moved on to later lists meanwhile): the snapshot_id the pages provably belong to, or nil.
        case checked(keepUnder: String?)
        /// The snapshot check names another version than the one the pages started from: the
        /// playlist was edited while it was read, so an item may be missing or repeated even
        /// though its total held. Told before `.end` or `.checked`.
        case changedWhileRead
    }

    enum Keep: Sendable, Equatable {
        case no
        /// Every page provably belongs to this snapshot_id.
        case under(String)
        /// The snapshot check is still out; `.checked` tells.
        case afterCheck
    }

    /// How the pages are asked for: the query after `offset` and `limit`, and for a playlist the
    /// `fields` filter of its object.
    struct Queries: Sendable {
        var page: [(String, String)]
        var object: [(String, String)]

        init(page: [(String, String)] = [], object: [(String, String)] = []) {
            self.page = page
            self.object = object
        }
    }

    /// How many entries the playlist object is assumed to embed when later pages are planned
    /// before it answers (seen: 100; `/items` pages hold 50). A different size is made good
    /// when the object answers: a gap is fetched, an overlap is dropped.
    static let assumedEmbeddedCount = 100

    let target: Target
    let start: Start
    let queries: Queries
    /// Items per page request (50; `/artists/{id}/albums` gives at most 10 since 2026).
    let pageSize: Int
    /// Whether the caller wants to keep the pages in the snapshot cache (then a snapshot check may
    /// follow the pages).
    let keep: Bool
    /// Statuses of the first request handed back as `.refused` rather than failing the run.
    let passingOnFirst: Set<Int>
    /// A playlist of more than one answer is checked after its pages even when nothing will be
    /// kept: an edit that leaves the total as it was shows only in its snapshot_id.
    var checksEdits: Bool {
        if case .playlist = target { true } else { false }
    }
    /// A snapshot_id known before any request of this run: a piped record's (maybe stale), or
    /// one this run was just told (`spotify-playlists get`). A check equal to it after the pages
    /// proves that nothing changed from before the first page to after the last.
    let snapshotBefore: String?
    /// The snapshot of a usable cached copy: when the playlist object names it (and no page was
    /// asked for yet), the copy is printed instead.
    let cachedSnapshot: String?

    private(set) var epoch = 0
    private var first: First = .waiting
    /// The first page's total: every other page is compared with it.
    private(set) var referenceTotal: Int?
    /// A total known before any request (a record's `items_total`), for planning only.
    private var expectedTotal: Int?
    private var objectSnapshot: String?
    /// The object without its embedded page, for the first page handed on.
    private var objectSource: JSONValue?
    /// Later pages were asked for before the object answered (planned from a record).
    private var pagesBeforeObject = false
    /// Offsets of the pages to hand on, in order (0 first), and how far that has got.
    private var sequence: [Int] = []
    private var handed = 0
    /// The next position to hand on: items of a page below it were handed on already (overlap).
    private var nextPosition = 0
    /// Requests ready to send, and those sent and not yet answered.
    private var ready: [Request.Kind] = []
    private var sent: Set<Request.Kind> = []
    private var arrived: [Int: Result<Page, any Error>] = [:]
    private var totalMoved = false
    private var totalChangeTold = false
    /// A page other than the first brought items (so one answer alone does not prove the version).
    private var itemsBeyondFirst = false
    private var check: Check = .none
    /// Everything was handed on but the snapshot check's verdict.
    private(set) var isFinished = false
    /// Nothing more to come.
    private(set) var isSettled = false

    private enum First {
        case waiting
        case answered
        case refused(HTTPResult)
        case failed(any Error)
        case cached
        case local
    }

    private enum Check: Equatable {
        case none, sent
        case answered(String?)
    }

    /// `expectedTotal`: a record's `items_total`, to plan every page at once. `passing`: statuses
    /// of the first request to hand back (default: 403 and 404 for a playlist, none otherwise).
    init(
        target: Target, start: Start, queries: Queries = Queries(), expectedTotal: Int? = nil, keep: Bool = false,
        snapshotBefore: String? = nil, cachedSnapshot: String? = nil, passing: Set<Int>? = nil,
        pageSize: Int = PagePlan.pageSize
    ) {
        self.target = target
        self.pageSize = max(1, pageSize)
        switch (passing, target) {
        case (let passing?, _): passingOnFirst = passing
        case (nil, .playlist): passingOnFirst = [403, 404]
        // An unknown or malformed catalogue id is that source's problem, not the run's.
        case (nil, .object): passingOnFirst = [400, 403, 404]
        case (nil, .pages): passingOnFirst = []
        }
        self.start = start
        self.queries = queries
        self.keep = keep
        self.snapshotBefore = snapshotBefore.flatMap { $0.isEmpty ? nil : $0 }
        self.cachedSnapshot = cachedSnapshot
        self.expectedTotal = expectedTotal.flatMap { PagePlan(total: $0)?.total }
        switch start {
        case .local:
            first = .local
        case .playlistObject where cachedSnapshot != nil && Self.isPlaylist(target):
            ready = [.cacheCheck]
            sequence = [0]
        case .playlistObject:
            ready = [.playlistObject]
            sequence = [0]
            if let expected = self.expectedTotal {
                let offsets = Array(stride(from: Self.assumedEmbeddedCount, to: expected, by: self.pageSize))
                sequence += offsets
                ready += offsets.map { .page(offset: $0) }
            }
        case .firstPage:
            sequence = [0]
            let pages =
                self.expectedTotal.map { PagePlan(total: $0, pageSize: self.pageSize)?.remainingOffsets ?? [] } ?? []
            sequence += pages
            ready = [.page(offset: 0)] + pages.map { .page(offset: $0) }
        }
    }

    static func isPlaylist(_ target: Target) -> Bool {
        if case .playlist = target { true } else { false }
    }

    /// A list with nothing to request, handed on as `.local` in its turn.
    static func local() -> ListRead { ListRead(target: .pages(path: ""), start: .local) }

    // MARK: Requests

    /// The requests ready to send, in the order to send them.
    var readyRequests: [Request] { ready.map { Request(kind: $0, epoch: epoch) } }

    /// The scheduler sent `request`.
    mutating func sending(_ request: Request) {
        guard request.epoch == epoch, let index = ready.firstIndex(of: request.kind) else { return }
        ready.remove(at: index)
        sent.insert(request.kind)
        if request.kind == .snapshotCheck { check = .sent }
        if case .page = request.kind, start == .playlistObject, case .waiting = first, epoch == 0 {
            pagesBeforeObject = true
        }
    }

    /// Whether a request of this list has gone out: `--max-requests` lets a list it started finish,
    /// so a run it stops ends on a list's boundary.
    var hasStarted: Bool { !sent.isEmpty || epoch > 0 }

    /// The requests this list is still expected to send: those ready, and the snapshot check after
    /// the pages of a playlist of more than one answer (`--max-requests` starts a list only when
    /// they fit). A list whose total is not known yet counts its first request only.
    var expectedCost: Int {
        let check: Int
        if case .none = self.check, checksEdits, sequence.count > 1 { check = 1 } else { check = 0 }
        return ready.count + check
    }

    /// Whether `kind`'s status may be handed back (403, 404) rather than fail: the first request.
    func isFirst(_ kind: Request.Kind) -> Bool {
        switch kind {
        case .playlistObject, .cacheCheck: true
        case .page(let offset): offset == 0
        case .snapshotCheck: false
        }
    }

    /// The total a page is checked against when it is asked for: the first answer's, once known.
    /// Before that (pages planned from a record's `items_total`, which may be stale) nil: each
    /// page is then checked against the total it reports itself.
    var planTotal: Int? { referenceTotal }

    /// Where within `lower..<upper` a request sorts among this list's: the first, then by offset,
    /// the snapshot check last.
    static func rank(_ kind: Request.Kind) -> Int {
        switch kind {
        case .playlistObject, .cacheCheck: 0
        case .page(let offset): offset + 1  // offsets stay below PagePlan.maxTotal, well within the ranks
        case .snapshotCheck: ListScheduler.ranksPerList - 1
        }
    }

    /// Whether the output waits for `kind` right now (the first request, the next page to hand
    /// on, the snapshot check): such a request is sent even when the look-ahead is full.
    func isAwaited(_ kind: Request.Kind) -> Bool {
        switch kind {
        case .playlistObject, .cacheCheck, .snapshotCheck: true
        case .page(let offset): handed < sequence.count && sequence[handed] == offset
        }
    }

    /// Whether this list will hand on a failure (its first request failed for good, or a page it
    /// needs did): nothing after it is worth sending.
    var willFail: Bool {
        if isSettled { return false }
        if case .failed = first { return true }
        guard case .answered = first else { return false }
        return arrived.contains { offset, result in
            if case .failure = result { return !isPastTheEnd(offset) }
            return false
        }
    }

    /// A page planned from a stale record total that lies past the real end: not needed.
    private func isPastTheEnd(_ offset: Int) -> Bool {
        guard let referenceTotal else { return false }
        return offset > 0 && offset >= referenceTotal
    }

    /// Answers and pages held, not yet handed on (the look-ahead the scheduler bounds).
    var buffered: Int { arrived.count }

    // MARK: Answers

    /// An answer arrived. False when it was not waited for (an earlier attempt's): ignored.
    @discardableResult
    mutating func receive(_ request: Request, _ answer: Answer) -> Bool {
        guard request.epoch == epoch, !isSettled, sent.remove(request.kind) != nil else { return false }
        switch first {
        case .refused, .failed, .cached, .local: return false  // nothing more of this list is handed on
        case .waiting, .answered: break
        }
        switch (request.kind, answer) {
        case (_, .refused(let result)) where isFirst(request.kind):
            firstFailed(.refused(result))
        case (_, .failed(let error)) where isFirst(request.kind):
            firstFailed(.failed(error))
        case (.cacheCheck, .snapshot(let snapshot)):
            cacheChecked(snapshot: snapshot)
        case (.cacheCheck, _):
            firstFailed(.failed(ToolError.software("the snapshot check answered out of turn")))
        case (.playlistObject, .playlistObject(let snapshot, let page, let source)):
            objectSource = source
            objectArrived(snapshot: snapshot, page: page)
        case (.page(0), .page(let page)):
            firstPageArrived(page)
        case (.page(let offset), .page(let page)):
            arrived[offset] = .success(page)
            if page.total != referenceTotal && referenceTotal != nil { totalMoved = true }
            if !page.items.isEmpty { itemsBeyondFirst = true }
        case (.page(let offset), .failed(let error)):
            arrived[offset] = .failure(error)
        case (.page(let offset), _):
            arrived[offset] = .failure(ToolError.software("page at offset \(offset) answered out of turn"))
        case (.snapshotCheck, .snapshot(let snapshot)):
            check = .answered(snapshot)
        case (.snapshotCheck, _):
            check = .answered(nil)  // no proof: the pages are printed, not kept
        case (.playlistObject, _):
            firstFailed(.failed(ToolError.software("the playlist object answered out of turn")))
        }
        planSnapshotCheck()
        return true
    }

    /// The cached copy is current: printed instead. Otherwise the read goes on as without a copy,
    /// one request later.
    private mutating func cacheChecked(snapshot: String?) {
        if let snapshot, !snapshot.isEmpty, snapshot == cachedSnapshot {
            first = .cached
            ready.removeAll()
            arrived.removeAll()
        } else {
            ready = [.playlistObject]
        }
    }

    private mutating func firstFailed(_ outcome: First) {
        first = outcome
        ready.removeAll()
        arrived.removeAll()
    }

    private mutating func objectArrived(snapshot: String?, page: Page?) {
        objectSnapshot = snapshot.flatMap { $0.isEmpty ? nil : $0 }
        guard let page else {
            // No embedded page: this is a playlist Spotify shows no items of, or an answer we
            // cannot build on. The items endpoint decides, as a read without the object would.
            epoch += 1
            ready = [.page(offset: 0)]
            sent.removeAll()
            arrived.removeAll()
            sequence = [0]
            expectedTotal = nil
            pagesBeforeObject = false
            return
        }
        if !pagesBeforeObject, let cachedSnapshot, objectSnapshot == cachedSnapshot {
            first = .cached
            ready.removeAll()
            arrived.removeAll()
            return
        }
        firstPageArrived(page)
    }

    private mutating func firstPageArrived(_ page: Page) {
        first = .answered
        referenceTotal = page.total
        // Pages planned from a record may have come first: they are compared now.
        if arrived.values.contains(where: { (try? $0.get())?.total ?? page.total != page.total }) { totalMoved = true }
        arrived[0] = .success(page)
        planRemainingPages(total: page.total, firstCount: page.items.count)
    }

    /// With the real total known: asks for what the planned pages do not cover (a gap after a
    /// short embedded page, or pages beyond a stale `items_total`) and drops planned pages that
    /// are now past the end and not yet sent.
    private mutating func planRemainingPages(total: Int, firstCount: Int) {
        let planned = sequence.dropFirst()
        var added: [Int] = []
        var cursor = firstCount
        for offset in planned {
            while cursor < min(offset, total) {
                added.append(cursor)
                cursor += pageSize
            }
            cursor = max(cursor, offset + pageSize)
        }
        while cursor < total {
            added.append(cursor)
            cursor += pageSize
        }
        let unsentPastTheEnd = Set(
            planned.filter { $0 >= total && ready.contains(.page(offset: $0)) })
        ready.removeAll { kind in
            if case .page(let offset) = kind { return unsentPastTheEnd.contains(offset) }
            return false
        }
        sequence = [0] + (planned.filter { !unsentPastTheEnd.contains($0) } + added).sorted()
        ready = (ready + added.map { .page(offset: $0) }).sorted { Self.rank($0) < Self.rank($1) }
    }

    /// What proves the pages' version before the first of them: the snapshot before the run when
    /// pages were asked for before the object answered, else the object's own.
    private var proofBefore: String? {
        if start == .playlistObject && epoch == 0 && !pagesBeforeObject { return objectSnapshot }
        if start == .playlistObject && epoch > 0 { return objectSnapshot ?? snapshotBefore }
        if pagesBeforeObject { return objectSnapshot == snapshotBefore ? snapshotBefore : nil }
        return snapshotBefore
    }

    /// One answer alone holds every item: the object's embedded page, which comes with its snapshot.
    private var oneAnswerHoldsAll: Bool {
        start == .playlistObject && epoch == 0 && !itemsBeyondFirst && !totalMoved
    }

    /// Once every page has arrived, the snapshot check goes out if it can prove anything.
    private mutating func planSnapshotCheck() {
        guard keep || checksEdits, check == .none, case .answered = first, case .playlist = target, sent.isEmpty,
            ready.isEmpty,
            !oneAnswerHoldsAll, !totalMoved, proofBefore != nil,
            !arrived.values.contains(where: { if case .failure = $0 { true } else { false } })  // it will end failed
        else { return }
        ready = [.snapshotCheck]
    }

    // MARK: Handing on

    /// Everything that can be handed on now, in order.
    mutating func takeDeliveries() -> [Delivery] {
        guard !isSettled else { return [] }
        if isFinished {
            guard case .answered(let after) = check else { return [] }
            isSettled = true
            return edited(after: after) + (keep ? [.checked(keepUnder: provenSnapshot(after: after))] : [])
        }
        switch first {
        case .waiting: return []
        case .local: return settle([.local])
        case .cached: return settle([.cachedCopyIsCurrent])
        case .refused(let result): return settle([.refused(result)])
        case .failed(let error): return settle([.failed(error)])
        case .answered: break
        }
        var out: [Delivery] = []
        while handed < sequence.count, let result = arrived.removeValue(forKey: sequence[handed]) {
            let offset = sequence[handed]
            handed += 1
            switch result {
            case .failure where isPastTheEnd(offset):
                continue  // planned from a stale items_total, and not needed after all
            case .failure(let error):
                return settle(out + [.failed(error)])
            case .success(var page):
                if let referenceTotal, page.total != referenceTotal, !totalChangeTold {
                    totalChangeTold = true
                    totalMoved = true
                    out.append(.totalChanged(was: referenceTotal, now: page.total))
                }
                if offset > 0 && page.offset > nextPosition && !totalMoved && !page.items.isEmpty {
                    // Every page is checked against its total, so while the total holds this
                    // cannot happen; if it does, say so rather than print a list with a hole.
                    let gap = ToolError.unavailable(
                        "items \(nextPosition) to \(page.offset - 1) are missing from Spotify's answers; try again")
                    return settle(out + [.failed(gap)])
                }
                if offset > 0 {
                    let overlap = max(0, min(nextPosition - page.offset, page.items.count))
                    if overlap > 0 {
                        page.items.removeFirst(overlap)
                        page.offset += overlap
                    }
                    if page.items.isEmpty { continue }
                }
                nextPosition = page.offset + page.items.count
                if offset == 0 && page.source == nil { page.source = objectSource }
                out.append(.page(page))
            }
        }
        let pagesPending = ready.contains { $0 != .snapshotCheck } || sent.contains { $0 != .snapshotCheck }
        guard handed == sequence.count, !pagesPending else { return out }
        let total = referenceTotal ?? 0
        if totalMoved || (!keep && !checksEdits) { return settle(out + [.end(total: total, keep: .no)]) }
        if oneAnswerHoldsAll {
            return settle(out + [.end(total: total, keep: keep ? objectSnapshot.map(Keep.under) ?? .no : .no)])
        }
        planSnapshotCheck()
        // Without keeping, the check only looks for an edit: the end is `.no`, and a check still
        // out keeps the list open for `.changedWhileRead` without a `.checked`.
        let pending: Keep = keep ? .afterCheck : .no
        switch check {
        case .answered(let after):
            let proven = keep ? provenSnapshot(after: after).map(Keep.under) ?? .no : .no
            return settle(out + edited(after: after) + [.end(total: total, keep: proven)])
        case .sent:
            isFinished = true
            return out + [.end(total: total, keep: pending)]
        case .none:
            if ready.contains(.snapshotCheck) {
                isFinished = true
                return out + [.end(total: total, keep: pending)]
            }
            return settle(out + [.end(total: total, keep: .no)])
        }
    }

    private mutating func settle(_ deliveries: [Delivery]) -> [Delivery] {
        isFinished = true
        isSettled = true
        ready.removeAll()
        return deliveries
    }

    /// `.changedWhileRead` when the check names another version than the pages started from.
    private func edited(after: String?) -> [Delivery] {
        guard !totalMoved, let proof = proofBefore, let after, after != proof else { return [] }
        return [.changedWhileRead]
    }

    /// The snapshot every page belongs to, given the check's answer.
    private func provenSnapshot(after: String?) -> String? {
        let proof = proofBefore
        return !totalMoved && proof != nil && after == proof ? proof : nil
    }
}
