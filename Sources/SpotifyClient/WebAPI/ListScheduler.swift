import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a run's lists come from, and where what they hand on goes. The scheduler asks for the
/// next list only as its look-ahead allows, and hands on one list after another, in order.
protocol ListRunSource {
    /// The run's next list, in output order; nil when there are no more. Called ahead of the
    /// output, so it must not write anything: notes wait for the list's turn.
    mutating func nextList() throws -> ListRead?

    /// What the list at `index` hands on, in order. Returns a list to read instead of this one
    /// from now on (a cached copy that turned out unusable is fetched after all), or nil.
    mutating func deliver(_ delivery: ListRead.Delivery, list index: Int) throws -> ListRead?

    /// Whether `nextList` returned nil only for now: the next lists depend on what a list already
    /// given hands on (an artist's albums, known once its album pages are handed on).
    var isWaiting: Bool { get }

    /// After `nextList` gave nil: nil when the run has no more lists, else a wait that returns
    /// once more may have come (lists still arriving, as lines of standard input do). The
    /// scheduler goes on with the lists it has meanwhile.
    mutating func moreLists() -> (@Sendable () async -> Void)?
}

extension ListRunSource {
    var isWaiting: Bool { false }

    /// A run whose lists are all known at once.
    mutating func moreLists() -> (@Sendable () async -> Void)? { nil }
}

/// One scheduler for every list of a run: all their requests share one `InFlightLimit` (the
/// adaptive window: 4, doubling to 8 while answers are clean; a 429 with a Retry-After pauses
/// every request of the run once, until then, so a rate limit slows the whole run), are sent
/// lowest output position first (list by list, page by page), and what they bring is handed on
/// strictly in order: list after list, page after page, exactly as reading them one at a time would.
///
/// Memory stays bounded: at most twice the window of requests are sent or held ahead of the
/// list being handed on (that list may always have that many of its own, so it never waits for
/// later lists' pages to drain), and at most `listsAhead` lists are planned ahead of it. A request
/// that fails for good is handed on as an error in its turn, and nothing after its list is sent
/// from then on: the output up to it is what a one-at-a-time run prints before failing.
struct ListScheduler: Sendable {
    /// Request ranks within one list (its first request, its pages by offset, the snapshot check);
    /// a request's order is `list index × ranksPerList + rank`.
    static let ranksPerList = 1 << 21
    /// Lists planned ahead of the one being handed on.
    static let listsAhead = 64

    let api: SpotifyWebAPI
    let limit: InFlightLimit

    /// `concurrency`: `--concurrency N`, or nil for the adaptive window.
    init(api: SpotifyWebAPI, concurrency: Int?) {
        self.api = api
        self.limit = api.inFlightLimit(concurrency: concurrency)
    }

    /// What the run's child tasks bring: an answer, or word that more lists may have come.
    enum Event: Sendable {
        case answer(Int, ListRead.Request, ListRead.Answer)
        case moreLists
    }

    /// Reads every list `source` gives, handing on what they bring in order.
    func run<Source: ListRunSource>(_ source: inout Source) async throws {
        try await withThrowingTaskGroup(of: Event.self) { group in
            var run = RunState()
            var tasks = 0  // child tasks not yet collected, including those of abandoned attempts
            var awaitingLists = false  // a child task waits for more lists
            while true {
                let handedOn = try run.handOn(to: &source)
                if run.exhausted && run.lists.isEmpty && run.trailing.isEmpty {
                    group.cancelAll()  // answers of abandoned attempts are not waited for
                    break
                }
                let planned = try run.plan(from: &source, budget: 2 * limit.size)
                // --max-requests: what may still go out, with `tasks` on the wire.
                let room = api.budget?.room(inFlight: tasks)
                for (index, request, call) in run.launchable(budget: 2 * limit.size, room: room) {
                    let slot = InFlightSlot(limit, order: index * Self.ranksPerList + ListRead.rank(request.kind))
                    let api = self.api
                    group.addTask { .answer(index, request, await Self.answer(call, api: api, slot: slot)) }
                    tasks += 1
                }
                if let wait = run.moreLists {
                    run.moreLists = nil
                    if !awaitingLists {
                        awaitingLists = true
                        group.addTask {
                            await wait()
                            return .moreLists
                        }
                    }
                }
                if tasks == 0 && !awaitingLists {
                    // Nothing on the wire: lists that need no request (cached copies) go on at once.
                    guard handedOn || planned else {
                        if run.heldByBudget, let budget = api.budget {
                            throw RequestBudget.Exhausted(limit: budget.limit, sent: budget.used)
                        }
                        throw ToolError.software("list scheduler: list \(run.head) can make no progress")
                    }
                    continue
                }
                switch try await group.next() {
                case nil:
                    return
                case .moreLists?:
                    awaitingLists = false
                case .answer(let index, let request, let answer)?:
                    tasks -= 1
                    try run.receive(index, request, answer, source: &source)
                }
            }
        }
    }

