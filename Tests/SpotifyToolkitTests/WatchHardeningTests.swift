import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// `spotify-nowplaying --watch` against a hostile or broken server: it never traps, honours the
/// retry-wait cap and `--for`, and keeps watching through unreadable answers (review R1, R4, R5, R13).
@Suite(.serialized, .tags(.medium)) struct WatchHardeningTests {
    static let currentlyPlaying = "/v1/me/player/currently-playing"

    /// A fake with a song playing and a logged-in user.
    func playing() async throws -> Library {
        let library = try await Library()
        try await library.fake.call("POST", "/_fake/playback", form: [("durations", "200,200"), ("playing", "1")])
        return library
    }

    /// The watch's clock runs this many times faster than the wall clock in these runs: its
    /// 1 s interval and retry waits are a tenth of a second, while `--for` stays at least 5 s of
    /// wall time, so a loaded machine that is slow to poll still gets many polls in.
    static let timeScale = 10

    /// `--for` `seconds` of the watch's time (`seconds / timeScale` of wall time).
    func watch(_ library: Library, for seconds: Int, environment: [String: String] = [:]) async throws -> ToolRun {
        try await library.run(
            "spotify-nowplaying", ["--watch", "--json", "--interval", "1s", "--for", "\(seconds)s"],
            environment: environment.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "\(Self.timeScale)"]) { $1 })
    }

    func finals(_ run: ToolRun) -> Int { run.stdoutLines.filter { $0.contains(#""final":true"#) }.count }

    @Test(arguments: [
        "99999999999999999999", "1e300", "9.3e18", "-5", "inf", " 7 ", "0x10", "Wed, 21 Oct 2015 07:28:00 GMT",
    ])
    func anyRetryAfterIsAFiniteWaitWithinTheCap(header: String) {
        let (wait, message) = PlaybackWatcher.rateLimitWait(retryAfter: header, cap: 30, backoff: 2)
        #expect(wait.isFinite && wait >= 1 && wait <= 30, "\(header): \(wait)")
        #expect(message.hasPrefix("Spotify is rate limiting"))
    }

    @Test func aRetryAfterBeyondTheCapWaitsTheCapAndSaysSo() {
        let beyond = PlaybackWatcher.rateLimitWait(retryAfter: "99999999999", cap: 5, backoff: 2)
        #expect(beyond.wait == 5)
        #expect(beyond.message.contains("SPOTIFY_TOOLKIT_MAX_RETRY_WAIT"), "\(beyond.message)")
        #expect(PlaybackWatcher.rateLimitWait(retryAfter: "3", cap: 5, backoff: 2).wait == 3)
        #expect(PlaybackWatcher.rateLimitWait(retryAfter: "0", cap: 0, backoff: 2).wait == 1, "never a busy loop")
    }

    /// R1: a 429 whose Retry-After does not fit in an Int crashed the watch (SIGILL).
    @Test func aHugeRetryAfterDoesNotCrashTheWatch() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", Self.currentlyPlaying), ("status", "429"), ("retry_after", "99999999999999999999")])
        let run = try await watch(library, for: 60, environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("rate limiting"), "\(run.stderr)")
        #expect(finals(run) == 1, "\(run.stdout)")
    }

    /// R13: the watch waited whatever Retry-After asked (99999999999 s), ignoring the cap.
    @Test func theWatchHonoursTheRetryWaitCap() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", Self.currentlyPlaying), ("status", "429"), ("retry_after", "99999999999")])
        let run = try await watch(library, for: 60, environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let counters = try await library.counters()
        let polls =
            counters["requests"]?.objectValue?.first { $0.key.contains("currently-playing") }?.value.intValue ?? 0
        // One poll after the 429 proves the cap: without it the watch waits out the whole --for
        // after its first poll. More are not asked for: the suite can starve this process.
        #expect(polls >= 2, "polled again after the 1 s cap: \(counters)")
        #expect(run.stdoutLines.count >= 2 && finals(run) == 1, "\(run.stdout)")
    }

    /// R5: one unreadable 200 after the first record ended the watch with exit 69 and no final
    /// record. A 200 that is JSON but not a player object is unreadable too, not "nothing plays".
    @Test func anUnreadableAnswerIsRetriedAndTheWatchGoesOn() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        async let watched = watch(library, for: 80)
        for _ in 0..<200 {
            let counters = try await library.counters()
            if counters["requests"]?.objectValue?.contains(where: { $0.key.contains("currently-playing") }) == true {
                break
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        try await library.fake.call(
            "POST", "/_fake/fail",
            form: [
                ("path", Self.currentlyPlaying), ("status", "200"), ("body", "<html>captive portal</html>"),
                ("content_type", "text/html"),
            ])
        try await library.fake.call(
            "POST", "/_fake/fail", form: [("path", Self.currentlyPlaying), ("status", "200"), ("body", "[1,2]")])
        let run = try await watched
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("not JSON") && run.stderr.contains("the watch goes on"), "\(run.stderr)")
        #expect(finals(run) == 1, "\(run.stdout)")
        #expect(
            !run.stdoutLines.contains { !$0.contains(#""name""#) }, "no record of a fake 'nothing plays': \(run.stdout)"
        )
        let counters = try await library.counters()
        let polls =
            counters["requests"]?.objectValue?.first { $0.key.contains("currently-playing") }?.value.intValue ?? 0
        #expect(polls >= 4, "watched on after both: \(counters)")
    }

    /// R4: a player endpoint that stops answering stretched `--for 5s` to 153 s. Here every poll
    /// hangs 35 s (past the 30 s request timeout): a watch that waited for its poll would take 30 s
    /// or more; one that ends on `--for` takes 5 s, and 15 s of slack is left for a loaded machine.
    @Test func forEndsTheWatchEvenWhileAPollHangs() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        try await library.fault([
            ("kind", "delay"), ("delay_ms", "35000"), ("rate", "1"), ("path_prefix", "/v1/me/player"),
        ])
        let started = Date()
        let run = try await library.run("spotify-nowplaying", ["--watch", "--json", "--interval", "1s", "--for", "5s"])
        let took = Date().timeIntervalSince(started)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(took < 20, "the watch took \(took) s for --for 5s")
    }
}
