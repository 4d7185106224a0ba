import Foundation
import HTTPClient
import LoopbackHTTP
import ToolkitCore

/// One page of a paged endpoint, as the pager hands it on.
package struct Page: Sendable {
    package var offset: Int
    /// `total` as this page reported it.
    package var total: Int
    package var items: [JSONValue]
}

/// Reads every page of a paged endpoint: the first page for `total`, then the rest concurrently
/// within a `ConcurrencyWindow`, handing pages on strictly in order as soon as the next one in
/// order has arrived. At most `window.size` requests are on the wire (an `InFlightLimit`), and at
/// most twice that many pages are asked for, in flight or waiting to be handed on, so memory
/// stays flat however long the list is.
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
    /// of thrown (403/404 for playlists the caller explains itself). `progress` gets items handed
    /// on so far and the total.
    package func fetchAll(
        path: String, query: [(String, String)] = [], passing: Set<Int> = [],
        onTotalChanged: (_ was: Int, _ now: Int) -> Void = { _, _ in },
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in },
        body: (Page) throws -> Void
    ) async throws -> Summary {
        // The window caps the requests on the wire and moves with each answer as it arrives.
        let inFlight = InFlightLimit(window: ConcurrencyWindow(fixed: concurrency))
        let first = try await fetch(
            path: path, query: query, offset: 0, plan: nil, passing: passing, slot: InFlightSlot(inFlight, order: -1))
        guard case .value(let firstPage) = first.value else {
            if case .refused(let result) = first.value { return Summary(total: 0, refused: result) }
            throw ToolError.software("pager: no first page")
        }
        guard let plan = PagePlan(total: firstPage.total) else {
            throw ToolError.software("pager: unchecked total")  // fetch() validated it
        }
        var done = firstPage.items.count
        var totalChanged = false
        func handOn(_ page: Page) throws {
            if page.total != plan.total && !totalChanged {
                totalChanged = true
                onTotalChanged(plan.total, page.total)
            }
            try body(page)
            done += page.items.count
            progress(done, plan.total)
        }
        try body(firstPage)
        progress(done, plan.total)

        let offsets = plan.remainingOffsets
        guard !offsets.isEmpty else { return Summary(total: plan.total) }
        // Pages are asked for up to twice the window ahead of the one to hand on next, so the next
        // request is ready when a place frees up.
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            var nextLaunch = 0
            var nextHandOn = 0
            var arrived: [Int: Page] = [:]
            func launch() {
                while nextLaunch < offsets.count && nextLaunch - nextHandOn < 2 * inFlight.size {
                    let index = nextLaunch
                    let offset = offsets[index]
                    let slot = InFlightSlot(inFlight, order: index)
                    group.addTask {
                        (
                            index,
                            try await self.fetch(
                                path: path, query: query, offset: offset, plan: plan, passing: [], slot: slot)
                        )
                    }
                    nextLaunch += 1
                }
            }
            while nextHandOn < offsets.count {
                launch()
                guard let (index, outcome) = try await group.next() else { break }
                guard case .value(let page) = outcome.value else {
                    throw ToolError.software("pager: a later page was refused without a status to pass")
                }
                arrived[index] = page
                launch()  // the next pages are asked for before this one is written, not after
                while let page = arrived.removeValue(forKey: nextHandOn) {
                    try handOn(page)
                    nextHandOn += 1
                }
            }
        }
        return Summary(total: plan.total)
    }

    typealias Outcome = SpotifyWebAPI.Outcome<Answer<Page>>

    /// One page, checked. `plan` is nil for the first page (which sets it).
    func fetch(
        path: String, query: [(String, String)], offset: Int, plan: PagePlan?, passing: Set<Int>,
        slot: InFlightSlot? = nil
    ) async throws -> Outcome {
        let pageQuery = [("offset", String(offset)), ("limit", String(PagePlan.pageSize))] + query
        return try await api.perform(method: "GET", path: path, query: pageQuery, passing: passing, slot: slot) {
            result in
            guard result.isSuccess else { return .refused(result) }
            return .value(try Self.readPage(result.body, offset: offset, plan: plan))
        }
    }

    /// The page in `body`, or `UnreadableBody` saying what is wrong with it.
    static func readPage(_ body: Data, offset: Int, plan: PagePlan?) throws -> Page {
        guard let json = try? JSONValue.parse(body), json.objectValue != nil else {
            throw SpotifyWebAPI.UnreadableBody(
                body.isEmpty ? "the body is empty" : "the body is not a JSON object (\(body.count) bytes)")
        }
        guard let total = json["total"]?.intValue else { throw SpotifyWebAPI.UnreadableBody("the page has no total") }
        guard let reported = PagePlan(total: total) else {
            throw SpotifyWebAPI.UnreadableBody("the page's total \(total) is out of range")
        }
        guard let items = json["items"]?.arrayValue else {
            throw SpotifyWebAPI.UnreadableBody("the page has no items list")
        }
        // While the total holds, a page must be exactly as full as it promises; a short page
        // would silently lose items. (When the total moved, the list was edited: take what came.)
        let expected = (plan ?? reported).total == total ? reported.expectedCount(at: offset) : nil
        if let expected, items.count != expected {
            throw SpotifyWebAPI.UnreadableBody(
                "the page at offset \(offset) holds \(items.count) items, not \(expected)")
        }
        if items.count > PagePlan.pageSize {
            throw SpotifyWebAPI.UnreadableBody(
                "the page at offset \(offset) holds \(items.count) items, more than \(PagePlan.pageSize)")
        }
        return Page(offset: offset, total: total, items: items)
    }
}
