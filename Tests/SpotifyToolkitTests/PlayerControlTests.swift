import Foundation
import Testing
import ToolkitCore

@testable import FakeSpotify
@testable import SpotifyClient
@testable import Tools

/// spotify-nowplaying's like, unlike, shuffle, repeat, volume, seek and transfer, in process
/// against fake-spotify: what they print, their exit status, and what the fake's session became.
@Suite(.tags(.medium)) struct PlayerControlTests {
    static let allScopes =
        "user-read-currently-playing user-read-playback-state user-modify-playback-state user-library-modify user-library-read"
    static let kitchen = "a2b7e0c1d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8"
    static let macBook = "0d1841b0976bae2a3a310dd74c0f3df354899bc8"

    /// A fake and a token with `scope` in SPOTIFY_ACCESS_TOKEN.
    struct Session {
        let fake: InProcessFake
        let environment: [String: String]

        init(scope: String = PlayerControlTests.allScopes, playback: [(String, String)]? = []) async throws {
            fake = try InProcessFake()
            let minted = try await fake.call("POST", "/_fake/tokens", form: [("scope", scope)])
            environment = ["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""]
            if let playback { try await fake.call("POST", "/_fake/playback", form: playback) }
        }

        func run(_ arguments: [String]) async throws -> ToolRun {
            try await fake.run("spotify-nowplaying", arguments, environment: environment)
        }

        func playback() async throws -> JSONValue { try await fake.call("GET", "/_fake/playback") }

        /// `GET /me/player` through the tool: the record with device, shuffle_state and repeat_state.
        func player() async throws -> JSONValue {
            let result = try await run(["--with-device"])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONValue.parse(result.stdout)
        }

        func requests(_ key: String) async throws -> Int {
            try await fake.counters()["requests"]?[key]?.intValue ?? 0
        }
    }

    static func sent(_ what: String, to device: String = "the active device") -> String {
        "spotify-nowplaying: sent to \(device): \(what) (Spotify carries it out on the device)\n"
    }

    // MARK: Settings

    /// A Tab runs `devices --names`; against a 429 storm or a stalled answer it asks once,
    /// waits for nothing, and prints nothing.
    @Test func deviceNamesForATabAskOnceAndPrintNothingOnFailure() async throws {
        let session = try await PlayerControlTests.Session()
        let names = try await session.run(["devices", "--names"])
        #expect(names.status == 0 && names.stdout.contains("Kitchen"), "\(names.stderr)")
        _ = try await session.fake.call(
            "POST", "/_fake/faults",
            form: [
                ("kind", "rate_limit"), ("every", "1"), ("retry_after", "60"), ("path_prefix", "/v1/me/player/devices"),
            ])
        _ = try await session.fake.call("POST", "/_fake/reset-counters")
        let limited = try await session.run(["devices", "--names"])
        #expect(limited.status == 69 && limited.stdout.isEmpty && limited.stderr.isEmpty, "\(limited.stderr)")
        #expect(try await session.requests("GET /v1/me/player/devices") == 1, "one try, no waiting out the 429")
        _ = try await session.fake.call("POST", "/_fake/clear-faults")
        _ = try await session.fake.call(
            "POST", "/_fake/faults",
            form: [("kind", "delay"), ("every", "1"), ("delay_ms", "6000"), ("path_prefix", "/v1/me/player/devices")])
        _ = try await session.fake.call("POST", "/_fake/reset-counters")
        let stalled = try await session.run(["devices", "--names"])
        #expect(stalled.status == 69 && stalled.stdout.isEmpty && stalled.stderr.isEmpty, "\(stalled.stderr)")
        #expect(
            try await session.requests("GET /v1/me/player/devices") == 1, "given up after the deadline, not retried")
    }

    @Test func shuffleAndRepeatChangeWhatThePlayerReports() async throws {
        let session = try await PlayerControlTests.Session()
        let on = try await session.run(["shuffle", "on"])
        #expect(on.status == 0)
        #expect(on.stdout == "")
        #expect(on.stderr == Self.sent("shuffle on"))
        let track = try await session.run(["repeat", "track"])
        #expect(track.status == 0)
        #expect(track.stdout == "")
        #expect(track.stderr == Self.sent("repeat track"))
        var player = try await session.player()
        #expect(player["shuffle_state"] == true)
        #expect(player["repeat_state"] == "track")

        #expect(try await session.run(["shuffle", "OFF"]).status == 0)
        #expect(try await session.run(["repeat", "context"]).status == 0)
        player = try await session.player()
        #expect(player["shuffle_state"] == false)
        #expect(player["repeat_state"] == "context")
        let commands = try #require(try await session.playback()["commands"]?.arrayValue)
        #expect(
            commands.compactMap { $0["path"]?.stringValue } == [
                "/v1/me/player/shuffle", "/v1/me/player/repeat", "/v1/me/player/shuffle", "/v1/me/player/repeat",
            ])
    }

    @Test func volumeGoesToTheNamedDevice() async throws {
        let session = try await PlayerControlTests.Session()
        let result = try await session.run(["volume", "30%", "--device", "kit"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "")
        #expect(result.stderr == Self.sent("volume 30%", to: "'Kitchen'"))
        #expect(try await session.playback()["volumes"] == [Self.kitchen: 30])
        #expect(try await session.run(["volume", "0"]).status == 0)
        #expect(try await session.playback()["volumes"] == [Self.kitchen: 30, Self.macBook: 0])
        // The devices list and the player report the volumes.
        let devices = try records(try await session.run(["devices"]))
        #expect(devices.map { $0["volume_percent"] } == [0, 30, .null])
        let commands = try #require(try await session.playback()["commands"]?.arrayValue)
        #expect(commands.first?["device_id"]?.stringValue == Self.kitchen)
    }

    @Test func seekMovesTheTrackAndPastItsEndSkips() async throws {
        let session = try await Session(playback: [("playing", "false")])
        let result = try await session.run(["seek", "1:30"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == Self.sent("seek to 1:30"))
        var state = try await session.playback()
        #expect(state["position_ms"] == 90_000)
        #expect(state["index"] == 0)
        let commands = try #require(state["commands"]?.arrayValue)
        #expect(commands.count == 1)
        #expect(try await session.run(["seek", "90"]).status == 0)
        #expect(try await session.playback()["position_ms"] == 90_000)
        #expect(try await session.run(["seek", "1:02:03"]).status == 0)  // past the 3:18 track
        state = try await session.playback()
        #expect(state["index"] == 1)
        #expect(state["position_ms"] == 0)
    }

    @Test func seekWithNothingPlayingIsNoActiveDevice() async throws {
        let session = try await Session(playback: nil)
        let result = try await session.run(["seek", "10s"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("no active device (NO_ACTIVE_DEVICE)"))
    }

    @Test func transferMovesPlaybackAndKeepsItsState() async throws {
        let session = try await Session(playback: [("playing", "false")])
        let paused = try await session.run(["transfer", "kitchen"])
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(paused.stdout == "")
        #expect(paused.stderr == Self.sent("take over playback", to: "'Kitchen'"))
        var state = try await session.playback()
        #expect(state["device_id"]?.stringValue == Self.kitchen)
        #expect(state["is_playing"] == false)
        var commands = try #require(state["commands"]?.arrayValue)
        #expect(commands.last?["path"] == "/v1/me/player")
        #expect(commands.last?["body"] == ["device_ids": [.string(Self.kitchen)], "play": false])
        let player = try await session.player()
        #expect(player["device"]?["name"] == "Kitchen")
        #expect(player["device"]?["id"]?.stringValue == Self.kitchen)

        // Playing stays playing.
        try await session.fake.call("POST", "/_fake/playback/resume")
        let playing = try await session.run(["transfer", Self.macBook])
        #expect(playing.status == 0, "\(playing.stderr)")
        #expect(playing.stderr == Self.sent("take over playback and keep playing", to: "'Fixture MacBook Pro'"))
        state = try await session.playback()
        commands = try #require(state["commands"]?.arrayValue)
        #expect(commands.last?["body"] == ["device_ids": [.string(Self.macBook)], "play": true])
        #expect(state["device_id"]?.stringValue == Self.macBook)
        #expect(state["is_playing"] == true)
    }

    @Test func transferRefusesUnknownAndRestrictedDevices() async throws {
        let session = try await PlayerControlTests.Session()
        let unknown = try await session.run(["transfer", "Garage"])
        #expect(unknown.status == 69)
        #expect(unknown.stderr.hasPrefix("spotify-nowplaying: no device named 'Garage' (known: Fixture MacBook Pro"))
        let restricted = try await session.run(["transfer", "Living Room"])
        #expect(restricted.status == 69)
        #expect(restricted.stderr.contains("the device 'Living Room' does not accept remote commands"))
        #expect(try await session.requests("PUT /v1/me/player") == 0)
    }

    @Test func transferActivatesADeviceWhenNoneIsActive() async throws {
        let session = try await PlayerControlTests.Session()
        try await session.fake.call("POST", "/_fake/playback/answer", form: [("answer", "no_active_device")])
        let result = try await session.run(["transfer", "Kitchen"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await session.player()["device"]?["name"] == "Kitchen")
    }

    @Test func aSettingWhoseAnswerIsLostIsSentAgain() async throws {
        let session = try await PlayerControlTests.Session()
        try await session.fake.call(
            "POST", "/_fake/fail", form: [("path", "/v1/me/player/volume"), ("status", "503"), ("count", "1")])
        let result = try await session.run(["volume", "45"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await session.requests("PUT /v1/me/player/volume") == 2)
        #expect(try await session.playback()["volumes"] == [Self.macBook: 45])
        // next changes the state relative to what it was: never sent twice.
        try await session.fake.call(
            "POST", "/_fake/fail", form: [("path", "/v1/me/player/next"), ("status", "503"), ("count", "1")])
        let next = try await session.run(["next"])
        #expect(next.status == 69)
        #expect(try await session.requests("POST /v1/me/player/next") == 1)
    }

    // MARK: Refusals, shared with play

    static let commands: [[String]] = [
        ["shuffle", "on"], ["repeat", "off"], ["volume", "50"], ["seek", "1:00"], ["transfer", "Kitchen"],
    ]

    @Test(arguments: commands)
    func refusalsAreTheOnesPlayHas(command: [String]) async throws {
        let session = try await PlayerControlTests.Session()
        var expectations: [(String, Int32, String)] = [
            ("premium_required", 77, "needs Spotify Premium (PREMIUM_REQUIRED)"),
            ("restricted", 69, "does not accept remote commands"),
        ]
        if command[0] != "transfer" {
            expectations.append(("no_active_device", 69, "no active device (NO_ACTIVE_DEVICE)"))
        }
        for (answer, status, message) in expectations {
            try await session.fake.call("POST", "/_fake/playback/answer", form: [("answer", answer)])
            let refused = try await session.run(command)
            #expect(refused.status == status, "\(answer): \(refused.stderr)")
            #expect(refused.stdout == "")
            #expect(refused.stderr.contains(message), "\(answer): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let readOnly = try await Session(scope: "user-read-currently-playing user-read-playback-state")
        let noScope = try await readOnly.run(command)
        #expect(noScope.status == 77)
        #expect(noScope.stdout == "")
        #expect(
            noScope.stderr
                == "spotify-nowplaying: controlling playback needs the user-modify-playback-state scope, which the token in SPOTIFY_ACCESS_TOKEN lacks; set a token that has it, or unset SPOTIFY_ACCESS_TOKEN to use your login (spotify-auth login --scope playback adds it)\n"
        )
    }

    // MARK: Bad arguments

    static let badArguments: [([String], String)] = [
        (["volume", "101"], "volume takes a whole percentage from 0 to 100, not '101'"),
        (["volume", "abc"], "volume takes a whole percentage from 0 to 100, not 'abc'"),
        (["volume", "--", "-5"], "volume takes a whole percentage from 0 to 100, not '-5'"),
        (["volume", "50.5"], "volume takes a whole percentage from 0 to 100, not '50.5'"),
        (
            ["volume", "99999999999999999999999999999"],
            "volume takes a whole percentage from 0 to 100, not '99999999999999999999999999999'"
        ),
        (["volume", ""], "volume takes a whole percentage from 0 to 100, not ''"),
        (["seek", "abc"], "seek takes a position such as 1:30, 90s, 90 (seconds) or 1:02:03, not 'abc'"),
        (["seek", "--", "-10"], "seek takes a position such as 1:30, 90s, 90 (seconds) or 1:02:03, not '-10'"),
        (["seek", "1:75"], "seek takes a position such as 1:30, 90s, 90 (seconds) or 1:02:03, not '1:75'"),
        (
            ["seek", "99999999999999999999999999999999"],
            "seek takes a position such as 1:30, 90s, 90 (seconds) or 1:02:03, not '99999999999999999999999999999999'"
        ),
        (["seek", "25:00:00"], "seek goes at most 24 hours into a track, not '25:00:00'"),
        (["shuffle", "maybe"], "shuffle takes on or off, not 'maybe'"),
        (["repeat", "all"], "repeat takes off, track or context, not 'all'"),
        (["volume"], "missing argument PERCENT"),
        (["transfer"], "missing argument DEVICE"),
        (["shuffle", "on", "off"], "unexpected argument 'off'"),
        (["like", "now"], "unexpected argument 'now'"),
    ]

    @Test(arguments: badArguments)
    func badArgumentsAreExit64BeforeAnyRequest(arguments: [String], message: String) async throws {
        let session = try await PlayerControlTests.Session()
        let result = try await session.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first.map(String.init) == "spotify-nowplaying: \(message)", "\(result.stderr)")
        #expect(try await session.fake.counters()["requests"] == [:])
    }

    @Test func badArgumentsComeBeforeTheLogin() async throws {
        let result = try await InProcess.run(
            "spotify-nowplaying", ["volume", "200"],
            environment: ["XDG_CONFIG_HOME": "/nonexistent/config", "SPOTIFY_ACCESS_TOKEN": ""])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("spotify-nowplaying: volume takes a whole percentage from 0 to 100"))
    }

    // MARK: Like and unlike

    @Test func likeSavesThePlayingTrackAndUnlikeRemovesIt() async throws {
        let session = try await PlayerControlTests.Session()
        let uri = "spotify:track:\(PlaybackClock.catalog[0].id)"
        let liked = try await session.run(["like"])
        #expect(liked.status == 0, "\(liked.stderr)")
        #expect(liked.stdout == "")
        #expect(liked.stderr == "spotify-nowplaying: liked 'Sunrise Drive' by The Fixtures (\(uri))\n")
        var saved = try await session.fake.call("GET", "/_fake/saved-items")
        #expect(saved["added"] == [.string(uri)])
        #expect(saved["writes"] == [["method": "PUT", "uris": [.string(uri)]]])
        // Liked Songs lists it first, ahead of the 120 generated ones.
        let tracks = try await session.fake.run("spotify-tracks", ["--liked"], environment: session.environment)
        #expect(tracks.status == 0, "\(tracks.stderr)")
        let liked1 = try records(tracks)
        #expect(liked1.count == 121)
        #expect(liked1.first?["uri"]?.stringValue == uri)
        #expect(liked1.first?["name"] == "Sunrise Drive")

        let unliked = try await session.run(["unlike"])
        #expect(unliked.status == 0, "\(unliked.stderr)")
        #expect(unliked.stdout == "")
        #expect(unliked.stderr == "spotify-nowplaying: unliked 'Sunrise Drive' by The Fixtures (\(uri))\n")
        saved = try await session.fake.call("GET", "/_fake/saved-items")
        #expect(saved["added"] == [])
        #expect(try await session.requests("DELETE /v1/me/library") == 1)
        #expect(try await session.requests("GET /v1/me/player/currently-playing") == 2)
        // Neither needs a device or Premium.
        #expect(try await session.playback()["commands"] == [])
    }

    @Test func likeWithoutATrackSaysWhy() async throws {
        let session = try await Session(playback: nil)
        let nothing = try await session.run(["like"])
        #expect(nothing.status == 1)
        #expect(nothing.stdout == "")
        #expect(
            nothing.stderr
                == "spotify-nowplaying: nothing is playing; like and unlike act on the Spotify track that plays now\n")
        for (mode, message) in [("episode", "a podcast episode is playing, not a track"), ("ad", "an ad is playing")] {
            try await session.fake.call("POST", "/_fake/playback", form: [("mode", mode)])
            let result = try await session.run(["unlike"])
            #expect(result.status == 1, "\(mode)")
            #expect(result.stderr.hasPrefix("spotify-nowplaying: \(message);"), "\(result.stderr)")
        }
        #expect(try await session.requests("PUT /v1/me/library") == 0)
        #expect(try await session.requests("DELETE /v1/me/library") == 0)
    }

    @Test func likeWithoutTheLibraryScopeNamesIt() async throws {
        let session = try await Session(scope: "user-read-currently-playing user-modify-playback-state")
        let result = try await session.run(["like"])
        #expect(result.status == 77)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "spotify-nowplaying: liking songs needs the user-library-modify scope, which the token in SPOTIFY_ACCESS_TOKEN lacks; set a token that has it, or unset SPOTIFY_ACCESS_TOKEN to use your login (spotify-auth login --scope edit adds it)\n"
        )
        #expect(try await session.fake.call("GET", "/_fake/saved-items")["added"] == [])
    }

    @Test func theTargetOfLikeIsReadFromWhatPlays() throws {
        let local: JSONValue = [
            "currently_playing_type": "track",
            "item": ["uri": "spotify:local:Artist:Album:Song:200", "is_local": true, "name": "Song"],
        ]
        #expect(throws: ToolError.self) { try LikeTarget.from(local) }
        let track: JSONValue = [
            "currently_playing_type": "track",
            "item": [
                "uri": "spotify:track:4iV5W9uYEdYUVa79Axb7Rh", "name": "Song\u{1b}[2J", "is_local": false,
                "artists": [["name": "A"], ["name": "B"]],
            ],
        ]
        let target = try LikeTarget.from(track)
        #expect(target.uri == "spotify:track:4iV5W9uYEdYUVa79Axb7Rh")
        #expect(!target.description.contains("\u{1b}"))
        #expect(target.description.hasSuffix("by A, B (spotify:track:4iV5W9uYEdYUVa79Axb7Rh)"))
        do {
            _ = try LikeTarget.from(local)
        } catch let error as ToolError {
            #expect(error.exitCode == .notFound)
            #expect(error.message.contains("local file"))
        }
        #expect(throws: ToolError.self) { try LikeTarget.from(["currently_playing_type": "unknown", "item": .null]) }
    }
}

