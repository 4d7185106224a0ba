import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct PagePlanTests {
    @Test(arguments: [
        (0, 0, [Int]()), (1, 1, []), (50, 1, []), (51, 2, [50]),
        (10_000, 200, Array(stride(from: 50, to: 10_000, by: 50))),
    ])
    func pagesForATotal(total: Int, pages: Int, offsets: [Int]) throws {
        let plan = try #require(PagePlan(total: total))
        #expect(1 + plan.remainingOffsets.count == max(pages, 1))  // the first page is always fetched
        #expect(plan.remainingOffsets == offsets)
        // Every item is on exactly one page.
        let counted = ([0] + offsets).map(plan.expectedCount(at:)).reduce(0, +)
        #expect(counted == total)
    }

    @Test func expectedCountsAtTheEdges() throws {
        let plan = try #require(PagePlan(total: 51))
        #expect(plan.expectedCount(at: 0) == 50)
        #expect(plan.expectedCount(at: 50) == 1)
        #expect(plan.expectedCount(at: 100) == 0)
    }

    @Test(arguments: [-1, Int.min, PagePlan.maxTotal + 1, Int.max])
    func totalsThatAreNotCountsAreRefused(total: Int) {
        #expect(PagePlan(total: total) == nil)
    }
}

@Suite(.tags(.small)) struct ConcurrencyWindowTests {
    @Test func startsAtFourAndTheFirstCleanAnswerTakesItToEightNeverBeyond() {
        var window = ConcurrencyWindow()
        #expect(window.size == 4)
        var sizes: [Int] = []
        for _ in 0..<100 {
            window.recordClean()
            sizes.append(window.size)
        }
        #expect(sizes.max() == 8)
        #expect(Array(sizes.prefix(3)) == [8, 8, 8], "slow start: doubles with a clean answer until the first 429")
        #expect(sizes == sizes.sorted(), "never shrinks without a 429")
    }

    @Test func halvesOnARateLimitDownToOneAndRegrowsOneAtATime() {
        var window = ConcurrencyWindow()
        window.recordRateLimited()
        #expect(window.size == 2)
        window.recordRateLimited()
        window.recordRateLimited()
        #expect(window.size == 1)
        window.recordClean()
        #expect(window.size == 2, "grows again after one clean answer at size 1")
        for _ in 0..<2 { window.recordClean() }
        #expect(window.size == 3, "after a 429, one more only after as many clean answers as it allows")
        var sizes: [Int] = []
        for _ in 0..<30 {
            window.recordClean()
            sizes.append(window.size)
        }
        #expect(sizes.firstIndex(of: 8) == 3 + 4 + 5 + 6 + 7 - 1)
    }

    @Test func aFixedSizeNeverGrowsButStillHalves() {
        var window = ConcurrencyWindow(fixed: 3)
        for _ in 0..<50 { window.recordClean() }
        #expect(window.size == 3)
        window.recordRateLimited()
        #expect(window.size == 1)
        for _ in 0..<50 { window.recordClean() }
        #expect(window.size == 3)
        #expect(ConcurrencyWindow(fixed: 99).size == 8)
        #expect(ConcurrencyWindow(fixed: 0).size == 1)
    }
}

@Suite(.tags(.small)) struct RetryPolicyTests {
    @Test func backoffIsExponentialCappedAndJittered() {
        let policy = RetryPolicy(baseDelay: 0.25, maxDelay: 8)
        #expect(policy.backoff(afterAttempt: 1, random: 0) == 0.125)
        #expect(policy.backoff(afterAttempt: 1, random: 1) == 0.25)
        #expect(policy.backoff(afterAttempt: 3, random: 1) == 1)
        #expect(policy.backoff(afterAttempt: 30, random: 1) == 8)
        #expect(policy.backoff(afterAttempt: 1_000, random: 0.5) == 6)
        for attempt in 1...10 {
            let low = policy.backoff(afterAttempt: attempt, random: 0)
            let high = policy.backoff(afterAttempt: attempt, random: 0.999)
            #expect(low > 0 && low <= high && high <= 8)
        }
    }

    @Test func rateLimitWaitTakesRetryAfterOrBacksOff() {
        let policy = RetryPolicy()
        #expect(policy.rateLimitWait(retryAfter: SpotifyWebAPI.retryAfterSeconds("7"), attempt: 1, random: 0) == 7)
        #expect(policy.rateLimitWait(retryAfter: SpotifyWebAPI.retryAfterSeconds(" 0 "), attempt: 1, random: 0) == 0)
        for nonsense in [nil, "", "soon", "-3", "nan", "inf", "1e9"] {
            #expect(
                policy.rateLimitWait(retryAfter: SpotifyWebAPI.retryAfterSeconds(nonsense), attempt: 2, random: 1)
                    == 0.5, "\(nonsense ?? "nil")")
        }
    }

    @Test func thousands() {
        #expect(groupedThousands(0) == "0")
        #expect(groupedThousands(999) == "999")
        #expect(groupedThousands(1_250) == "1,250")
        #expect(groupedThousands(10_000) == "10,000")
        #expect(groupedThousands(-1_234_567) == "-1,234,567")
    }
}

