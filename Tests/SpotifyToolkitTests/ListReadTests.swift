import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCore

// MARK: A tiny driver

/// What a list handed on, in a form tests can compare.
private enum Seen: Equatable {
    case page(offset: Int, count: Int)
    case totalChanged(was: Int, now: Int)
    case refused(status: Int)
    case failed(String)
    case local
    case cachedCopyIsCurrent
    case end(total: Int, keep: ListRead.Keep)
    case checked(keepUnder: String?)
    case changedWhileRead
}

private struct PageLost: Error {}

/// The page at `offset` holding `count` items; every item is its position in the list, so the
/// output can be checked for gaps and repeats.
private func page(at offset: Int, count: Int, total: Int) -> Page {
    Page(offset: offset, total: total, items: (offset..<offset + count).map { .int($0) })
}

/// The answer for the page at `offset` of a list of `total` items, as full as the total promises.
private func fullPage(at offset: Int, total: Int) -> ListRead.Answer {
    .page(page(at: offset, count: max(0, min(PagePlan.pageSize, total - offset)), total: total))
}

/// The playlist object's answer, embedding its first `count` entries.
private func object(_ snapshot: String?, embedding count: Int, total: Int) -> ListRead.Answer {
    .playlistObject(snapshot: snapshot, firstPage: page(at: 0, count: count, total: total))
}

private func refusal(_ status: Int) -> HTTPResult {
    HTTPResult(status: status, headers: [:], body: Data())
}

/// Drives one `ListRead` as the scheduler does: sends what is ready, tells it answers, takes
/// what it hands on (and keeps a log of it, and of the item positions handed on).
private final class Reader {
    var list: ListRead
    var log: [Seen] = []
    var positions: [Int] = []

    init(_ list: ListRead) { self.list = list }

    var ready: [ListRead.Request.Kind] { list.readyRequests.map(\.kind) }

    /// Sends every ready request; their kinds, in order.
    @discardableResult
    func sendAll() -> [ListRead.Request.Kind] {
        let requests = list.readyRequests
        for request in requests { list.sending(request) }
        return requests.map(\.kind)
    }

    func send(_ kinds: ListRead.Request.Kind...) {
        for kind in kinds { list.sending(ListRead.Request(kind: kind, epoch: list.epoch)) }
    }

    /// Tells the list an answer, taking nothing; whether it was waited for.
    @discardableResult
    func receive(_ request: ListRead.Request, _ answer: ListRead.Answer) -> Bool {
        list.receive(request, answer)
    }

    /// Tells the list the answer to `kind` (of the current attempt), which must be waited for,
    /// and takes what it hands on.
    @discardableResult
    func answer(
        _ kind: ListRead.Request.Kind, _ answer: ListRead.Answer, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Seen] {
        let accepted = list.receive(ListRead.Request(kind: kind, epoch: list.epoch), answer)
        #expect(accepted, "the answer to \(kind) is waited for", sourceLocation: sourceLocation)
        return take(sourceLocation: sourceLocation)
    }

    func take(sourceLocation: SourceLocation = #_sourceLocation) -> [Seen] {
        let seen = list.takeDeliveries().map { delivery -> Seen in
            switch delivery {
            case .page(let page):
                let items = page.items.map { $0.intValue ?? -1 }
                if let first = items.first {
                    #expect(
                        first == page.offset, "a page's offset is its first item's position",
                        sourceLocation: sourceLocation)
                }
                positions += items
                return .page(offset: page.offset, count: page.items.count)
            case .totalChanged(let was, let now): return .totalChanged(was: was, now: now)
            case .refused(let result): return .refused(status: result.status)
            case .failed(let error): return .failed(String(describing: error))
            case .local: return .local
            case .cachedCopyIsCurrent: return .cachedCopyIsCurrent
            case .end(let total, let keep): return .end(total: total, keep: keep)
            case .checked(let keepUnder): return .checked(keepUnder: keepUnder)
            case .changedWhileRead: return .changedWhileRead
            }
        }
        log += seen
        return seen
    }

    /// Sends and answers everything until nothing is ready, each round's answers in reverse
    /// order, every page as full as `total` promises.
    func answerEverything(total: Int, embedding: Int = ListRead.assumedEmbeddedCount, snapshot: String = "S") {
        for _ in 0..<10 where !list.readyRequests.isEmpty {
            for kind in sendAll().reversed() {
                switch kind {
                case .playlistObject: answer(kind, object(snapshot, embedding: min(embedding, total), total: total))
                case .page(let offset): answer(kind, fullPage(at: offset, total: total))
                case .snapshotCheck, .cacheCheck: answer(kind, .snapshot(snapshot))
                }
            }
        }
    }
}

