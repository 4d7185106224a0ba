import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One page of a paged endpoint, as the pager hands it on.
package struct Page: Sendable {
    package var offset: Int
    /// `total` as this page reported it.
    package var total: Int
    package var items: [JSONValue]
    /// The object the items belong to, on the first page of a list read through its object: the
    /// playlist (its `name`), the album whose simplified tracks lack `album`, the show whose
    /// simplified episodes lack `show`; without the embedded page. nil otherwise.
    package var source: JSONValue?
    /// Each item's `TrackRecord(spotify:)`, when the reader built them: a read that keeps a copy
    /// builds them once, for the copy and for what is printed. nil: not built.
    package var itemRecords: [TrackRecord?]?

    package init(offset: Int, total: Int, items: [JSONValue], source: JSONValue? = nil) {
        self.offset = offset
        self.total = total
        self.items = items
        self.source = source
    }

    /// Builds `itemRecords`, for the playlist entries `items` are.
    package mutating func buildItemRecords() {
        itemRecords = items.map { TrackRecord(spotify: PlaylistEntry.item(of: $0)) }
    }

    /// The record of item `index`'s track or episode (`TrackRecord(spotify:)`), built now unless it was.
    package func itemRecord(_ index: Int) -> TrackRecord? {
        if let itemRecords { return itemRecords[index] }
        return TrackRecord(spotify: PlaylistEntry.item(of: items[index]))
    }
}