@Suite(.tags(.small)) struct PageReadingTests {
    func body(total: Any, count: Int) -> Data {
        let items = (0..<count).map { "{\"n\":\($0)}" }.joined(separator: ",")
        return Data("{\"items\":[\(items)],\"total\":\(total)}".utf8)
    }

    @Test func aFullPageIsRead() throws {
        let plan = try #require(PagePlan(total: 120))
        let page = try Pager.readPage(body(total: 120, count: 50), offset: 50, plan: plan)
        #expect(page.items.count == 50)
        #expect(page.offset == 50)
        let last = try Pager.readPage(body(total: 120, count: 20), offset: 100, plan: plan)
        #expect(last.items.count == 20)
    }

    @Test func aFirstPageSetsThePlan() throws {
        let first = try Pager.readPage(body(total: 3, count: 3), offset: 0, plan: nil)
        #expect(first.total == 3)
    }

    @Test(arguments: [
        ("", "the body is empty"),
        ("{\"items\":[", "not a JSON object"),
        ("[1,2]", "not a JSON object"),
        ("{\"items\":[]}", "no total"),
        ("{\"total\":-5,\"items\":[]}", "out of range"),
        ("{\"total\":99999999999,\"items\":[]}", "out of range"),
        ("{\"total\":120}", "no items list"),
    ])
    func brokenBodiesAreUnreadable(body: String, reason: String) throws {
        let plan = try #require(PagePlan(total: 120))
        let error = #expect(throws: SpotifyWebAPI.UnreadableBody.self) {
            try Pager.readPage(Data(body.utf8), offset: 50, plan: plan)
        }
        #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
    }

    @Test func aShortPageIsUnreadableWhileTheTotalHolds() throws {
        let plan = try #require(PagePlan(total: 120))
        #expect(throws: SpotifyWebAPI.UnreadableBody.self) {
            try Pager.readPage(body(total: 120, count: 49), offset: 50, plan: plan)
        }
        #expect(throws: SpotifyWebAPI.UnreadableBody.self) {
            try Pager.readPage(body(total: 120, count: 3), offset: 0, plan: nil)
        }
        #expect(throws: SpotifyWebAPI.UnreadableBody.self) {
            try Pager.readPage(body(total: 120, count: 51), offset: 50, plan: plan)
        }
    }

    @Test func whenTheTotalMovedThePageIsTakenAsItCame() throws {
        let plan = try #require(PagePlan(total: 120))
        let page = try Pager.readPage(body(total: 119, count: 19), offset: 100, plan: plan)
        #expect(page.total == 119)
        #expect(page.items.count == 19)
    }
}

@Suite(.tags(.small)) struct TextTableTests {
    @Test func fixedAndFlexibleColumnsFillTheWidth() {
        let table = TextTable(
            [
                .fixed("#", width: 3, alignment: .right), .flexible("NAME", weight: 3), .flexible("ARTISTS", weight: 1),
                .fixed("DURATION", width: 8, alignment: .right),
            ], totalWidth: 60)
        #expect(table.widths == [3, 32, 10, 8])  // 60 - 11 fixed - 6 gap = 43, split 3:1
        let line = table.line(["7", "A name", "Somebody", "3:25"])
        #expect(
            line == "  7  " + "A name".padding(toLength: 32, withPad: " ", startingAt: 0) + "  Somebody    "
                + "    3:25")
        #expect(line.count <= 60)
        #expect(table.header.hasPrefix("  #  NAME"))
    }

    @Test func longCellsAreCutAndControlCharactersBlanked() {
        let table = TextTable([.fixed("ID", width: 4), .flexible("NAME")], totalWidth: 16)
        #expect(table.line(["abcdefgh", "a very long name indeed"]) == "abc…  a very lo…")
        #expect(table.line(["x", "two\nlines"]) == "x     two lines")
    }
}
