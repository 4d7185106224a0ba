import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// `spotify-playlists --owned | spotify-tracks --max-requests N` as a user runs it, the built tools
/// and fake-spotify as processes: each run stops at the budget with 75 and a count on stderr, the
/// same pipeline again goes on, and the one that finishes prints every record once, in order, as a
/// run without the cache does. Then a warm re-run costs the listing only.
@Suite(.tags(.large)) struct LibraryBudgetEndToEndTests {
    @Test func aLibraryLargerThanTheBudgetIsReadOverSeveralRuns() throws {
        let fake = try FakeSpotifyProcess(["--library-shape", "24x160"])  // 4 requests a playlist
        try fake.seedLogin(expiresIn: 3600)
        let cache = fake.home.url.appendingPathComponent("cache").path
        let environment = fake.environment(["XDG_CACHE_HOME": cache, CachePolicy.sizeVariable: ""])
        func requests() throws -> Int {
            let counters = try fake.counters()
            try fake.call("POST", "/_fake/reset-counters")
            return (counters["requests"]?.objectValue ?? [:]).filter { $0.key.contains(" /v1/") }
                .reduce(0) { $0 + ($1.value.intValue ?? 0) }
        }
        let whole = try ToolProcess.shell(
            "set -o pipefail; spotify-playlists --owned | spotify-tracks --no-cache", environment: environment)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stdout.split(separator: "\n").count == 24 * 160)
        _ = try requests()

        var run = try ToolProcess.shell(
            "set -o pipefail; spotify-playlists --owned | spotify-tracks --max-requests 30", environment: environment)
        var runs = 1
        while run.status == 75 && runs < 8 {
            #expect(run.stderr.contains("24 playlists are done and cached"), "\(run.stderr)")
            #expect(whole.stdout.hasPrefix(run.stdout), "a prefix of whole playlists")
            #expect(run.stdout.split(separator: "\n").count % 160 == 0)
            // The listing (one page, and maybe the user id), then at most the budget.
            #expect(try requests() <= 30 + 2)
            run = try ToolProcess.shell(
                "set -o pipefail; spotify-playlists --owned | spotify-tracks --max-requests 30",
                environment: environment)
            runs += 1
        }
        #expect(runs >= 3, "24 playlists of 4 requests take several runs of 30")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == whole.stdout)
        _ = try requests()
        let warm = try ToolProcess.shell(
            "set -o pipefail; spotify-playlists --owned | spotify-tracks --max-requests 30", environment: environment)
        #expect(warm.status == 0)
        #expect(warm.stdout == whole.stdout)
        #expect(try requests() <= 2, "the listing only")
    }
}