private func query(_ pairs: [(String, String)]) -> [String] { pairs.map { "\($0)=\($1)" } }

// MARK: Planning and order

@Suite(.tags(.small)) struct ListReadTests {
    @Test func anObjectStartAsksForTheObjectAloneThenForThePagesItsTotalNeeds() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject))
        #expect(reader.sendAll() == [.playlistObject])
        #expect(
            reader.answer(.playlistObject, object("S", embedding: 100, total: 230)) == [.page(offset: 0, count: 100)])
        #expect(reader.ready == [.page(offset: 100), .page(offset: 150), .page(offset: 200)])
    }

    @Test func pagesAreHandedOnInOffsetOrderWhateverOrderTheyArriveInAndTheEndComesLast() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.sendAll()
        #expect(reader.answer(.page(offset: 200), fullPage(at: 200, total: 230)) == [])
        #expect(reader.answer(.page(offset: 100), fullPage(at: 100, total: 230)) == [.page(offset: 100, count: 50)])
        #expect(!reader.list.isFinished)
        #expect(
            reader.answer(.page(offset: 150), fullPage(at: 150, total: 230)) == [
                .page(offset: 150, count: 50), .page(offset: 200, count: 30), .end(total: 230, keep: .no),
            ])
        // Nothing is kept, but the snapshot check still looks for an edit.
        #expect(reader.list.isFinished && !reader.list.isSettled)
        reader.sendAll()
        #expect(reader.answer(.snapshotCheck, .snapshot("S")) == [], "no edit: nothing more to tell")
        #expect(reader.list.isSettled)
        #expect(reader.positions == Array(0..<230))
        #expect(reader.take() == [], "nothing after the end")
    }

    @Test func aRecordTotalPlansEveryPageBeforeTheObjectAnswers() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        #expect(reader.ready == [.playlistObject, .page(offset: 100), .page(offset: 150), .page(offset: 200)])
        reader.sendAll()
        #expect(
            reader.answer(.playlistObject, object("S", embedding: 100, total: 230)) == [.page(offset: 0, count: 100)])
        #expect(reader.ready == [], "the record's total was right: nothing more to ask for")
        for offset in [100, 150, 200] { reader.answer(.page(offset: offset), fullPage(at: offset, total: 230)) }
        #expect(reader.log.last == .end(total: 230, keep: .no))
        #expect(reader.positions == Array(0..<230))
    }

    @Test func aShortEmbeddedPageIsFilledByAGapPage() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 50, total: 230))
        #expect(reader.ready == [.page(offset: 50)])
        reader.sendAll()
        for offset in [200, 150, 100, 50] { reader.answer(.page(offset: offset), fullPage(at: offset, total: 230)) }
        #expect(
            reader.log == [
                .page(offset: 0, count: 50), .page(offset: 50, count: 50), .page(offset: 100, count: 50),
                .page(offset: 150, count: 50), .page(offset: 200, count: 30), .end(total: 230, keep: .no),
            ])
        #expect(reader.positions == Array(0..<230))
    }

    @Test func anEmbeddedPageLongerThanAssumedDropsTheOverlap() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 120, total: 230))
        #expect(reader.ready == [])
        for offset in [100, 150, 200] { reader.answer(.page(offset: offset), fullPage(at: offset, total: 230)) }
        #expect(
            reader.log == [
                .page(offset: 0, count: 120), .page(offset: 120, count: 30), .page(offset: 150, count: 50),
                .page(offset: 200, count: 30), .end(total: 230, keep: .no),
            ])
        #expect(reader.positions == Array(0..<230))
    }

    @Test func anEmbeddedPageCoveringAPlannedPageSkipsIt() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 160, total: 230))
        for offset in [100, 150, 200] { reader.answer(.page(offset: offset), fullPage(at: offset, total: 230)) }
        #expect(
            reader.log == [
                .page(offset: 0, count: 160), .page(offset: 160, count: 40), .page(offset: 200, count: 30),
                .end(total: 230, keep: .no),
            ])
        #expect(reader.positions == Array(0..<230))
    }

    /// Whatever the record said and however much the object embeds, every position comes exactly
    /// once, in order, and the end tells the real total.
    @Test(arguments: [nil, 0, 60, 120, 230, 300] as [Int?], [0, 40, 100, 120, 230, 260])
    func everyPlanGivesEachPositionExactlyOnce(expected: Int?, real: Int) {
        for embedding in [1, 50, 100, 120, 160] {
            let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: expected))
            reader.answerEverything(total: real, embedding: embedding)
            #expect(reader.list.isSettled, "embedding \(embedding)")
            #expect(reader.positions == Array(0..<real), "embedding \(embedding)")
            #expect(reader.log.first == .page(offset: 0, count: min(embedding, real)), "embedding \(embedding)")
            #expect(reader.log.last == .end(total: real, keep: .no), "embedding \(embedding)")
        }
    }

    @Test func pagesPlannedPastAStaleLargerTotalAreDroppedOrSkipped() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 300))
        #expect(reader.ready == [.playlistObject] + [100, 150, 200, 250].map { .page(offset: $0) })
        reader.send(.playlistObject, .page(offset: 100), .page(offset: 150))
        reader.answer(.playlistObject, object("S", embedding: 100, total: 120))
        #expect(reader.ready == [], "the unsent pages past 120 are not asked for")
        #expect(reader.answer(.page(offset: 150), fullPage(at: 150, total: 120)) == [])
        #expect(
            reader.answer(.page(offset: 100), fullPage(at: 100, total: 120)) == [
                .page(offset: 100, count: 20), .end(total: 120, keep: .no),
            ])
        #expect(
            reader.log == [.page(offset: 0, count: 100), .page(offset: 100, count: 20), .end(total: 120, keep: .no)])
        #expect(!reader.receive(ListRead.Request(kind: .page(offset: 200), epoch: 0), fullPage(at: 200, total: 120)))
    }

    @Test func theFirstPageIsHandedOnEvenWhenEmpty() {
        let playlist = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 300))
        playlist.answerEverything(total: 0)
        #expect(playlist.log == [.page(offset: 0, count: 0), .end(total: 0, keep: .no)])

        let liked = Reader(ListRead(target: .pages(path: "/me/tracks"), start: .firstPage))
        liked.answerEverything(total: 0)
        #expect(liked.log == [.page(offset: 0, count: 0), .end(total: 0, keep: .no)])
    }

    @Test func aStaleSmallerTotalIsExtendedOnceTheObjectAnswers() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 120))
        #expect(reader.sendAll() == [.playlistObject, .page(offset: 100)])
        reader.answer(.playlistObject, object("S", embedding: 100, total: 260))
        #expect(reader.ready == [.page(offset: 150), .page(offset: 200), .page(offset: 250)])
        reader.answerEverything(total: 260)
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 260))
        #expect(reader.positions == Array(0..<260))
        #expect(reader.log.last == .end(total: 260, keep: .no))
    }

    // MARK: Fallback, cache, failures

    @Test func anObjectWithoutItsItemsFallsBackToTheItemsEndpointAndIgnoresTheEarlierAttempt() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        reader.sendAll()
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 230))
        #expect(reader.answer(.playlistObject, .playlistObject(snapshot: "S", firstPage: nil)) == [])
        #expect(reader.list.epoch == 1)
        #expect(reader.list.readyRequests == [ListRead.Request(kind: .page(offset: 0), epoch: 1)])
        #expect(reader.list.isFirst(.page(offset: 0)))
        #expect(!reader.receive(ListRead.Request(kind: .page(offset: 150), epoch: 0), fullPage(at: 150, total: 230)))
        #expect(
            !reader.receive(
                ListRead.Request(kind: .playlistObject, epoch: 0), object("S", embedding: 100, total: 230)))
        #expect(reader.take() == [])
        reader.sendAll()
        #expect(reader.answer(.page(offset: 0), .refused(refusal(403))) == [.refused(status: 403)])
        #expect(reader.list.isFinished && reader.list.isSettled)
        #expect(reader.ready == [])
    }

    @Test func aFallbackReadsEveryPageFromTheItemsEndpoint() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject))
        reader.sendAll()
        reader.answer(.playlistObject, .playlistObject(snapshot: "S", firstPage: nil))
        reader.sendAll()
        reader.answer(.page(offset: 0), fullPage(at: 0, total: 120))
        #expect(reader.ready == [.page(offset: 50), .page(offset: 100)])
        reader.answerEverything(total: 120)
        #expect(reader.positions == Array(0..<120))
        #expect(reader.log.last == .end(total: 120, keep: .no))
    }

    /// A cached copy is checked with `fields=snapshot_id` alone, not with the object and its
    /// first page of entries, and printed when current: one request of a few bytes.
    @Test func aCachedCopyIsCheckedBySnapshotAloneAndServed() {
        let list = ListRead(target: .playlist(id: "p"), start: .playlistObject, cachedSnapshot: "S")
        #expect(list.readyRequests.map(\.kind) == [.cacheCheck])
        let call = list.call(for: list.readyRequests[0])
        #expect(call.path == "/playlists/p")
        #expect(call.query.map { "\($0.0)=\($0.1)" } == ["fields=snapshot_id"])
        let reader = Reader(list)
        reader.send(.cacheCheck)
        #expect(reader.answer(.cacheCheck, .snapshot("S")) == [.cachedCopyIsCurrent])
        #expect(reader.list.isFinished && reader.list.isSettled)
        #expect(reader.ready == [], "nothing else is asked for")
    }

    @Test func aCachedCopyOfAnotherSnapshotIsReadAsWithoutOneARequestLater() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, cachedSnapshot: "OLD"))
        reader.sendAll()
        #expect(reader.answer(.cacheCheck, .snapshot("S")) == [])
        #expect(reader.ready == [.playlistObject])
        reader.sendAll()
        #expect(
            reader.answer(.playlistObject, object("S", embedding: 30, total: 30)) == [
                .page(offset: 0, count: 30), .end(total: 30, keep: .no),
            ])
    }

    @Test func aCachedCopyOfAChangedLongPlaylistReadsEveryPage() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, cachedSnapshot: "OLD"))
        reader.sendAll()
        reader.answer(.cacheCheck, .snapshot("NEW"))
        reader.sendAll()
        #expect(
            reader.answer(.playlistObject, object("NEW", embedding: 100, total: 230)) == [.page(offset: 0, count: 100)])
        reader.sendAll()
        for offset in [100, 150, 200] { reader.answer(.page(offset: offset), fullPage(at: offset, total: 230)) }
        #expect(reader.positions == Array(0..<230))
    }

    @Test func aCachedPlaylistThatIsGoneIsRefusedByItsCheck() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, cachedSnapshot: "S"))
        reader.sendAll()
        let gone = HTTPResult(status: 404, headers: [:], body: Data())
        #expect(reader.answer(.cacheCheck, .refused(gone)) == [.refused(status: 404)])
        #expect(reader.list.isSettled)
    }

    @Test func aFailedLaterPageIsHandedOnInItsTurnAndSettlesTheList() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.sendAll()
        #expect(reader.answer(.page(offset: 150), .failed(PageLost())) == [])
        #expect(reader.list.isAwaited(.page(offset: 100)))
        #expect(
            reader.answer(.page(offset: 100), fullPage(at: 100, total: 230)) == [
                .page(offset: 100, count: 50), .failed(String(describing: PageLost())),
            ])
        #expect(reader.list.isFinished && reader.list.isSettled)
        #expect(!reader.receive(ListRead.Request(kind: .page(offset: 200), epoch: 0), fullPage(at: 200, total: 230)))
        #expect(reader.take() == [])
    }

    @Test func aFailedFirstRequestIsHandedOnAtOnce() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        reader.sendAll()
        #expect(reader.answer(.playlistObject, .failed(PageLost())) == [.failed(String(describing: PageLost()))])
        #expect(reader.list.isSettled)
        #expect(!reader.receive(ListRead.Request(kind: .page(offset: 100), epoch: 0), fullPage(at: 100, total: 230)))
    }

    @Test func aRefusedFirstPageOfAPlainEndpointIsHandedBack() {
        let reader = Reader(ListRead(target: .pages(path: "/me/playlists"), start: .firstPage, passing: [404]))
        reader.sendAll()
        #expect(reader.answer(.page(offset: 0), .refused(refusal(404))) == [.refused(status: 404)])
        #expect(reader.list.isSettled)
    }

    @Test func anAnswerNotWaitedForIsIgnored() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject))
        let objectRequest = ListRead.Request(kind: .playlistObject, epoch: 0)
        #expect(!reader.receive(objectRequest, object("S", embedding: 10, total: 10)), "not sent yet")
        reader.sendAll()
        #expect(reader.receive(objectRequest, object("S", embedding: 10, total: 10)))
        #expect(!reader.receive(objectRequest, object("S", embedding: 10, total: 10)), "answered already")
    }

    @Test func aLocalListHandsOnItsTurnOnce() {
        let reader = Reader(ListRead.local())
        #expect(reader.ready == [])
        #expect(reader.take() == [.local])
        #expect(reader.list.isFinished && reader.list.isSettled)
        #expect(reader.take() == [])
    }

    // MARK: Keeping the pages

    @Test func anObjectHoldingEveryItemIsKeptUnderItsOwnSnapshotWithoutACheck() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, keep: true))
        reader.sendAll()
        #expect(
            reader.answer(.playlistObject, object("S", embedding: 80, total: 80)) == [
                .page(offset: 0, count: 80), .end(total: 80, keep: .under("S")),
            ])
        #expect(reader.list.isSettled)
        #expect(reader.ready == [])
    }

    @Test(arguments: [("S", "S", false), ("T", nil, true), (nil, nil, false)] as [(String?, String?, Bool)])
    func laterPagesAreProvedByASnapshotCheckSentOnceTheyAllArrived(checked: String?, keptUnder: String?, edited: Bool) {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, keep: true))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.sendAll()
        reader.answer(.page(offset: 200), fullPage(at: 200, total: 230))
        #expect(reader.ready == [])
        reader.answer(.page(offset: 150), fullPage(at: 150, total: 230))
        #expect(reader.ready == [], "not before every page arrived")
        #expect(
            reader.answer(.page(offset: 100), fullPage(at: 100, total: 230)) == [
                .page(offset: 100, count: 50), .page(offset: 150, count: 50), .page(offset: 200, count: 30),
                .end(total: 230, keep: .afterCheck),
            ])
        #expect(reader.ready == [.snapshotCheck])
        #expect(reader.list.isFinished && !reader.list.isSettled)
        reader.sendAll()
        #expect(reader.take() == [], "the check is still out")
        #expect(
            reader.answer(.snapshotCheck, .snapshot(checked))
                == (edited ? [.changedWhileRead] : []) + [.checked(keepUnder: keptUnder)])
        #expect(reader.list.isSettled)
        #expect(reader.positions == Array(0..<230))
    }

    @Test func aCheckAnsweredBeforeTheLastPageIsHandedOnIsFoldedIntoTheEnd() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, keep: true))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 130))
        reader.sendAll()
        // Nothing is taken until the check answered.
        reader.receive(ListRead.Request(kind: .page(offset: 100), epoch: 0), fullPage(at: 100, total: 130))
        #expect(reader.ready == [.snapshotCheck])
        reader.sendAll()
        reader.receive(ListRead.Request(kind: .snapshotCheck, epoch: 0), .snapshot("S"))
        #expect(reader.take() == [.page(offset: 100, count: 30), .end(total: 130, keep: .under("S"))])
        #expect(reader.list.isSettled)
    }

    @Test func pagesAskedForBeforeTheObjectAreProvedFromTheRecordsSnapshot() {
        let reader = Reader(
            ListRead(
                target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230, keep: true,
                snapshotBefore: "S"))
        reader.sendAll()
        reader.answer(.page(offset: 150), fullPage(at: 150, total: 230))
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 230))
        #expect(reader.ready == [])
        reader.answer(.page(offset: 200), fullPage(at: 200, total: 230))
        #expect(reader.ready == [.snapshotCheck])
        #expect(reader.log.last == .end(total: 230, keep: .afterCheck))
        reader.sendAll()
        #expect(reader.answer(.snapshotCheck, .snapshot("S")) == [.checked(keepUnder: "S")])
    }

    @Test func pagesAskedForBeforeAnObjectOfAnotherSnapshotAreNotKept() {
        let reader = Reader(
            ListRead(
                target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230, keep: true,
                snapshotBefore: "S"))
        reader.sendAll()
        reader.answer(.playlistObject, object("T", embedding: 100, total: 230))
        for offset in [100, 150, 200] { reader.answer(.page(offset: offset), fullPage(at: offset, total: 230)) }
        #expect(reader.ready == [], "no check: nothing it says could prove the pages")
        #expect(reader.log.last == .end(total: 230, keep: .no))
        #expect(reader.list.isSettled)
    }

    @Test func pagesAskedForBeforeTheObjectWithoutARecordSnapshotAreNotKept() {
        let reader = Reader(
            ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230, keep: true))
        reader.answerEverything(total: 230)
        #expect(!reader.log.contains(.end(total: 230, keep: .afterCheck)))
        #expect(reader.log.last == .end(total: 230, keep: .no))
        #expect(reader.list.isSettled)
    }

    @Test(arguments: [("S", "S", false), ("T", nil, true)] as [(String, String?, Bool)])
    func aFirstPageStartIsProvedFromTheSnapshotKnownBefore(checked: String, keptUnder: String?, edited: Bool) {
        let reader = Reader(
            ListRead(target: .playlist(id: "p"), start: .firstPage, keep: true, snapshotBefore: "S"))
        #expect(reader.sendAll() == [.page(offset: 0)])
        reader.answer(.page(offset: 0), fullPage(at: 0, total: 120))
        #expect(reader.sendAll() == [.page(offset: 50), .page(offset: 100)])
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 120))
        #expect(reader.ready == [])
        reader.answer(.page(offset: 50), fullPage(at: 50, total: 120))
        #expect(reader.ready == [.snapshotCheck])
        #expect(reader.log.last == .end(total: 120, keep: .afterCheck))
        reader.sendAll()
        #expect(
            reader.answer(.snapshotCheck, .snapshot(checked))
                == (edited ? [.changedWhileRead] : []) + [.checked(keepUnder: keptUnder)])
    }

    @Test func aSinglePageOfAFirstPageStartStillNeedsTheCheck() {
        let reader = Reader(
            ListRead(target: .playlist(id: "p"), start: .firstPage, keep: true, snapshotBefore: "S"))
        reader.sendAll()
        #expect(
            reader.answer(.page(offset: 0), fullPage(at: 0, total: 20)) == [
                .page(offset: 0, count: 20), .end(total: 20, keep: .afterCheck),
            ])
        #expect(reader.ready == [.snapshotCheck])
    }

    @Test func aTotalThatMovesIsToldOnceBeforeItsPageAndNothingIsKept() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, keep: true))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.sendAll()
        reader.answer(.page(offset: 200), fullPage(at: 200, total: 231))
        reader.answer(.page(offset: 150), fullPage(at: 150, total: 231))
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 230))
        #expect(
            reader.log == [
                .page(offset: 0, count: 100), .page(offset: 100, count: 50), .totalChanged(was: 230, now: 231),
                .page(offset: 150, count: 50), .page(offset: 200, count: 31), .end(total: 230, keep: .no),
            ])
        #expect(reader.ready == [], "no snapshot check")
        #expect(reader.list.isSettled)
    }

    @Test func aTotalThatMovedBeforeTheObjectAnsweredIsToldAndNothingIsKept() {
        let reader = Reader(
            ListRead(
                target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230, keep: true,
                snapshotBefore: "S"))
        reader.sendAll()
        reader.answer(.page(offset: 150), fullPage(at: 150, total: 229))
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 230))
        reader.answer(.page(offset: 200), fullPage(at: 200, total: 230))
        #expect(
            reader.log == [
                .page(offset: 0, count: 100), .page(offset: 100, count: 50), .totalChanged(was: 230, now: 229),
                .page(offset: 150, count: 50), .page(offset: 200, count: 30), .end(total: 230, keep: .no),
            ])
        #expect(reader.ready == [])
    }

    /// Nothing is kept, yet the check is asked once every page arrived, and a version other
    /// than the one the pages started from is told as an edit, even though the total held.
    @Test(arguments: [("S", false), ("T", true)] as [(String, Bool)])
    func withoutKeepTheCheckStillLooksForAnEdit(checked: String, edited: Bool) {
        for start in [ListRead.Start.playlistObject, .firstPage] {
            let reader = Reader(
                ListRead(target: .playlist(id: "p"), start: start, expectedTotal: 230, snapshotBefore: "S"))
            var asked: [ListRead.Request.Kind] = []
            for _ in 0..<10 where !reader.list.readyRequests.isEmpty {
                let sent = reader.sendAll()
                asked += sent
                for kind in sent.reversed() {
                    switch kind {
                    case .playlistObject: reader.answer(kind, object("S", embedding: 100, total: 230))
                    case .page(let offset): reader.answer(kind, fullPage(at: offset, total: 230))
                    case .snapshotCheck, .cacheCheck: reader.answer(kind, .snapshot(checked))
                    }
                }
            }
            #expect(asked.filter { $0 == .snapshotCheck }.count == 1, "\(start)")
            #expect(!reader.log.contains { if case .checked = $0 { true } else { false } }, "nothing to keep")
            #expect(reader.log.contains(.changedWhileRead) == edited, "\(start): \(reader.log)")
            #expect(reader.log.contains(.end(total: 230, keep: .no)), "\(start)")
            #expect(reader.list.isSettled)
            #expect(reader.positions == Array(0..<230), "\(start)")
        }
    }

    @Test func aPlainPagedEndpointIsNeverChecked() {
        let reader = Reader(ListRead(target: .pages(path: "/me/tracks"), start: .firstPage, keep: true))
        reader.answerEverything(total: 120)
        #expect(reader.log.last == .end(total: 120, keep: .no))
        #expect(reader.list.isSettled)
    }

    /// A page that failed for good ends the list with an error: nothing can be kept, so a
    /// snapshot check would be a request for nothing.
    @Test func aFailedPageAsksForNoSnapshotCheck() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, keep: true))
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        reader.sendAll()
        // A list read ahead of the output: its answers all arrive before its turn.
        reader.receive(ListRead.Request(kind: .page(offset: 150), epoch: 0), .failed(PageLost()))
        reader.receive(ListRead.Request(kind: .page(offset: 100), epoch: 0), fullPage(at: 100, total: 230))
        reader.receive(ListRead.Request(kind: .page(offset: 200), epoch: 0), fullPage(at: 200, total: 230))
        #expect(!reader.ready.contains(.snapshotCheck), "the list will end failed: nothing to keep")
        #expect(reader.take() == [.page(offset: 100, count: 50), .failed(String(describing: PageLost()))])
        #expect(reader.list.isSettled && reader.ready == [])
    }

    // MARK: Requests on the wire

    @Test func aPlainPagedEndpointHandsBackNoStatusOfItsFirstPageByDefault() {
        let liked = ListRead(
            target: .pages(path: "/me/tracks"), start: .firstPage, queries: ListRead.Queries(page: [("market", "SE")]))
        #expect(liked.readyRequests.map(\.kind) == [.page(offset: 0)])
        let call = liked.call(for: ListRead.Request(kind: .page(offset: 0), epoch: 0))
        #expect(call.path == "/me/tracks")
        #expect(query(call.query) == ["offset=0", "limit=50", "market=SE"])
        #expect(call.passing == [])
        #expect(call.planTotal == nil)

        let playlist = ListRead(target: .playlist(id: "p"), start: .firstPage)
        let first = playlist.call(for: ListRead.Request(kind: .page(offset: 0), epoch: 0))
        #expect(first.path == "/playlists/p/items")
        #expect(first.passing == [403, 404])

        let chosen = ListRead(target: .pages(path: "/me/playlists"), start: .firstPage, passing: [404])
        #expect(chosen.call(for: ListRead.Request(kind: .page(offset: 0), epoch: 0)).passing == [404])
    }

    @Test func laterPagesArePlannedFromTheFirstPagesTotalAndPassNothing() {
        let reader = Reader(ListRead(target: .pages(path: "/me/tracks"), start: .firstPage))
        reader.sendAll()
        reader.answer(.page(offset: 0), fullPage(at: 0, total: 120))
        #expect(reader.ready == [.page(offset: 50), .page(offset: 100)])
        let call = reader.list.call(for: ListRead.Request(kind: .page(offset: 50), epoch: 0))
        #expect(query(call.query) == ["offset=50", "limit=50"])
        #expect(call.passing == [])
        #expect(call.planTotal == 120)
        #expect(!reader.list.isFirst(.page(offset: 50)))
    }

    @Test func aRecordTotalPlansEveryPageOfAFirstPageStart() {
        let list = ListRead(target: .playlist(id: "p"), start: .firstPage, expectedTotal: 120)
        #expect(list.readyRequests.map(\.kind) == [.page(offset: 0), .page(offset: 50), .page(offset: 100)])
        // The record's total only plans: pages are checked against the total they report until
        // the first answer tells the real one (a stale record must not relax the check).
        #expect(list.planTotal == nil)
    }

    @Test func theObjectAndTheCheckAskThePlaylistItself() {
        let list = ListRead(
            target: .playlist(id: "p"), start: .playlistObject,
            queries: ListRead.Queries(object: [("fields", "snapshot_id,items(total)")]))
        let objectCall = list.call(for: ListRead.Request(kind: .playlistObject, epoch: 0))
        #expect(objectCall.path == "/playlists/p")
        #expect(query(objectCall.query) == ["fields=snapshot_id,items(total)"])
        #expect(objectCall.passing == [403, 404])
        let check = list.call(for: ListRead.Request(kind: .snapshotCheck, epoch: 0))
        #expect(check.path == "/playlists/p")
        #expect(query(check.query) == ["fields=snapshot_id"])
    }

    @Test func theOutputAwaitsTheObjectTheCheckAndTheNextPageInTurnOnly() {
        let reader = Reader(ListRead(target: .playlist(id: "p"), start: .playlistObject, expectedTotal: 230))
        #expect(reader.list.isAwaited(.playlistObject))
        #expect(reader.list.isAwaited(.snapshotCheck))
        #expect(!reader.list.isAwaited(.page(offset: 100)), "the output waits for the object first")
        reader.sendAll()
        reader.answer(.playlistObject, object("S", embedding: 100, total: 230))
        #expect(reader.list.isAwaited(.page(offset: 100)))
        #expect(!reader.list.isAwaited(.page(offset: 150)))
        #expect(!reader.list.isAwaited(.page(offset: 200)))
        reader.answer(.page(offset: 100), fullPage(at: 100, total: 230))
        #expect(!reader.list.isAwaited(.page(offset: 100)))
        #expect(reader.list.isAwaited(.page(offset: 150)))
    }

    @Test func requestsRankTheFirstThenPagesByOffsetThenTheCheck() {
        let ranks = [
            ListRead.Request.Kind.playlistObject, .page(offset: 0), .page(offset: 50), .page(offset: 100),
            .page(offset: PagePlan.maxTotal - 50), .snapshotCheck,
        ].map(ListRead.rank)
        #expect(ranks == ranks.sorted())
        #expect(Set(ranks).count == ranks.count)
        #expect(ranks.allSatisfy { (0..<ListScheduler.ranksPerList).contains($0) })
    }
}

