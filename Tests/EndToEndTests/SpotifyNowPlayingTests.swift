import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// A tool running in the background whose stdout lines the test can wait for (event-driven, no
/// timed assertions: waits are bounded only so a broken tool cannot hang the suite).
final class BackgroundTool: @unchecked Sendable {  // `lines` and `errors` behind `lock`
    let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private var errorData = Data()
    private var done = false

    init(_ tool: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = ToolProcess.url(of: tool)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SPOTIFY_TOOLKIT_FORCE_TTY")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        Thread.detachNewThread { [self] in
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                lock.withLock { buffer.append(chunk) }
            }
            lock.withLock { done = true }
        }
        Thread.detachNewThread { [self] in
            let data = err.fileHandleForReading.readDataToEndOfFile()
            lock.withLock { errorData = data }
        }
    }

    deinit { if process.isRunning { process.terminate() } }

    var lines: [String] {
        lock.withLock { String(decoding: buffer, as: UTF8.self) }.split(separator: "\n").map(String.init)
    }

    /// Waits (bounded: 60 s) until at least `count` lines arrived; true when they did.
    @discardableResult
    func waitForLines(_ count: Int) -> Bool {
        for _ in 0..<6000 {
            if lines.count >= count { return true }
            if lock.withLock({ done }) { return lines.count >= count }
            usleep(10_000)
        }
        return false
    }

    /// Waits for the exit (bounded: 60 s, then killed) and the end of output.
    func finish() -> (status: Int32, stdout: [String], stderr: String) {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        for _ in 0..<500 where !lock.withLock({ done }) { usleep(10_000) }
        usleep(50_000)
        return (process.terminationStatus, lines, lock.withLock { String(decoding: errorData, as: UTF8.self) })
    }
}

@Suite struct SpotifyNowPlayingEndToEndTests {
    static let allScopes =
        "user-read-currently-playing user-read-playback-state user-modify-playback-state user-read-recently-played"