    /// The coordinator's state: lists from `head` on, their requests in flight.
    struct RunState {
        var lists: [ListRead] = []
        /// The index of `lists[0]`, the list being handed on.
        var head = 0
        var exhausted = false
        /// The source has no more lists now, but more may come: how to wait for them.
        var moreLists: (@Sendable () async -> Void)?
        /// The first list that will hand on a failure: nothing after it is planned or sent.
        var stopAt: Int? {
            lists.indices.first { lists[$0].willFail }.map { head + $0 }
        }
        var inFlight: [Int: Int] = [:]
        /// Lists handed on but for their snapshot check, which is answered out of turn.
        var trailing: [Int: ListRead] = [:]
        /// A request was ready but `--max-requests` left no room for it.
        var heldByBudget = false
        /// Whether any list of the run has been started: the first always may, so that a list
        /// costing more than the whole budget still moves each run on.
        var startedAny = false

        /// Requests sent or answers held ahead of the output, for the look-ahead bound.
        func ahead(from first: Int = 0) -> Int {
            var count = 0
            for offset in first..<lists.count {
                count += lists[offset].buffered + inFlight[head + offset, default: 0]
            }
            return count
        }

        /// Hands on what the head list has, and the lists after it as each finishes. Whether
        /// anything was handed on.
        mutating func handOn<Source: ListRunSource>(to source: inout Source) throws -> Bool {
            var any = false
            while !lists.isEmpty {
                for delivery in lists[0].takeDeliveries() {
                    any = true
                    if let replacement = try source.deliver(delivery, list: head) {
                        lists[0] = replacement
                        break
                    }
                }
                guard lists[0].isFinished else { return any }
                let done = lists.removeFirst()
                if done.isSettled {
                    inFlight[head] = nil  // answers of an abandoned attempt still come; they are ignored
                } else {
                    trailing[head] = done
                }
                head += 1
            }
            return any
        }

        /// Takes lists from `source` while the look-ahead has room. Whether any came, or it turned
        /// out there are no more.
        mutating func plan<Source: ListRunSource>(from source: inout Source, budget: Int) throws -> Bool {
            var any = false
            while !exhausted, stopAt == nil, lists.count < ListScheduler.listsAhead, ahead() < budget {
                guard let list = try source.nextList() else {
                    if let wait = source.moreLists() {
                        moreLists = wait
                    } else if !source.isWaiting {
                        exhausted = true
                        any = true  // news too: the run may be over
                    }
                    break
                }
                lists.append(list)
                any = true
            }
            return any
        }

