import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-nowplaying's, songcount's and spotify-auth's options, read from a parsed command line:
/// a usage error comes from the options, before any handler runs. Pure.
@Suite(.tags(.small)) struct NowPlayingSongcountAuthOptionsTests {
    func usage<Options: CommandOptions>(
        _ type: Options.Type, _ spec: CommandSpec, _ arguments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        let error = #expect(throws: ToolError.self, "\(arguments)", sourceLocation: sourceLocation) {
            _ = try Options(try CommandLineParser.parse(arguments, spec: spec))
        }
        #expect(error?.exitCode == .usage, "\(arguments)", sourceLocation: sourceLocation)
        return error?.message
    }

    func read<Options: CommandOptions>(_ type: Options.Type, _ spec: CommandSpec, _ arguments: [String]) throws
        -> Options
    {
        try Options(try CommandLineParser.parse(arguments, spec: spec))
    }

    @Test func nowPlayingOptions() throws {
        let tool = SpotifyNowPlaying.spec
        #expect(usage(SpotifyNowPlaying.Options.self, tool, ["--for", "5m"]) == "--for needs --watch")
        #expect(
            usage(SpotifyNowPlaying.Options.self, tool, ["--watch", "--interval", "0s"])
                == "--interval must be at least 1s")
        let watch = try read(SpotifyNowPlaying.Options.self, tool, ["--watch", "--for", "2m", "--interval", "5s"])
        #expect(watch.watch?.duration == 120)
        #expect(watch.watch?.schedule == PollSchedule(interval: 5))
        #expect(try read(SpotifyNowPlaying.Options.self, tool, []).watch == nil)

        let withDevice = try read(SpotifyNowPlaying.Options.self, tool, ["--with-device"])
        #expect(withDevice.withDevice && !withDevice.usesOldDeviceFlag)
        let old = try read(SpotifyNowPlaying.Options.self, tool, ["--device"])
        #expect(old.withDevice && old.usesOldDeviceFlag)
    }

    @Test func playbackOptions() throws {
        let tool = SpotifyNowPlaying.spec
        #expect(
            usage(SpotifyNowPlaying.SettingOptions<SpotifyNowPlaying.Volume>.self, tool, ["volume", "101"])?.contains(
                "0 to 100") == true)
        #expect(
            usage(SpotifyNowPlaying.SettingOptions<SpotifyNowPlaying.SeekPosition>.self, tool, ["seek", "25:00:00"])?
                .contains("24 hours") == true)
        #expect(
            usage(SpotifyNowPlaying.SettingOptions<SpotifyNowPlaying.Shuffle>.self, tool, ["shuffle", "maybe"]) != nil)
        #expect(
            usage(SpotifyNowPlaying.SettingOptions<SpotifyPlayer.RepeatState>.self, tool, ["repeat", "all"]) != nil)
        #expect(usage(SpotifyNowPlaying.PlayOptions.self, tool, ["play", "-", "x"])?.contains("on its own") == true)
        #expect(usage(SpotifyNowPlaying.QueueOptions.self, tool, ["queue", "--device", "Kitchen"]) != nil)
        #expect(usage(SpotifyNowPlaying.QueueOptions.self, tool, ["queue", "not a uri"]) != nil)
        #expect(
            usage(SpotifyNowPlaying.RecentOptions.self, tool, ["recent", "--since", "1h", "--after", "05:30"])
                == "--since and --after cannot be used together")

        // A device Spotify named with a skin-tone modifier: `=🏻` is one Character.
        let pause = try read(SpotifyNowPlaying.ControlOptions.self, tool, ["pause", "--device=🏻"])
        #expect(pause.device == "🏻")
        let volume = try read(
            SpotifyNowPlaying.SettingOptions<SpotifyNowPlaying.Volume>.self, tool, ["volume", "30%", "--device", "kit"])
        #expect(volume.setting.percent == 30 && volume.device == "kit")
        let play = try read(SpotifyNowPlaying.PlayOptions.self, tool, ["play", "-"])
        #expect(play.readsStandardInput && play.references.isEmpty)
        let ago = try read(SpotifyNowPlaying.RecentOptions.self, tool, ["recent", "--after", "2h"])
        #expect(try ago.start?.seconds(now: 10_000, in: .system) == 10_000 - 7200)
        let nonsense = try read(SpotifyNowPlaying.RecentOptions.self, tool, ["recent", "--after", "teatime"])
        #expect(throws: ToolError.self) { try nonsense.start?.seconds(now: 0, in: .system) }
    }

    @Test func songcountOptions() throws {
        #expect(usage(Songcount.Options.self, Songcount.spec, ["--select"]) == "--select needs --target")
        #expect(usage(Songcount.Options.self, Songcount.spec, ["--target", "0s"]) != nil)
        let options = try read(Songcount.Options.self, Songcount.spec, ["--target", "15m", "--json", "a", "b"])
        #expect(options.target == 900_000 && options.json && options.sources == ["a", "b"])
        #expect(try read(Songcount.Options.self, Songcount.spec, []).sources == ["-"])
        // Not "unknown option": the value starts with a combining mark, which is not a duration.
        let marked = usage(Songcount.Options.self, Songcount.spec, ["--target=\u{301}15m"])
        #expect(marked?.contains("unknown option") == false, "\(marked ?? "")")
    }

    @Test func spotifyAuthOptions() throws {
        let tool = SpotifyAuth.spec
        #expect(usage(SpotifyAuth.LoginOptions.self, tool, ["login", "--timeout", "0s"]) != nil)
        #expect(usage(SpotifyAuth.LoginOptions.self, tool, ["login", "--timeout", "25h"])?.contains("24h") == true)
        let login = try read(SpotifyAuth.LoginOptions.self, tool, ["login", "--no-browser", "--json"])
        #expect(login.noBrowser && login.json && login.timeoutMs == 300_000)
        #expect(try read(SpotifyAuth.LogoutOptions.self, tool, ["logout", "--forget-links"]).forgetLinks)
    }
}

/// The top-level `--device` flag is now `--with-device`; the old spelling still works, and warns.
@Suite(.tags(.medium)) struct WithDeviceSpellingTests {
    @Test func bothSpellingsAskTheWholePlayerAndTheOldOneWarns() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let minted = try await fake.call(
            "POST", "/_fake/tokens", form: [("scope", "user-read-currently-playing user-read-playback-state")])
        let env = ["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""]
        try await fake.call("POST", "/_fake/playback")

        let new = try await fake.run("spotify-nowplaying", ["--with-device"], environment: env)
        let old = try await fake.run("spotify-nowplaying", ["--device"], environment: env)
        for run in [new, old] {
            #expect(run.status == 0, "\(run.stderr)")
            let record = try JSONValue.parse(run.stdout)
            #expect(record["device"]?["name"] == "Fixture MacBook Pro", "\(run.stdout)")
            #expect(record["shuffle_state"] != nil && record["repeat_state"] != nil)
        }
        #expect(new.stderr == "")
        #expect(
            old.stderr
                == "spotify-nowplaying: --device (without a value) is now --with-device; the old spelling will go in a later release\n"
        )
        #expect(try await fake.counters()["requests"]?["GET /v1/me/player"] == 2)

        // The playback commands' --device still names a device.
        let help = try await fake.run("spotify-nowplaying", ["--help"], environment: env).stdout
        #expect(help.contains("--with-device") && !help.contains("  --device"), "\(help)")
    }
}
