import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// `spotify-nowplaying --watch` against a hostile or broken server: it never traps, honours the
/// retry-wait cap and `--for`, and keeps watching through unreadable answers.
@Suite(.serialized, .tags(.medium)) struct WatchHardeningTests {
    static let currentlyPlaying = "/v1/me/player/currently-playing"

    /// A fake with a song playing and a logged-in user.
    func playing() async throws -> Library {
        let library = try await Library()
        try await library.fake.call("POST", "/_fake/playback", form: [("durations", "200,200"), ("playing", "1")])
        return library
    }

    /// The watch's clock runs this many times faster than the wall clock in these runs: its
    /// 1 s interval and retry waits are a tenth of a second.
    static let timeScale = 10

    /// A watch polling every second of its time, stopped as Ctrl-C stops it once fake-spotify has
    /// been asked what plays `polls` times: the poll before the last was answered and dealt with.
    /// `--for` (at most a minute of wall time) only bounds a watch that never gets there.
    func watch(
        _ library: Library, untilPolled polls: Int, environment: [String: String] = [:],
        then: (Int) async throws -> Void = { _ in }
    ) async throws -> ToolRun {
        try await library.run(
            "spotify-nowplaying", ["--watch", "--json", "--interval", "1s", "--for", "600s"],
            environment: environment.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "\(Self.timeScale)"]) { $1 }
        ) {
            let seen = try await library.polls()
            try await then(seen)
            return seen >= polls
        }
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

    /// A 429 whose Retry-After does not fit in an Int crashed the watch (SIGILL).
    @Test func aHugeRetryAfterDoesNotCrashTheWatch() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", Self.currentlyPlaying), ("status", "429"), ("retry_after", "99999999999999999999")])
        let run = try await watch(library, untilPolled: 3, environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("rate limiting"), "\(run.stderr)")
        #expect(finals(run) == 1, "\(run.stdout)")
    }

    /// The watch waited whatever Retry-After asked (99999999999 s), ignoring the cap.
    @Test func theWatchHonoursTheRetryWaitCap() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", Self.currentlyPlaying), ("status", "429"), ("retry_after", "99999999999")])
        let run = try await watch(library, untilPolled: 3, environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        // Polls after the 429 prove the cap: without it the watch waits out the whole --for (a
        // minute of wall time) after its first poll.
        #expect(try await library.polls() >= 3, "polled again after the 1 s cap")
        #expect(run.stdoutLines.count >= 2 && finals(run) == 1, "\(run.stdout)")
    }

    /// One unreadable 200 after the first record ended the watch with exit 69 and no final
    /// record. A 200 that is JSON but not a player object is unreadable too, not "nothing plays".
    @Test func anUnreadableAnswerIsRetriedAndTheWatchGoesOn() async throws {
        let library = try await playing()
        defer { library.fake.stop() }
        let injected = Locked(false)
        // Once the watch has polled, its next two polls get unreadable answers; it stops two polls after them.
        let run = try await watch(library, untilPolled: 4) { polls in
            guard polls >= 1, !injected.withLock({ $0 }) else { return }
            injected.withLock { $0 = true }
            try await library.fake.call(
                "POST", "/_fake/fail",
                form: [
                    ("path", Self.currentlyPlaying), ("status", "200"), ("body", "<html>captive portal</html>"),
                    ("content_type", "text/html"),
                ])
            try await library.fake.call(
                "POST", "/_fake/fail", form: [("path", Self.currentlyPlaying), ("status", "200"), ("body", "[1,2]")])
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("not JSON") && run.stderr.contains("the watch goes on"), "\(run.stderr)")
        #expect(finals(run) == 1, "\(run.stdout)")
        #expect(run.stdoutLines.count >= 2, "watched on after both: \(run.stdout)")
        #expect(
            !run.stdoutLines.contains { !$0.contains(#""name""#) }, "no record of a fake 'nothing plays': \(run.stdout)"
        )
        #expect(try await library.polls() >= 4, "watched on after both")
    }

    /// A player endpoint that stops answering stretched `--for 5s` to 153 s. Here every poll
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
