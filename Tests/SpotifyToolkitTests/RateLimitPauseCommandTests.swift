import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCore

/// One pause per 429, through spotify-tracks against fake-spotify: a 429 with
/// Retry-After holds every request of the run until then, instead of only the one that got it.
/// Counted, not timed: the waits are 5 s, and the assertions are on fake-spotify's counters and
/// the output.
@Suite(.tags(.medium)) struct RateLimitPauseCommandTests {
    /// Web API requests that reached fake-spotify.
    func sent(_ counters: JSONValue) throws -> Int {
        try #require(counters["requests"]?.objectValue).reduce(0) { $0 + ($1.value.intValue ?? 0) }
    }

    /// One 429 asking for 5 s, early in a 10,000-item read (about 200 requests) at 5 ms a request:
    /// fake-spotify counts the requests that arrive while its Retry-After runs
    /// (`sent_during_retry_after`; a request counts as it arrives, and those already on the wire
    /// arrived before the 429 went out). With the shared pause none may come but those started in
    /// the moment the 429 was on its way back. Without it only the refused request waits, and the
    /// others go on until the look-ahead behind that page is full: 8 to 10 requests here, each
    /// sent after Spotify said "wait". A short latency keeps the 429's own way back short, so
    /// that what starts meanwhile stays few on a loaded machine too (at 50 ms, 4 were seen once).
    @Test func a429HoldsEveryRequestOfTheRunUntilItsRetryAfter() async throws {
        let library = try await Library(["--fault", "kind=rate_limit at=12 retry_after=5", "--latency-ms", "5"])
        defer { library.fake.stop() }
        let result = try await library.tracks(["--no-cache", generated(10_000)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try records(result).map { $0["position"]?.intValue } == (0..<10_000).map { $0 }, "exact, in order")
        let counters = try await library.counters()
        #expect(counters["faults_fired"] == 1)
        let during = try #require(counters["sent_during_retry_after"]?.intValue)
        #expect(during <= 5, "only requests started while the 429 was on its way back to the client")
    }

    /// Against a rolling window of 10 requests per 20 s (Spotify's limit, scaled down): 20
    /// requests, 1 wall. A window long against the run's own pace, so the wall is hit however
    /// loaded the machine is (20 per 5 s was not, when the suite starved the run). Each wall
    /// refuses at most the 8 requests in flight when it is hit; the output is exact and every
    /// request is admitted exactly once.
    @Test func aFullRollingWindowPausesTheRunOncePerWall() async throws {
        let library = try await Library(["--rate-window", "10/20s"])
        defer { library.fake.stop() }
        let playlist = generated(1000)
        let result = try await library.tracks(["--no-cache", playlist])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try records(result).map { $0["position"]?.intValue } == (0..<1000).map { $0 }, "exact, in order")
        let counters = try await library.counters()
        let refused = try #require(counters["rate_limited"]?.intValue)
        let admitted = try sent(counters) - refused
        #expect(refused >= 1, "the window was hit")
        // Each window of 10 admitted requests ends in a wall; at each, at most the 8 in flight.
        let walls = (admitted + 9) / 10 - 1
        #expect(
            refused <= walls * 8 + 4, "at most the 8 in flight at each of the \(walls) walls, and a few for rounding")

        // The same read without a limit: the requests a run needs.
        _ = try await library.fake.call("POST", "/_fake/library", form: [("rate_window", "off")])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let free = try await library.tracks(["--no-cache", playlist])
        #expect(free.stdout == result.stdout)
        #expect(try admitted == sent(await library.counters()), "every request admitted once")
    }
}