/// The pure readers of the settings' arguments.
@Suite(.tags(.medium)) struct PlayerArgumentsTests {
    @Test func volumes() throws {
        #expect(try SpotifyNowPlaying.Volume(argument: "0").percent == 0)
        #expect(try SpotifyNowPlaying.Volume(argument: "100").percent == 100)
        #expect(try SpotifyNowPlaying.Volume(argument: " 42% ").percent == 42)
        #expect(try SpotifyNowPlaying.Volume(argument: "007").percent == 7)
        for bad in ["101", "-1", "+5", "1e2", "50.0", "", "%", "5%%", "ten", "٣", String(repeating: "9", count: 500)] {
            #expect(throws: ToolError.self, "\(bad)") { try SpotifyNowPlaying.Volume(argument: bad).percent }
        }
    }

    @Test func seekPositions() throws {
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "1:30").milliseconds == 90_000)
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "90s").milliseconds == 90_000)
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "90").milliseconds == 90_000)
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "1m30s").milliseconds == 90_000)
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "1:02:03").milliseconds == 3_723_000)
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "0").milliseconds == 0)
        #expect(try SpotifyNowPlaying.SeekPosition(argument: "24:00:00").milliseconds == 86_400_000)
        for bad in [
            "-10", "+10", "1:3", "1:60", "1.5", "", " ", "abc", "24:00:01", "1h1h", "9223372036854775807",
            String(repeating: "9", count: 10_000), "١:٣٠",
        ] {
            #expect(throws: ToolError.self, "\(bad)") { try SpotifyNowPlaying.SeekPosition(argument: bad).milliseconds }
        }
        let error = #expect(throws: ToolError.self) { try SpotifyNowPlaying.SeekPosition(argument: "\u{1b}[31m" + "x") }
        #expect(error?.exitCode == .usage)
        #expect(error?.message.contains("\u{1b}") == false)
    }

    @Test func shuffleAndRepeat() throws {
        #expect(try SpotifyNowPlaying.Shuffle(argument: "on").on == true)
        #expect(try SpotifyNowPlaying.Shuffle(argument: "Off").on == false)
        #expect(try SpotifyPlayer.RepeatState(argument: "TRACK") == .track)
        #expect(try SpotifyPlayer.RepeatState(argument: "context") == .context)
        #expect(throws: ToolError.self) { try SpotifyNowPlaying.Shuffle(argument: "random").on }
        #expect(throws: ToolError.self) { try SpotifyPlayer.RepeatState(argument: "all") }
    }

    /// `--with-device` on a terminal says where it plays; without it
    /// the line is as before.
    @Test func deviceOnATerminalShowsTheDevice() async throws {
        let session = try await PlayerControlTests.Session()
        let tty = session.environment.merging(["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]) { $1 }
        let withDevice = try await session.fake.run("spotify-nowplaying", ["--with-device"], environment: tty)
        #expect(withDevice.status == 0, "\(withDevice.stderr)")
        #expect(withDevice.stdout.hasPrefix("▶ Sunrise Drive — The Fixtures (0:"), "\(withDevice.stdout)")
        #expect(withDevice.stdout.hasSuffix(") on Fixture MacBook Pro\n"), "\(withDevice.stdout)")
        let plain = try await session.fake.run("spotify-nowplaying", [], environment: tty)
        #expect(!plain.stdout.contains(" on "), "\(plain.stdout)")
    }
}
