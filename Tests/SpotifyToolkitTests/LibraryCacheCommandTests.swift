import Foundation
import TestSupport
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// A whole library through the snapshot cache, in process against fake-spotify's uniform library
/// (`--library-shape PxN`): a warm re-read costs the listing only, a bound smaller than the
/// library keeps what fits run after run (never evicting what the run reads), and
/// `--max-requests` stops cleanly and goes on where it stopped. Timings are the benchmark's
/// (`make bench-scale`), not these tests'.
@Suite(.tags(.medium)) struct LibraryCacheCommandTests {
    /// 30 playlists of 120 items: 3 requests each when cold (the object, a page, the snapshot check).
    static let shape = ["--library-shape", "30x120"]

    final class Setup {
        let library: Library
        let cacheHome: String
        var extra: [String: String] = [:]

        init() async throws {
            library = try await Library(LibraryCacheCommandTests.shape)
            cacheHome = library.fake.home.url.appendingPathComponent("cache").path
        }

        deinit { library.fake.stop() }

        var environment: [String: String] {
            ["XDG_CACHE_HOME": cacheHome, CachePolicy.sizeVariable: ""].merging(extra) { $1 }
        }

        func run(_ tool: String, _ arguments: [String], stdin: String? = nil) async throws -> ToolRun {
            try await library.run(tool, arguments, stdin: stdin, environment: environment)
        }

        /// Web API requests by route since the last call, then reset.
        func requests() async throws -> [String: Int] {
            let counters = try await library.fake.counters()
            try await library.fake.call("POST", "/_fake/reset-counters")
            var result: [String: Int] = [:]
            for (key, value) in counters["requests"]?.objectValue ?? [:] where key.contains(" /v1/") {
                result[key] = value.intValue ?? 0
            }
            return result
        }

        func total(_ requests: [String: Int]) -> Int { requests.values.reduce(0, +) }

        var entries: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: cacheHome + "/spotify-toolkit/playlists")) ?? [])
                .filter { $0.hasSuffix(".jsonl") }.sorted()
        }
    }

    static let listing = "GET /v1/me/playlists"
    static let object = "GET /v1/playlists/{id}"
    static let items = "GET /v1/playlists/{id}/items"

    @Test func aWarmReReadOfAnUnchangedLibraryCostsTheListingOnly() async throws {
        let setup = try await Setup()
        let playlists = try await setup.run("spotify-playlists", ["--owned"])
        #expect(playlists.status == 0, "\(playlists.stderr)")
        #expect(playlists.stdoutLines.count == 30)
        _ = try await setup.requests()
        let uncached = try await setup.run("spotify-tracks", ["--no-cache"], stdin: playlists.stdout)
        #expect(uncached.status == 0, "\(uncached.stderr)")
        #expect(uncached.stdoutLines.count == 3600)
        _ = try await setup.requests()

        let cold = try await setup.run("spotify-tracks", [], stdin: playlists.stdout)
        #expect(cold.status == 0, "\(cold.stderr)")
        #expect(cold.stdout == uncached.stdout)
        #expect(try await setup.requests() == [Self.object: 60, Self.items: 30])
        #expect(setup.entries.count == 30)

        // Warm: the listing's snapshot_ids are the cached ones, so spotify-tracks asks nothing.
        let warm = try await setup.run("spotify-tracks", [], stdin: playlists.stdout)
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stdout == uncached.stdout)
        #expect(warm.stderr == cold.stderr)
        #expect(try await setup.requests() == [:])
        // The whole pipeline, listing and all: the listing's page (and --owned's user id when the
        // login does not hold it).
        let listingAgain = try await setup.run("spotify-playlists", ["--owned"])
        _ = try await setup.run("spotify-tracks", [], stdin: listingAgain.stdout)
        let pipeline = try await setup.requests()
        #expect(pipeline[Self.listing] == 1, "\(pipeline)")
        #expect(pipeline.keys.allSatisfy { [Self.listing, "GET /v1/me"].contains($0) }, "\(pipeline)")

        // On disk: under 400 bytes an item, every item with its own album (300 before the records
        // carried explicit, the ISRC, release dates, is_playable and added_by).
        let bytes = try setup.entries.reduce(0) { sum, name in
            sum
                + ((try FileManager.default.attributesOfItem(
                    atPath: setup.cacheHome + "/spotify-toolkit/playlists/" + name)[.size] as? Int) ?? 0)
        }
        #expect(bytes / 3600 <= 400, "\(bytes / 3600) bytes an item")
    }

    /// LRU with every run reading in the same order used to evict each entry before its turn, so
    /// a library larger than the bound never hit. Now a run never evicts what it reads: the
    /// playlists that fit stay, and every later run hits them.
    @Test func aBoundSmallerThanTheLibraryKeepsWhatFitsRunAfterRun() async throws {
        let setup = try await Setup()
        let playlists = try await setup.run("spotify-playlists", ["--owned"])
        _ = try await setup.run("spotify-tracks", [], stdin: playlists.stdout)
        let entryBytes =
            try FileManager.default.attributesOfItem(
                atPath: setup.cacheHome + "/spotify-toolkit/playlists/" + setup.entries[0])[.size] as! Int
        try FileManager.default.removeItem(atPath: setup.cacheHome)
        // Room for 12 of the 30.
        setup.extra[CachePolicy.sizeVariable] = String(entryBytes * 12 + entryBytes / 2)
        _ = try await setup.requests()
        let first = try await setup.run("spotify-tracks", [], stdin: playlists.stdout)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("the snapshot cache is full of what this run read"), "\(first.stderr)")
        #expect(try await setup.requests() == [Self.object: 60, Self.items: 30])
        let kept = setup.entries
        #expect(kept.count == 12)
        for _ in 0..<2 {
            let again = try await setup.run("spotify-tracks", [], stdin: playlists.stdout)
            #expect(again.stdout == first.stdout)
            // The 12 kept are hits; the other 18 are read again, and evict none of them.
            #expect(try await setup.requests() == [Self.object: 36, Self.items: 18])
            #expect(setup.entries == kept)
        }
    }

    @Test func maxRequestsStopsCleanlyAndTheNextRunGoesOnUntilEveryRecordIsPrintedOnceInOrder() async throws {
        let setup = try await Setup()
        let playlists = try await setup.run("spotify-playlists", ["--owned"])
        let whole = try await setup.run("spotify-tracks", ["--no-cache"], stdin: playlists.stdout)
        _ = try await setup.requests()

        var runs = 0
        var last = try await setup.run("spotify-tracks", ["--max-requests", "20"], stdin: playlists.stdout)
        var done = 0
        while last.status == 75 {
            runs += 1
            let sent = setup.total(try await setup.requests())
            // About N: the window in flight when the budget ran out, at most.
            #expect(sent <= 20, "run \(runs) sent \(sent)")
            let said = try #require(
                last.stderr.firstMatch(of: /(\d+) of (?:at least )?30 playlists are done and cached/), "\(last.stderr)")
            let now = Int(said.1)!
            #expect(now > done, "each run gets further")
            done = now
            #expect(last.stderr.contains("stopped at --max-requests 20"))
            #expect(last.stderr.contains("run the same command again"))
            // What it printed is the first playlists, whole, exactly as a full read prints them.
            #expect(last.stdoutLines == Array(whole.stdoutLines.prefix(last.stdoutLines.count)))
            #expect(last.stdoutLines.count == done * 120)
            #expect(setup.entries.count >= done)
            #expect(runs < 10, "no progress")
            if runs >= 10 { return }
            last = try await setup.run("spotify-tracks", ["--max-requests", "20"], stdin: playlists.stdout)
        }
        #expect(runs >= 3)
        #expect(last.status == 0, "\(last.stderr)")
        #expect(last.stdout == whole.stdout)

        // auto: the ledger counts every request of this test; a day's budget below that is spent.
        _ = try await setup.requests()
        setup.extra[RequestBudget.dailyVariable] = "50"
        let spent = try await setup.run("spotify-tracks", ["--max-requests", "auto", generated(120)])
        #expect(spent.status == 75)
        #expect(spent.stderr.contains("--max-requests auto: the ledger counts"), "\(spent.stderr)")
        #expect(try await setup.requests() == [:])
        setup.extra[RequestBudget.dailyVariable] = "100000"
        let roomy = try await setup.run("spotify-tracks", ["--max-requests", "auto", generated(120)])
        #expect(roomy.status == 0, "\(roomy.stderr)")
        #expect(roomy.stdoutLines.count == 120)
        _ = try await setup.requests()

        // A bad value is a usage error before any request.
        for bad in ["0", "-3", "lots", ""] {
            let refused = try await setup.run("spotify-tracks", ["--max-requests", bad, generated(120)])
            #expect(refused.status == 64, "\(bad)")
        }
        #expect(try await setup.requests() == [:])
    }

    @Test func maxRequestsOnTheListingAndOnGet() async throws {
        let setup = try await Setup()
        // One page of the listing, then the budget: nothing of a listing is cached.
        let listing = try await setup.run("spotify-playlists", ["--max-requests", "1", "--duration"])
        #expect(listing.status == 75, "\(listing.stderr)")
        #expect(listing.stderr.contains("stopped at --max-requests 1"), "\(listing.stderr)")
        _ = try await setup.requests()
        // The first playlist is always read whole (else a playlist larger than the budget would
        // stop every run); the second's record is past the budget.
        let get = try await setup.run(
            "spotify-playlists", ["get", "--duration", "--max-requests", "1", generated(120), generated(51)])
        #expect(get.status == 75, "\(get.stderr)")
        #expect(get.stdoutLines.count == 1)
        #expect(get.stderr.contains("stopped at --max-requests 1"), "\(get.stderr)")
        #expect(setup.total(try await setup.requests()) == 4)
    }
}