// MARK: The playlist object's answer

private func readObject(_ text: String) throws -> (snapshot: String?, firstPage: Page?) {
    let answer = try ListScheduler.readPlaylistObject(Data(text.utf8))
    guard case .playlistObject(let snapshot, let firstPage, _) = answer else {
        Issue.record("not a playlist object answer: \(answer)")
        return (nil, nil)
    }
    return (snapshot, firstPage)
}

extension ListReadTests {
    @Suite struct PlaylistObjectReading {
        @Test(arguments: ["", "[1, 2]", "\"S\"", "null", "{\"snapshot_id\": "])
        func aBodyThatIsNotAJSONObjectIsUnreadable(body: String) {
            #expect(throws: SpotifyWebAPI.UnreadableBody.self) { try ListScheduler.readPlaylistObject(Data(body.utf8)) }
        }

        @Test(arguments: ["items", "tracks"])
        func theEmbeddedPageIsTheFirstPage(key: String) throws {
            let read = try readObject(
                #"{"snapshot_id": "S", "\#(key)": {"limit": 100, "offset": 0, "total": 3, "items": ["a", "b", "c"]}}"#)
            #expect(read.snapshot == "S")
            let page = try #require(read.firstPage)
            #expect(page.offset == 0)
            #expect(page.total == 3)
            #expect(page.items == ["a", "b", "c"])
        }

        @Test func anObjectWithoutItemsHasNoFirstPage() throws {
            let read = try readObject(#"{"snapshot_id": "S", "name": "Mix"}"#)
            #expect(read.snapshot == "S")
            #expect(read.firstPage == nil)
        }

        @Test func anObjectWithoutASnapshotStillGivesItsPage() throws {
            let read = try readObject(#"{"items": {"limit": 100, "total": 1, "items": [1]}}"#)
            #expect(read.snapshot == nil)
            #expect(read.firstPage?.items == [1])
        }

        @Test func aFullFirstPageOfALongListIsClean() throws {
            let items = JSONValue.array((0..<100).map { .int($0) })
            let page = try #require(
                ListScheduler.embeddedPage(of: ["items": ["limit": 100, "offset": 0, "total": 230, "items": items]]))
            #expect(page.items.count == 100)
            #expect(page.total == 230)
        }

        @Test(
            arguments: [
                // fewer than min(limit, total)
                ["items": ["limit": 100, "total": 3, "items": ["a", "b"]]],
                ["items": ["limit": 50, "total": 230, "items": .array(Array(repeating: "x", count: 49))]],
                // more than it may hold
                ["items": ["limit": 2, "total": 3, "items": ["a", "b", "c"]]],
                // not the first page
                ["items": ["limit": 100, "offset": 5, "total": 3, "items": ["a", "b", "c"]]],
                // no limit: empty though the list is not, or more than the total
                ["items": ["total": 3, "items": []]],
                ["items": ["total": 1, "items": ["a", "b"]]],
                // a total that is not a count, or none; items that are not a list
                ["items": ["limit": 100, "total": -1, "items": []]],
                ["items": ["limit": 100, "items": ["a"]]],
                ["items": ["limit": 100, "total": 1, "items": "a"]],
                ["tracks": ["limit": 100, "total": 3, "items": ["a"]]],
            ] as [JSONValue])
        func anEmbeddedPageThatIsNotACleanFirstPageIsNil(playlist: JSONValue) {
            #expect(ListScheduler.embeddedPage(of: playlist) == nil)
        }

        @Test(arguments: [
            ["items": ["total": 0, "items": []]] as JSONValue,
            ["items": ["limit": 100, "total": 0, "items": []]],
            ["items": ["total": 2, "items": ["a", "b"]]],
        ])
        func anEmptyOrUnlimitedCleanPageIsKept(playlist: JSONValue) {
            #expect(ListScheduler.embeddedPage(of: playlist) != nil)
        }
    }
}