        /// The requests to send now, lowest order first: the head list's while it holds less than
        /// `budget` ahead, then later lists' while the whole run does; at most `room` of them
        /// (`--max-requests`), but for the snapshot checks of lists already handed on, which
        /// finish what is printed so that it is cached.
        mutating func launchable(budget: Int, room: Int? = nil) -> [(Int, ListRead.Request, Call)] {
            var out: [(Int, ListRead.Request, Call)] = []
            heldByBudget = false
            let stopAt = self.stopAt
            for (index, list) in trailing {
                for request in list.readyRequests {
                    out.append((index, request, list.call(for: request)))
                    trailing[index]?.sending(request)
                    inFlight[index, default: 0] += 1
                }
            }
            // --max-requests: lists already started finish (what they still need is set aside); a
            // list starts only when all it is expected to need fits in what is left.
            // (The snapshot checks just taken above are not yet among the run's requests in flight.)
            let checks = out.count
            var left = room.map { room in
                lists.reduce(room - checks) { $1.hasStarted ? $0 - $1.expectedCost : $0 }
                    - trailing.values.reduce(0) { $0 + $1.expectedCost }
            }
            var total = ahead()
            for offset in lists.indices {
                let index = head + offset
                if let stopAt, index > stopAt { break }
                var own = offset == 0 ? ahead(from: 0) - ahead(from: 1) : 0
                for request in lists[offset].readyRequests {
                    let fits = offset == 0 ? own < budget || lists[0].isAwaited(request.kind) : total < budget
                    guard fits else { return out }
                    if let budgetLeft = left, !lists[offset].hasStarted {
                        let cost = lists[offset].expectedCost
                        guard cost <= budgetLeft || !startedAny else {
                            heldByBudget = true
                            return out
                        }
                        left = budgetLeft - cost
                    }
                    startedAny = true
                    out.append((index, request, lists[offset].call(for: request)))
                    lists[offset].sending(request)
                    inFlight[index, default: 0] += 1
                    own += 1
                    total += 1
                }
            }
            return out
        }

        mutating func receive<Source: ListRunSource>(
            _ index: Int, _ request: ListRead.Request, _ answer: ListRead.Answer, source: inout Source
        ) throws {
            if let count = inFlight[index] { inFlight[index] = count > 1 ? count - 1 : nil }
            if var list = trailing[index] {
                list.receive(request, answer)
                for delivery in list.takeDeliveries() { _ = try source.deliver(delivery, list: index) }
                trailing[index] = list.isSettled ? nil : list
                return
            }
            guard index >= head, index - head < lists.count else { return }
            lists[index - head].receive(request, answer)
        }
    }

    /// One request as it goes on the wire, with how to read its answer.
    struct Call: Sendable {
        var path: String
        var query: [(String, String)]
        var kind: ListRead.Request.Kind
        /// Statuses handed back as `.refused` (the list's first request: 403, 404).
        var passing: Set<Int>
        /// What a page is checked against (nil: the first page sets it).
        var planTotal: Int?
        /// Items per page.
        var pageSize = PagePlan.pageSize
        /// Where the object keeps its first page: a playlist's, or a catalogue object's.
        var object: ListRead.CatalogObject?
    }

    static func answer(_ call: Call, api: SpotifyWebAPI, slot: InFlightSlot) async -> ListRead.Answer {
        do {
            return try await api.perform(
                method: "GET", path: call.path, query: call.query, passing: call.passing, slot: slot
            ) { result -> ListRead.Answer in
                guard result.isSuccess else {
                    return call.kind == .snapshotCheck ? .snapshot(nil) : .refused(result)
                }
                switch call.kind {
                case .playlistObject:
                    if let object = call.object { return try readCatalogObject(result.body, object) }
                    return try readPlaylistObject(result.body)
                case .page(let offset):
                    let plan = call.planTotal.flatMap { PagePlan(total: $0, pageSize: call.pageSize) }
                    return .page(try Pager.readPage(result.body, offset: offset, plan: plan, pageSize: call.pageSize))
                case .snapshotCheck, .cacheCheck:
                    let json = try? JSONValue.parse(result.body)
                    return .snapshot(json?["snapshot_id"]?.stringValue)
                }
            }.value
        } catch {
            return .failed(error)
        }
    }