    /// A fake with a token for `scope` in SPOTIFY_ACCESS_TOKEN.
    func fakeWithToken(scope: String = allScopes) throws -> (FakeSpotifyProcess, [String: String]) {
        let fake = try FakeSpotifyProcess()
        let minted = try fake.call("POST", "/_fake/tokens", form: [("scope", scope)])
        return (fake, fake.environment(["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""]))
    }

    func nowplaying(_ arguments: [String], _ env: [String: String], stdin: String? = nil) throws -> ToolResult {
        try ToolProcess.run("spotify-nowplaying", arguments, stdin: stdin, environment: env)
    }

    // MARK: One shot

    @Test func nothingPlayingPrintsNothingAndExits1() throws {
        let (fake, env) = try fakeWithToken()
        let result = try nowplaying([], env)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "")
        withExtendedLifetime(fake) {}
    }

    @Test func aPlayingTrackIsOneNowPlayingRecord() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("position_ms", "83000")])
        let result = try nowplaying([], env)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(result.stdout)
        #expect(
            record.objectValue?.keys == [
                "type", "id", "uri", "name", "duration_ms", "artists", "album", "is_local",
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
        let viaJQ = try ToolProcess.shell("spotify-nowplaying | songcount --target 10m", environment: env)
        #expect(viaJQ.stdout.contains(#""track_count":1"#))

        let human = try nowplaying([], env.merging(["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]) { $1 })
        #expect(human.stdout.hasPrefix("▶ Sunrise Drive — The Fixtures (1:2"))
        #expect(human.stdout.hasSuffix(" / 3:18)\n"))
    }

    @Test func deviceAddsTheDeviceAndShuffleRepeatState() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback")
        let record = try JSONValue.parse(try nowplaying(["--device"], env).stdout)
        #expect(
            record["device"] == [
                "id": "0d1841b0976bae2a3a310dd74c0f3df354899bc8", "name": "Fixture MacBook Pro", "type": "Computer",
            ])
        #expect(record["shuffle_state"] == false)
        #expect(record["repeat_state"] == "off")
        #expect(try fake.counters()["requests"]?["GET /v1/me/player"] == 1)
    }

    @Test func pausedIsARecordUnlessPlayingOnly() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("playing", "false")])
        let paused = try nowplaying([], env)
        #expect(paused.status == 0)
        #expect(try JSONValue.parse(paused.stdout)["is_playing"] == false)
        let playingOnly = try nowplaying(["--playing-only"], env)
        #expect(playingOnly.status == 1)
        #expect(playingOnly.stdout == "")
    }

    @Test func anAdIsNothingAndAnEpisodeIsSomething() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("mode", "ad")])
        let ad = try nowplaying([], env)
        #expect(ad.status == 1)
        #expect(ad.stdout == "")
        try fake.call("POST", "/_fake/playback/episode")
        let episode = try nowplaying([], env)
        #expect(episode.status == 0)
        let record = try JSONValue.parse(episode.stdout)
        #expect(record["currently_playing_type"] == "episode")
        #expect(record["show"]?["name"] == "The Studio Hour")
        #expect(record["artists"] == [])
        // Episodes are not songs.
        let counted = try ToolProcess.shell("spotify-nowplaying | songcount", environment: env)
        #expect(counted.status == 1)
        #expect(counted.stderr.contains("skipped 1 record that is not a song"))
    }

    /// Issue 20, item 10: options belong to their command; -h is short, --help whole.
    @Test func optionsBelongToTheirCommand() throws {
        let (fake, env) = try fakeWithToken()
        for arguments in [["pause", "--for", "5s"], ["recent", "--watch"], ["next", "--interval", "1s"]] {
            let result = try nowplaying(arguments, env)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("unknown option"), "\(result.stderr)")
        }
        let playHelp = try nowplaying(["play", "--help"], env).stdout
        let deviceRows = playHelp.split(separator: "\n").filter {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("--device") || $0.contains(", --device")
        }
        #expect(deviceRows.count == 1, "one --device, the device to play on: \(deviceRows)")
        #expect(!playHelp.contains("--watch") && !playHelp.contains("--interval"), "\(playHelp)")
        let short = try nowplaying(["-h"], env).stdout
        let long = try nowplaying(["--help"], env).stdout
        #expect(short.split(separator: "\n").count * 2 < long.split(separator: "\n").count, "-h is short")
        #expect(short.contains("The whole text: 'spotify-nowplaying --help'"))
        #expect(try fake.counters()["requests"] == [:])
    }

    @Test func badOptionsAreUsageErrorsBeforeAnyCall() throws {
        let (fake, env) = try fakeWithToken()
        #expect(try nowplaying(["--for", "5m"], env).status == 64)
        #expect(try nowplaying(["--watch", "--interval", "0"], env).status == 64)
        #expect(try nowplaying(["--watch", "--for", "soon"], env).status == 64)
        #expect(try nowplaying(["play", "spotify:user:x"], env).status == 64)
        let scale = try nowplaying(["--watch"], env.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "0"]) { $1 })
        #expect(scale.status == 78)
        #expect(try fake.counters()["requests"] == [:])
    }

    // MARK: Watch

    /// 5 songs from 0:50 into the first, 15 minutes at 60x: 0.75 + 1 + 1 + 1 + 120/190 ≈ 4.38 songs.
    @Test func aWatchOverAKnownSessionCountsRight() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call(
            "POST", "/_fake/playback",
            form: [("durations", "200,180,240,210,190,300"), ("position_ms", "50000"), ("speed", "60")])
        let watch = try ToolProcess.shell(
            "spotify-nowplaying --watch --for 15m | songcount",
            environment: env.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "60"]) { $1 })
        #expect(watch.status == 0, "\(watch.stderr)")
        let count = try JSONValue.parse(watch.stdout)
        #expect(count["track_count"] == 5)
        #expect(count["label"] == "4.5 songs")
        let songs = count["songs"]?.doubleValue ?? 0
        #expect(songs > 4.3 && songs < 4.45, "\(songs)")
    }

    @Test func aWatchPrintsExactlyTheChangesInOrderAndEndsOnSIGINTWithAFinalRecord() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("durations", "600,120,900"), ("speed", "60")])
        let watch = try BackgroundTool(
            "spotify-nowplaying", ["--watch"], environment: env.merging(["SPOTIFY_TOOLKIT_TIME_SCALE": "60"]) { $1 })
        #expect(watch.waitForLines(1))
        try fake.call("POST", "/_fake/playback/pause")
        #expect(watch.waitForLines(2))
        try fake.call("POST", "/_fake/playback/resume")
        #expect(watch.waitForLines(3))
        try fake.call("POST", "/_fake/playback/next")
        #expect(watch.waitForLines(4))
        #expect(watch.waitForLines(5))  // the second song ends by itself
        kill(watch.process.processIdentifier, SIGINT)
        let (status, lines, stderr) = watch.finish()
        #expect(status == 0, "\(stderr)")
        let records = try lines.map { try JSONValue.parse($0) }
        let summary = records.map {
            "\($0["name"]?.stringValue ?? "-") \($0["is_playing"] == true ? "playing" : "paused")\($0["final"] == true ? " final" : "")"
        }
        #expect(
            summary == [
                "Sunrise Drive playing", "Sunrise Drive paused", "Sunrise Drive playing",
                "Coffee First playing", "Open Windows playing", "Open Windows playing final",
            ])
        #expect(records.allSatisfy { $0["type"] == "now_playing" })
    }

    @Test func sigtermEndsAWatchWithTheFinalRecordToo() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("position_ms", "10000")])
        let watch = try BackgroundTool("spotify-nowplaying", ["--watch"], environment: env)
        #expect(watch.waitForLines(1))
        watch.process.terminate()
        let (status, lines, _) = watch.finish()
        #expect(status == 0)
        #expect(lines.count == 2)
        let final = try JSONValue.parse(lines.last ?? "")
        #expect(final["final"] == true)
        #expect(final["name"] == "Sunrise Drive")
        #expect((final["progress_ms"]?.intValue ?? 0) >= 10_000)
    }

    @Test func aWatchSurvivesServerErrorsRateLimitsAndAnExpiredToken() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        let env = fake.environment(["SPOTIFY_TOOLKIT_TIME_SCALE": "60"])
        try fake.call("POST", "/_fake/playback", form: [("durations", "300,120,900"), ("speed", "60")])
        let watch = try BackgroundTool("spotify-nowplaying", ["--watch", "--for", "10m"], environment: env)
        #expect(watch.waitForLines(1))
        let path = "/v1/me/player/currently-playing"
        try fake.call("POST", "/_fake/fail", form: [("path", path), ("status", "503"), ("count", "3")])
        try fake.call("POST", "/_fake/fail", form: [("path", path), ("status", "429"), ("retry_after", "5")])
        try fake.call("POST", "/_fake/expire-access-tokens")
        let (status, lines, stderr) = watch.finish()
        #expect(status == 0, "\(stderr)")
        let names = try lines.map { try JSONValue.parse($0)["name"]?.stringValue ?? "-" }
        #expect(names == ["Sunrise Drive", "Coffee First", "Open Windows", "Open Windows"])
        // Each failure streak once, not once per retry; the token never shows.
        #expect(stderr.components(separatedBy: "HTTP 503").count - 1 == 1, "\(stderr)")
        #expect(stderr.contains("rate limiting; waiting the 5 s it asked for"))
        let stored = try #require(try fake.store.load())
        #expect(!stderr.contains(stored.accessToken))
        #expect(try fake.counters()["refreshes"] == 1)
    }

    // MARK: Playback control

    static let commands: [[String]] = [
        ["play"], ["play", "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"], ["pause"], ["next"], ["previous"],
        ["queue", "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"],
    ]

    @Test(arguments: commands)
    func everyCommandAgainstEveryAnswer(command: [String]) throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("playing", command == ["play"] ? "false" : "true")])
        let ok = try nowplaying(command, env)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout == "")
        #expect(ok.stderr.hasPrefix("spotify-nowplaying: sent to the active device: "))
        let expectations: [(String, Int32, String)] = [
            ("premium_required", 77, "needs Spotify Premium (PREMIUM_REQUIRED)"),
            ("no_active_device", 69, "no active device (NO_ACTIVE_DEVICE)"),
            ("restricted", 69, "does not accept remote commands"),
        ]
        for (answer, status, message) in expectations {
            try fake.call("POST", "/_fake/playback/answer", form: [("answer", answer)])
            let refused = try nowplaying(command, env)
            #expect(refused.status == status, "\(answer): \(refused.stderr)")
            #expect(refused.stderr.contains(message), "\(answer): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let (readOnlyFake, readOnly) = try fakeWithToken(scope: "user-read-currently-playing")
        let noScope = try nowplaying(command, readOnly)
        #expect(noScope.status == 77)
        #expect(noScope.stderr.contains("spotify-auth login --scope playback"))
        withExtendedLifetime(readOnlyFake) {}
    }

    /// Issue 20, item 3: a pipeline that went wrong upstream leaves an empty pipe; play must not
    /// take that for "no input" and resume what was paused.
    @Test func anEmptyPipeNeverStartsMusic() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("playing", "false")])
        let pipeline = try ToolProcess.shell(
            "spotify-playlists local show 'Mix Typo' | spotify-nowplaying play; echo \"${PIPESTATUS[*]}\" >&2",
            environment: env)
        #expect(pipeline.stderr.contains("no local playlist called 'Mix Typo'"), "\(pipeline.stderr)")
        #expect(pipeline.stderr.contains("standard input was empty: nothing to play"), "\(pipeline.stderr)")
        #expect(pipeline.stderr.hasSuffix("1 1\n"), "both stages fail: \(pipeline.stderr)")
        let playback = try fake.call("GET", "/_fake/playback")
        #expect(playback["commands"]?.arrayValue?.isEmpty ?? true, "no play command was sent")
        #expect(try JSONValue.parse(try nowplaying([], env).stdout)["is_playing"] == false, "still paused")
        // Without stdin (or from /dev/null, as cron runs it) play still resumes.
        let resumed = try ToolProcess.shell("spotify-nowplaying play < /dev/null", environment: env)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resume"))
    }

    @Test func playSendsWhatItWasGiven() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("playing", "false")])
        #expect(try nowplaying(["play"], env).status == 0)
        #expect(
            try nowplaying(
                ["play", "https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy?si=x", "--device", "kitchen"], env
            ).status == 0)
        let records = """
            {"type":"track","id":"0FakeTrack000000000003","uri":"spotify:track:0FakeTrack000000000003","name":"Bicycle Bell","duration_ms":151000}
            {"type":"track","id":null,"uri":"spotify:local:::Snomads+Island:127","name":"Snomads Island","duration_ms":127000,"is_local":true}
            spotify:track:0FakeTrack000000000004
            """
        let fromStdin = try nowplaying(["play"], env, stdin: records)
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(fromStdin.stderr.contains("skipped 1 local file"))
        let commands = try #require(try fake.call("GET", "/_fake/playback")["commands"]?.arrayValue)
        #expect(
            commands.map { $0["body"] ?? .null } == [
                .null,
                ["context_uri": "spotify:album:4aawyAB9vmqN3uQ7FjRGTy"],
                ["uris": ["spotify:track:0FakeTrack000000000003", "spotify:track:0FakeTrack000000000004"]],
            ])
        #expect(commands[1]["device_id"] == "a2b7e0c1d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8")
        let now = try JSONValue.parse(try nowplaying([], env).stdout)
        #expect(now["name"] == "Bicycle Bell")

        let restricted = try nowplaying(["pause", "--device", "Living Room"], env)
        #expect(restricted.status == 69)
        #expect(restricted.stderr.contains("the device 'Living Room' does not accept remote commands"))
        let unknown = try nowplaying(["pause", "--device", "Garage"], env)
        #expect(unknown.status == 69)
        #expect(unknown.stderr.contains("known: Fixture MacBook Pro, Kitchen, Living Room"))
        let bad = try nowplaying(["play"], env, stdin: "not a uri\n")
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("line 1"))
    }

    @Test func devicesAreDeviceRecords() throws {
        let (fake, env) = try fakeWithToken()
        defer { withExtendedLifetime(fake) {} }
        let result = try nowplaying(["devices"], env)
        #expect(result.status == 0)
        let records = try result.stdoutLines.map { try JSONValue.parse($0) }
        #expect(records.map { $0["name"]?.stringValue ?? "" } == ["Fixture MacBook Pro", "Kitchen", "Living Room"])
        #expect(records[2]["is_restricted"] == true)
        #expect(records[0]["type"] == "device")
        #expect(records[0]["device_type"] == "Computer")
    }

    // MARK: Listening history

    @Test func recentPagesThroughTheCursorAndPrintsOldestFirst() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("mode", "nothing"), ("page_size", "3")])
        try fake.call("POST", "/_fake/playback/history", form: [("count", "8")])
        let result = try nowplaying(["recent"], env)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.stdoutLines.map { try JSONValue.parse($0) }
        #expect(records.count == 8)
        #expect(records.allSatisfy { $0["type"] == "played" })
        let times = records.compactMap { $0["played_at"]?.stringValue }
        #expect(times == times.sorted())
        #expect(records.last?["name"] == "Sunrise Drive")  // the most recent play
        #expect(try fake.counters()["requests"]?["GET /v1/me/player/recently-played"] == 3)

        // The last 12 minutes: plays that ended now, 3:18, 6:12 and 9:53 ago; the next ended 12:24
        // ago. (10 minutes left only 7 s for a loaded machine between seeding and asking.)
        let recent = try nowplaying(["recent", "--since", "12m"], env)
        #expect(recent.stdoutLines.count == 4)
        let counted = try ToolProcess.shell(
            "spotify-nowplaying recent --since 12m | songcount --label", environment: env)
        #expect(counted.stdout == "4 songs\n")
        let future = try nowplaying(["recent", "--after", "2999-01-01T00:00:00Z"], env)
        #expect(future.status == 1)
        #expect(future.stdout == "")
    }

    @Test func recentWithoutTheScopeSaysHowToGetIt() throws {
        let (fake, env) = try fakeWithToken(scope: "user-read-currently-playing")
        defer { withExtendedLifetime(fake) {} }
        let result = try nowplaying(["recent"], env)
        #expect(result.status == 77)
        #expect(
            result.stderr
                == "spotify-nowplaying: listening history needs the user-read-recently-played scope, which the token in SPOTIFY_ACCESS_TOKEN lacks; set a token that has it, or unset SPOTIFY_ACCESS_TOKEN to use your login (spotify-auth login --scope history adds it)\n"
        )
    }
}
