import Foundation
import TestSupport
import Testing

@testable import ToolkitCore

/// spotify-nowplaying's records, refusals and usage errors, in process against an in-process
/// fake-spotify. The watches (timed against the wall clock, and holding the process's signals),
/// and an empty pipe told from /dev/null, are SpotifyNowPlayingEndToEndTests.
@Suite(.tags(.medium)) struct SpotifyNowPlayingCommandTests {
    static let allScopes =
        "user-read-currently-playing user-read-playback-state user-modify-playback-state user-read-recently-played"

    /// A fake, and a token for `scope` in SPOTIFY_ACCESS_TOKEN.
    func fakeWithToken(scope: String = allScopes) async throws -> (InProcessFake, [String: String]) {
        let fake = try InProcessFake()
        let minted = try await fake.call("POST", "/_fake/tokens", form: [("scope", scope)])
        return (fake, ["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""])
    }

    /// Without `stdin`, from /dev/null (as the end-to-end tests ran it): `play` then resumes.
    func nowplaying(_ fake: InProcessFake, _ arguments: [String], _ env: [String: String], stdin: String? = nil)
        async throws -> ToolRun
    {
        try await fake.run("spotify-nowplaying", arguments, stdin: stdin ?? "", noInput: stdin == nil, environment: env)
    }

    /// `songcount ARGUMENTS` reading what another tool printed (the pipe of the end-to-end version).
    func songcount(_ arguments: [String], reading input: ToolRun) async throws -> ToolRun {
        try await InProcess.run("songcount", arguments, stdin: input.stdout)
    }

    // MARK: One shot

    @Test func nothingPlayingPrintsNothingAndExits1() async throws {
        let (fake, env) = try await fakeWithToken()
        let result = try await nowplaying(fake, [], env)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "")
        withExtendedLifetime(fake) {}
    }

    @Test func aPlayingTrackIsOneNowPlayingRecord() async throws {
        let (fake, env) = try await fakeWithToken()
        // Playing, but a thousand times slower than real time: on a loaded machine the seconds
        // between the two reads below must not move the position past 1:29.
        try await fake.call("POST", "/_fake/playback", form: [("position_ms", "83000"), ("speed", "0.001")])
        let result = try await nowplaying(fake, [], env)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(result.stdout)
        #expect(
            record.objectValue?.keys == [
                "type", "id", "uri", "name", "duration_ms", "artists", "album", "explicit", "external_ids", "is_local",
                "is_playing", "progress_ms", "currently_playing_type", "context", "observed_at",
            ])
        #expect(record["type"] == "now_playing")
        #expect(record["name"] == "Sunrise Drive")
        #expect(record["duration_ms"] == 198_000)
        #expect(record["is_playing"] == true)
        #expect((record["progress_ms"]?.intValue ?? 0) >= 83_000)
        #expect(record["context"] == ["type": "playlist", "uri": "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"])
        #expect(parseISOTimestamp(record["observed_at"]?.stringValue ?? "") != nil)
        // The same track fields as spotify-tracks' records, so jq and songcount read it alike.
        // spotify-nowplaying | songcount --target 10m
        let viaJQ = try await songcount(["--target", "10m"], reading: try await nowplaying(fake, [], env))
        #expect(viaJQ.stdout.contains(#""track_count":1"#))

        let human = try await nowplaying(fake, [], env.merging(["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]) { $1 })
        #expect(human.stdout.hasPrefix("▶ Sunrise Drive — The Fixtures (1:2"))
        #expect(human.stdout.hasSuffix(" / 3:18)\n"))
    }

    @Test func deviceAddsTheDeviceAndShuffleRepeatState() async throws {
        let (fake, env) = try await fakeWithToken()
        try await fake.call("POST", "/_fake/playback")
        let record = try JSONValue.parse(try await nowplaying(fake, ["--with-device"], env).stdout)
        #expect(
            record["device"] == [
                "id": "0d1841b0976bae2a3a310dd74c0f3df354899bc8", "name": "Fixture MacBook Pro", "type": "Computer",
            ])
        #expect(record["shuffle_state"] == false)
        #expect(record["repeat_state"] == "off")
        #expect(try await fake.counters()["requests"]?["GET /v1/me/player"] == 1)
    }

    @Test func pausedIsARecordUnlessPlayingOnly() async throws {
        let (fake, env) = try await fakeWithToken()
        try await fake.call("POST", "/_fake/playback", form: [("playing", "false")])
        let paused = try await nowplaying(fake, [], env)
        #expect(paused.status == 0)
        #expect(try JSONValue.parse(paused.stdout)["is_playing"] == false)
        let playingOnly = try await nowplaying(fake, ["--playing-only"], env)
        #expect(playingOnly.status == 1)
        #expect(playingOnly.stdout == "")
    }

    @Test func anAdIsNothingAndAnEpisodeIsSomething() async throws {
        let (fake, env) = try await fakeWithToken()
        try await fake.call("POST", "/_fake/playback", form: [("mode", "ad")])
        let ad = try await nowplaying(fake, [], env)
        #expect(ad.status == 1)
        #expect(ad.stdout == "")
        try await fake.call("POST", "/_fake/playback/episode")
        let episode = try await nowplaying(fake, [], env)
        #expect(episode.status == 0)
        let record = try JSONValue.parse(episode.stdout)
        #expect(record["currently_playing_type"] == "episode")
        #expect(record["show"]?["name"] == "The Studio Hour")
        #expect(record["artists"] == [])
        // Episodes are not songs.
        // spotify-nowplaying | songcount
        let counted = try await songcount([], reading: try await nowplaying(fake, [], env))
        #expect(counted.status == 1)
        #expect(counted.stderr.contains("skipped 1 record that is not a song"))
    }

    /// Options belong to their command; -h is short, --help whole.
    @Test func optionsBelongToTheirCommand() async throws {
        let (fake, env) = try await fakeWithToken()
        for arguments in [["pause", "--for", "5s"], ["recent", "--watch"], ["next", "--interval", "1s"]] {
            let result = try await nowplaying(fake, arguments, env)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("unknown option"), "\(result.stderr)")
        }
        let playHelp = try await nowplaying(fake, ["play", "--help"], env).stdout
        let deviceRows = playHelp.split(separator: "\n").filter {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("--device") || $0.contains(", --device")
        }
        #expect(deviceRows.count == 1, "one --device, the device to play on: \(deviceRows)")
        #expect(!playHelp.contains("--watch") && !playHelp.contains("--interval"), "\(playHelp)")
        let short = try await nowplaying(fake, ["-h"], env).stdout
        let long = try await nowplaying(fake, ["--help"], env).stdout
        #expect(short.split(separator: "\n").count * 2 < long.split(separator: "\n").count, "-h is short")
        #expect(short.contains("The whole text: 'spotify-nowplaying --help'"))
        #expect(try await fake.counters()["requests"] == [:])
    }

    @Test func badOptionsAreUsageErrorsBeforeAnyCall() async throws {
        let (fake, env) = try await fakeWithToken()
        #expect(try await nowplaying(fake, ["--for", "5m"], env).status == 64)
        #expect(try await nowplaying(fake, ["--watch", "--interval", "0"], env).status == 64)
        #expect(try await nowplaying(fake, ["--watch", "--for", "soon"], env).status == 64)
        #expect(try await nowplaying(fake, ["play", "spotify:user:x"], env).status == 64)
        let scale = try await nowplaying(fake, ["--watch"], env.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "0"]) { $1 })
        #expect(scale.status == 78)
        #expect(try await fake.counters()["requests"] == [:])
    }

    // MARK: Playback control

    static let commands: [[String]] = [
        ["play"], ["play", "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"], ["pause"], ["next"], ["previous"],
        ["queue", "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"],
    ]

    @Test(arguments: commands)
    func everyCommandAgainstEveryAnswer(command: [String]) async throws {
        let (fake, env) = try await fakeWithToken()
        try await fake.call("POST", "/_fake/playback", form: [("playing", command == ["play"] ? "false" : "true")])
        let ok = try await nowplaying(fake, command, env)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout == "")
        #expect(ok.stderr.hasPrefix("spotify-nowplaying: sent to the active device: "))
        let expectations: [(String, Int32, String)] = [
            ("premium_required", 77, "needs Spotify Premium (PREMIUM_REQUIRED)"),
            ("no_active_device", 69, "no active device (NO_ACTIVE_DEVICE)"),
            ("restricted", 69, "does not accept remote commands"),
        ]
        for (answer, status, message) in expectations {
            try await fake.call("POST", "/_fake/playback/answer", form: [("answer", answer)])
            let refused = try await nowplaying(fake, command, env)
            #expect(refused.status == status, "\(answer): \(refused.stderr)")
            #expect(refused.stderr.contains(message), "\(answer): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let (readOnlyFake, readOnly) = try await fakeWithToken(scope: "user-read-currently-playing")
        let noScope = try await nowplaying(readOnlyFake, command, readOnly)
        #expect(noScope.status == 77)
        #expect(noScope.stderr.contains("spotify-auth login --scope playback"))
        withExtendedLifetime(readOnlyFake) {}
    }

    @Test func playSendsWhatItWasGiven() async throws {
        let (fake, env) = try await fakeWithToken()
        try await fake.call("POST", "/_fake/playback", form: [("playing", "false")])
        #expect(try await nowplaying(fake, ["play"], env).status == 0)
        #expect(
            try await nowplaying(
                fake, ["play", "https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy?si=x", "--device", "kitchen"], env
            ).status == 0)
        let records = """
            {"type":"track","id":"0FakeTrack000000000003","uri":"spotify:track:0FakeTrack000000000003","name":"Bicycle Bell","duration_ms":151000}
            {"type":"track","id":null,"uri":"spotify:local:::Snomads+Island:127","name":"Snomads Island","duration_ms":127000,"is_local":true}
            spotify:track:0FakeTrack000000000004
            """
        let fromStdin = try await nowplaying(fake, ["play"], env, stdin: records)
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(fromStdin.stderr.contains("skipped 1 local file"))
        let commands = try #require(try await fake.call("GET", "/_fake/playback")["commands"]?.arrayValue)
        #expect(
            commands.map { $0["body"] ?? .null } == [
                .null,
                ["context_uri": "spotify:album:4aawyAB9vmqN3uQ7FjRGTy"],
                ["uris": ["spotify:track:0FakeTrack000000000003", "spotify:track:0FakeTrack000000000004"]],
            ])
        #expect(commands[1]["device_id"] == "a2b7e0c1d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8")
        let now = try JSONValue.parse(try await nowplaying(fake, [], env).stdout)
        #expect(now["name"] == "Bicycle Bell")

        let restricted = try await nowplaying(fake, ["pause", "--device", "Living Room"], env)
        #expect(restricted.status == 69)
        #expect(restricted.stderr.contains("the device 'Living Room' does not accept remote commands"))
        let unknown = try await nowplaying(fake, ["pause", "--device", "Garage"], env)
        #expect(unknown.status == 69)
        #expect(unknown.stderr.contains("known: Fixture MacBook Pro, Kitchen, Living Room"))
        let bad = try await nowplaying(fake, ["play"], env, stdin: "not a uri\n")
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("line 1"))
    }

    @Test func devicesAreDeviceRecords() async throws {
        let (fake, env) = try await fakeWithToken()
        defer { withExtendedLifetime(fake) {} }
        let result = try await nowplaying(fake, ["devices"], env)
        #expect(result.status == 0)
        let records = try result.stdoutLines.map { try JSONValue.parse($0) }
        #expect(records.map { $0["name"]?.stringValue ?? "" } == ["Fixture MacBook Pro", "Kitchen", "Living Room"])
        #expect(records[2]["is_restricted"] == true)
        #expect(records[0]["type"] == "device")
        #expect(records[0]["device_type"] == "Computer")
    }

    // MARK: Listening history

    @Test func recentPagesThroughTheCursorAndPrintsOldestFirst() async throws {
        let (fake, env) = try await fakeWithToken()
        try await fake.call("POST", "/_fake/playback", form: [("mode", "nothing"), ("page_size", "3")])
        try await fake.call("POST", "/_fake/playback/history", form: [("count", "8")])
        let result = try await nowplaying(fake, ["recent"], env)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.stdoutLines.map { try JSONValue.parse($0) }
        #expect(records.count == 8)
        #expect(records.allSatisfy { $0["type"] == "played" })
        let times = records.compactMap { $0["played_at"]?.stringValue }
        #expect(times == times.sorted())
        #expect(records.last?["name"] == "Sunrise Drive")  // the most recent play
        #expect(try await fake.counters()["requests"]?["GET /v1/me/player/recently-played"] == 3)

        // The last 12 minutes: plays that ended now, 3:18, 6:12 and 9:53 ago; the next ended 12:24
        // ago. (10 minutes left only 7 s for a loaded machine between seeding and asking.)
        let recent = try await nowplaying(fake, ["recent", "--since", "12m"], env)
        #expect(recent.stdoutLines.count == 4)
        // spotify-nowplaying recent --since 12m | songcount --label
        let counted = try await songcount(
            ["--label"], reading: try await nowplaying(fake, ["recent", "--since", "12m"], env))
        #expect(counted.stdout == "4 songs\n")
        let future = try await nowplaying(fake, ["recent", "--after", "2999-01-01T00:00:00Z"], env)
        #expect(future.status == 1)
        #expect(future.stdout == "")
    }
}