/// Reads every page of one paged endpoint (`/me/tracks`, `/me/playlists`): a `ListScheduler` run
/// of one list. The first page tells `total`; the rest are fetched concurrently by offset within
/// the adaptive window and handed on strictly in order as soon as the next one in order has
/// arrived, so memory stays flat however long the list is.
///
/// Every page is checked before it is used: JSON, a sane `total`, an `items` list, and as many
/// items as `total` promises for that offset. A page that fails the check is fetched again (with
/// the API's backoff), so the output is what a clean run gives or the run fails; never a silent
/// gap or repeat. When `total` itself changes (the list was edited meanwhile), `onTotalChanged` is
/// told once and the pages are taken as they come.
package struct Pager: Sendable {
    package let api: SpotifyWebAPI
    /// `--concurrency N`; nil adapts (`ConcurrencyWindow`: 4, doubling to 8 while answers are clean).
    package var concurrency: Int?

    package init(api: SpotifyWebAPI, concurrency: Int? = nil) {
        self.api = api
        self.concurrency = concurrency
    }

    package struct Summary: Sendable {
        /// `total` from the first page.
        package var total: Int
        /// The first page's answer when its status was one of `passing` (nothing was handed on).
        package var refused: HTTPResult?
    }

    /// Fetches `path` page by page (`offset`, `limit=50`, then `query`) and calls `body` with each
    /// page in order. `passing`: statuses of the *first* page returned in `Summary.refused` instead
    /// of thrown. `progress` gets items handed on so far and the total.
    package func fetchAll(
        path: String, query: [(String, String)] = [], passing: Set<Int> = [],
        onTotalChanged: @escaping (_ was: Int, _ now: Int) -> Void = { _, _ in },
        progress: @escaping (_ done: Int, _ total: Int) -> Void = { _, _ in },
        body: @escaping (Page) throws -> Void
    ) async throws -> Summary {
        var source = OneList(
            list: ListRead(
                target: .pages(path: path), start: .firstPage, queries: ListRead.Queries(page: query),
                passing: passing),
            onTotalChanged: onTotalChanged, progress: progress, body: body)
        do {
            try await ListScheduler(api: api, concurrency: concurrency).run(&source)
        } catch let exhausted as RequestBudget.Exhausted {
            throw ToolError.tempFail(
                """
                stopped at --max-requests \(exhausted.limit) (\(exhausted.sent) requests sent) after \(source.done) of \
                \(source.summary.total) items of \(path); a list without a snapshot_id is never cached, so reading it \
                whole needs about \((source.summary.total + PagePlan.pageSize - 1) / PagePlan.pageSize) requests
                """
            )
        }
        return source.summary
    }

    /// The one list of a `fetchAll`, handing its pages to the caller.
    struct OneList: ListRunSource {
        var list: ListRead?
        let onTotalChanged: (Int, Int) -> Void
        let progress: (Int, Int) -> Void
        let body: (Page) throws -> Void
        var summary = Summary(total: 0)
        var done = 0

        mutating func nextList() -> ListRead? {
            defer { list = nil }
            return list
        }

        mutating func deliver(_ delivery: ListRead.Delivery, list index: Int) throws -> ListRead? {
            switch delivery {
            case .page(let page):
                if done == 0 { summary.total = page.total }
                try body(page)
                done += page.items.count
                progress(done, summary.total)
            case .totalChanged(let was, let now):
                onTotalChanged(was, now)
            case .refused(let result):
                summary.refused = result
            case .failed(let error):
                throw error
            case .end(let total, _):
                summary.total = total
            case .local, .cachedCopyIsCurrent, .checked, .changedWhileRead:
                break
            }
            return nil
        }
    }

    /// The most a page's answer may hold before it is parsed. 50 entries are about 50 KB (whole
    /// objects with --raw, a few hundred KB); parsing takes some 24 bytes of memory per byte of small
    /// array elements, so 48 KB of gzip decoding to 50 MB of `0,0,…` took 1.2 GB under the 64 MiB
    /// body cap. Not retried: a body read whole and wrong would come the same again.
    static let maxPageBytes = 8 * 1_048_576

    /// The page in `body`, or `UnreadableBody` saying what is wrong with it.
    static func readPage(_ body: Data, offset: Int, plan: PagePlan?, pageSize: Int = PagePlan.pageSize) throws -> Page {
        try checkPageSize(body, what: "the page at offset \(offset)")
        let json = try SpotifyWebAPI.UnreadableBody.jsonObject(body)
        guard let total = json["total"]?.intValue else { throw SpotifyWebAPI.UnreadableBody("the page has no total") }
        guard let reported = PagePlan(total: total, pageSize: pageSize) else {
            throw SpotifyWebAPI.UnreadableBody("the page's total \(total) is out of range")
        }
        guard let items = json["items"]?.arrayValue else {
            throw SpotifyWebAPI.UnreadableBody("the page has no items list")
        }
        // An answer meant for another request (one answer too many on a kept-alive connection
        // shifts every later one) names another offset: read as unreadable, so it is asked again.
        if let answered = json["offset"]?.intValue, answered != offset {
            throw SpotifyWebAPI.UnreadableBody("the answer for offset \(offset) is the page at offset \(answered)")
        }
        // While the total holds, a page must be exactly as full as it promises; a short page
        // would silently lose items. (When the total moved, the list was edited: take what came.)
        let expected = (plan ?? reported).total == total ? reported.expectedCount(at: offset) : nil
        if let expected, items.count != expected {
            throw SpotifyWebAPI.UnreadableBody(
                "the page at offset \(offset) holds \(items.count) items, not \(expected)")
        }
        if items.count > pageSize {
            throw SpotifyWebAPI.UnreadableBody(
                "the page at offset \(offset) holds \(items.count) items, more than \(pageSize)")
        }
        return Page(offset: offset, total: total, items: items)
    }

    /// Refuses an answer far larger than any page (see `maxPageBytes`) before it is parsed.
    static func checkPageSize(_ body: Data, what: String) throws {
        guard body.count > maxPageBytes else { return }
        throw ToolError.unavailable(
            """
            Spotify's answer for \(what) is \(body.count / 1_048_576) MiB, far more than a page holds \
            (at most \(maxPageBytes / 1_048_576) MiB); it was not read
            """
        )
    }
}
