import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Spotify strings on a terminal, dropped and mislabelled player state, and what a browser child
/// inherits.
@Suite(.serialized, .tags(.medium)) struct TerminalSafetyTests {
    /// OSC title, BEL, clear screen, C1 CSI, blink, a newline and a bidi override.
    static let evilName = #"A\u001b]0;pwned\u0007\u001b[2J\u009b31mB\n\u202eC"#
    static let evilArtist = #"\u001b[5mX\u2066"#

    /// Nothing that could drive a terminal: no C0/C1 control but the line ends, no bidi control.
    func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 != "\n" && TerminalText.isUnsafe($0) }
    }

    func fail(_ library: Library, _ path: String, body: String, count: Int = 5) async throws {
        try await library.fake.call(
            "POST", "/_fake/fail", form: [("path", path), ("status", "200"), ("count", "\(count)"), ("body", body)])
    }

    let human = ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]

    @Test func theSanitiserNeutralisesControlsAndBidi() {
        let cleaned = TerminalText.clean("A\u{1B}]0;x\u{07}\u{9B}1m\u{202E}\u{2066}B\nC é 🎵")
        #expect(cleaned == "A ]0;x  1m  B C é 🎵")
        #expect(TextTable.clean("x\u{202E}y") == "x y", "the table uses the same sanitiser")
    }

    @Test func nowPlayingAndWatchPrintNamesCleaned() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let body =
            #"{"is_playing":true,"progress_ms":1,"currently_playing_type":"track","item":{"type":"track","uri":"spotify:track:x","duration_ms":1000,"name":""#
            + Self.evilName + #"","artists":[{"name":""# + Self.evilArtist + #""}]}}"#
        try await fail(library, "/v1/me/player/currently-playing", body: body)
        let once = try await library.run("spotify-nowplaying", [], environment: human)
        #expect(once.status == 0, "\(once.stderr)")
        #expect(once.stdout.contains("A ]0;pwned") && once.stdout.contains("X"), "\(once.stdout.debugDescription)")
        #expect(isInert(once.stdout), "\(once.stdout.debugDescription)")
        let json = try await library.run("spotify-nowplaying", ["--json"])
        #expect(try records(json).first?["name"]?.stringValue?.contains("\u{1B}") == true, "records keep the raw value")
        // The watch gets the hostile answer too (5 were queued); it is stopped (as Ctrl-C stops
        // it) once its second poll was sent, so the first answer was printed however loaded the machine.
        let before = try await library.polls()
        let watch = try await library.run(
            "spotify-nowplaying", ["--watch", "--for", "10m"],
            environment: human.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "10"]) { $1 }
        ) { try await library.polls() >= before + 2 }
        #expect(watch.status == 0 && watch.stdout.contains("A ]0;pwned"), "\(watch.stderr)")
        #expect(isInert(watch.stdout), "\(watch.stdout.debugDescription)")
    }

    @Test func devicesAndDeviceErrorsAreCleaned() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let body =
            #"{"devices":[{"id":"d1","name":""# + Self.evilName
            + #"","type":"Speaker","is_active":true,"is_restricted":false}]}"#
        try await fail(library, "/v1/me/player/devices", body: body)
        let devices = try await library.run("spotify-nowplaying", ["devices"], environment: human)
        #expect(devices.status == 0, "\(devices.stderr)")
        #expect(devices.stdout.contains("Speaker") && isInert(devices.stdout), "\(devices.stdout.debugDescription)")
        let missing = try await library.run("spotify-nowplaying", ["pause", "--device", "Nowhere\u{1B}[2J"])
        #expect(missing.stderr.contains("no device named"), "\(missing.stderr)")
        #expect(isInert(missing.stderr), "\(missing.stderr.debugDescription)")
    }

    /// A play without a track or a played_at was dropped silently; names reach the
    /// terminal cleaned.
    @Test func recentCountsWhatItSkipsAndCleansNames() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let track = #"{"type":"track","uri":"spotify:track:a","name":""# + Self.evilName + #"","duration_ms":1000}"#
        let body =
            #"{"items":[{"played_at":"2026-11-22T08:00:00Z","track":"# + track
            + #"},{"played_at":"2026-11-22T07:00:00Z"},{"track":"# + track + #"}],"cursors":null,"next":null}"#
        try await fail(library, "/v1/me/player/recently-played", body: body)
        let recent = try await library.run("spotify-nowplaying", ["recent"], environment: human)
        #expect(recent.status == 0, "\(recent.stderr)")
        #expect(recent.stdout.split(separator: "\n").count == 1, "\(recent.stdout.debugDescription)")
        #expect(isInert(recent.stdout), "\(recent.stdout.debugDescription)")
        #expect(recent.stderr.contains("skipped 2 plays"), "\(recent.stderr)")
    }

    /// `--with-device` (then `--device`) lost shuffle_state and repeat_state when /me/player had no device.
    @Test func deviceKeepsShuffleAndRepeatWithoutADevice() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let body =
            #"{"is_playing":true,"progress_ms":1,"currently_playing_type":"track","shuffle_state":true,"repeat_state":"track","item":{"type":"track","uri":"spotify:track:x","duration_ms":1000,"name":"n"}}"#
        try await fail(library, "/v1/me/player", body: body)
        let run = try await library.run("spotify-nowplaying", ["--with-device", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let record = try #require(try records(run).first)
        #expect(record["shuffle_state"] == true && record["repeat_state"] == "track", "\(record)")
        #expect(record["device"] == .null)
    }

    /// An ad that carried an item object was printed as playing; --help says exit 1.
    @Test func anAdWithAnItemIsNotASong() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let body =
            #"{"is_playing":true,"progress_ms":1,"currently_playing_type":"ad","item":{"type":"track","uri":"spotify:track:x","duration_ms":30000,"name":"Buy now"}}"#
        try await fail(library, "/v1/me/player/currently-playing", body: body)
        let run = try await library.run("spotify-nowplaying", ["--json"])
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout == "")
    }

    /// `link` dropped the name and cover when the answer's uri/type did not re-identify
    /// the playlist it asked for; names reach the terminal cleaned.
    @Test func linkKeepsNameAndCoverOfAnOddAnswer() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let id = "3cEYpjA9oz9GiPac4AsH4n"
        _ = try await library.run("routine-link", ["add", "m"])
        let body =
            #"{"uri":"spotify:album:zzz","type":"album","name":""# + Self.evilName
            + #"","images":[{"url":"https://i.scdn.co/image/cover","width":640,"height":640}]}"#
        try await fail(library, "/v1/playlists/\(id)", body: body)
        let linked = try await library.run("routine-link", ["link", "m", id], environment: human)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(linked.stdout.contains("A ]0;pwned") && isInert(linked.stdout), "\(linked.stdout.debugDescription)")
        let shown = try await library.run("routine-link", ["show", "m", "--json"])
        let record = try #require(try records(shown).first)
        #expect(record["playlist"]?["id"]?.stringValue == id, "\(record)")
        #expect(record["playlist"]?["name"]?.stringValue?.hasPrefix("A\u{1B}") == true, "\(record)")
        #expect(record["playlist"]?["image_url"] == "https://i.scdn.co/image/cover", "\(record)")
        let human = try await library.run("routine-link", ["show", "m"], environment: human)
        #expect(isInert(human.stdout), "\(human.stdout.debugDescription)")
    }

    /// The `$BROWSER` child inherited SPOTIFY_ACCESS_TOKEN.
    @Test func theBrowserGetsNoSpotifyVariables() throws {
        let scratch = try InProcess.Scratch()
        let seen = scratch.path + "/seen"
        let opener = try scratch.file("opener", contents: "#!/bin/sh\nenv > '\(seen)'\n")
        chmod(opener, 0o755)
        let opened = LinkOpener(
            environment: ToolEnvironment([
                "BROWSER": opener, "SPOTIFY_ACCESS_TOKEN": "secret-token", "SPOTIFY_CLIENT_ID": "c",
                "PATH": "/usr/bin:/bin", "HOME": scratch.path,
            ])
        ).open("https://open.spotify.com/playlist/x")
        #expect(opened == .opened(by: opener))
        let environment = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(!environment.contains("secret-token") && !environment.contains("SPOTIFY_"), "\(environment)")
        #expect(environment.contains("HOME=\(scratch.path)"), "the rest of the environment is kept")
    }
}