@Suite(.tags(.small)) struct RequestBudgetTests {
    @Test func automaticLeavesWhatTheLedgerDoesNotCount() throws {
        let now = 1_800_000_000.0
        let times = (0..<30).map { now - 3600 * Double($0) / 2 }  // 30 in the last 15 hours
        #expect(try RequestBudget.automatic(daily: 100, times: times, now: now, zone: LocalZone("UTC")) == 70)
        // Older than a day: not counted.
        #expect(
            try RequestBudget.automatic(daily: 100, times: times + [now - 90_000], now: now, zone: LocalZone("UTC"))
                == 70)
        #expect(throws: ToolError.self) {
            try RequestBudget.automatic(daily: 30, times: times, now: now, zone: LocalZone("UTC"))
        }
        do {
            _ = try RequestBudget.automatic(daily: 30, times: times, now: now, zone: LocalZone("UTC"))
        } catch let error as ToolError {
            #expect(error.exitCode == .tempFail)
            // The oldest (14.5 h ago) leaves the day in 9.5 h.
            #expect(error.message.contains("in 9 h 30 min"), "\(error.message)")
        }
        #expect(try RequestBudget.daily(nil) == 1000)
        #expect(try RequestBudget.daily("2500") == 2500)
        for bad in ["0", "-1", "many", "2000000"] {
            #expect(throws: ToolError.self) { try RequestBudget.daily(bad) }
        }
    }
}