    /// A playlist object: its snapshot_id, and its embedded first page (2026: `items`; legacy:
    /// `tracks`) when that is a clean first page. A body that is not a JSON object is unreadable
    /// (tried again); an embedded page that is missing or not clean is nil, and the items
    /// endpoint is asked instead.
    static func readPlaylistObject(_ body: Data) throws -> ListRead.Answer {
        try Pager.checkPageSize(body, what: "the playlist")
        let json = try SpotifyWebAPI.UnreadableBody.jsonObject(body)
        let snapshot = json["snapshot_id"]?.stringValue
        return .playlistObject(
            snapshot: snapshot, firstPage: embeddedPage(of: json), source: without(["items", "tracks"], json))
    }

    /// A catalogue object: an album or a show with its embedded first page (its own `limit`,
    /// 50), or a track or an episode as the one item of its list.
    static func readCatalogObject(_ body: Data, _ object: ListRead.CatalogObject) throws -> ListRead.Answer {
        let json = try SpotifyWebAPI.UnreadableBody.jsonObject(body)
        guard let key = object.embedded else {
            return .playlistObject(snapshot: nil, firstPage: Page(offset: 0, total: 1, items: [json]))
        }
        return .playlistObject(
            snapshot: nil, firstPage: embeddedPage(of: json, keys: [key]), source: without([key], json))
    }

    /// The object without its (big) embedded page: what records take from it.
    static func without(_ keys: [String], _ object: JSONValue) -> JSONValue? {
        guard var fields = object.objectValue else { return nil }
        for key in keys { fields[key] = nil }
        return .object(fields)
    }

    static func embeddedPage(of playlist: JSONValue, keys: [String] = ["items", "tracks"]) -> Page? {
        for key in keys {
            guard let page = playlist[key], let items = page["items"]?.arrayValue,
                let total = page["total"]?.intValue, PagePlan(total: total) != nil,
                (page["offset"]?.intValue ?? 0) == 0
            else { continue }
            // As full as it promises: its limit, or all of a list that fits in it.
            let limit = page["limit"]?.intValue ?? 0
            let clean =
                limit > 0 ? items.count == min(limit, total) : items.count <= total && (!items.isEmpty || total == 0)
            return clean ? Page(offset: 0, total: total, items: items) : nil
        }
        return nil
    }
}

extension ListRead {
    /// `request` as it goes on the wire.
    func call(for request: Request) -> ListScheduler.Call {
        let first = isFirst(request.kind)
        switch (request.kind, target) {
        case (.playlistObject, .playlist(let id)):
            return ListScheduler.Call(
                path: "/playlists/\(id)", query: queries.object, kind: request.kind, passing: [403, 404],
                planTotal: nil)
        case (.snapshotCheck, .playlist(let id)), (.cacheCheck, .playlist(let id)):
            return ListScheduler.Call(
                path: "/playlists/\(id)", query: [("fields", "snapshot_id")], kind: request.kind, passing: [403, 404],
                planTotal: nil)
        case (.playlistObject, .object(let object)):
            return ListScheduler.Call(
                path: object.path, query: queries.object, kind: request.kind, passing: passingOnFirst, planTotal: nil,
                object: object)
        case (.page(let offset), _):
            let query = [("offset", String(offset)), ("limit", String(pageSize))] + queries.page
            return ListScheduler.Call(
                path: pagesPath, query: query, kind: request.kind, passing: first ? passingOnFirst : [],
                planTotal: first ? nil : planTotal, pageSize: pageSize)
        case (_, .pages(let path)):
            return ListScheduler.Call(path: path, query: [], kind: request.kind, passing: [], planTotal: nil)
        case (.snapshotCheck, .object(let object)), (.cacheCheck, .object(let object)):
            // Never planned: a catalogue object has no snapshot_id to check.
            return ListScheduler.Call(path: object.path, query: [], kind: request.kind, passing: [], planTotal: nil)
        }
    }

    var pagesPath: String {
        switch target {
        case .playlist(let id): "/playlists/\(id)/items"
        case .pages(let path): path
        case .object(let object): object.pagesPath
        }
    }
}
