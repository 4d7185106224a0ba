import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

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

/// spotify-nowplaying where a process is needed: watches (a watch at a time scale races the wall
/// clock, which a loaded test process starves, and holds SIGINT, SIGTERM and SIGHUP while it
/// runs), a watch ended by a signal, and an empty pipe told from /dev/null. Records, refusals
/// and usage errors run in process (SpotifyNowPlayingCommandTests).
@Suite(.tags(.large)) struct SpotifyNowPlayingEndToEndTests {
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

    /// One watch, many readers: one shots beside a watch answer from its latest poll, at no request.
    @Test func oneShotsBesideAWatchSendNoRequest() throws {
        let (fake, env) = try fakeWithToken()
        try fake.call("POST", "/_fake/playback", form: [("durations", "600,120"), ("position_ms", "10000")])
        // A minute between polls, so the published answer stays fresh however slow this machine is.
        let watch = try BackgroundTool("spotify-nowplaying", ["--watch", "--interval", "60s"], environment: env)
        #expect(watch.waitForLines(1))
        let share = (env["XDG_RUNTIME_DIR"] ?? "") + "/spotify-toolkit/nowplaying-\(FakeHome.clientID).json"
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: share) { usleep(10_000) }
        #expect(FileManager.default.fileExists(atPath: share))
        try fake.call("POST", "/_fake/reset-counters")
        for _ in 0..<10 {
            let shot = try nowplaying(["--json"], env)
            #expect(shot.status == 0, "\(shot.stderr)")
            let record = try JSONValue.parse(shot.stdout)
            #expect(record["name"] == "Sunrise Drive")
            #expect((record["progress_ms"]?.intValue ?? 0) >= 10_000)
        }
        let player = "GET /v1/me/player/currently-playing"
        #expect((try fake.counters()["requests"]?[player]?.intValue ?? 0) == 0, "no one shot asked Spotify")
        #expect(try nowplaying(["--json", "--fresh"], env).status == 0)
        #expect(try fake.counters()["requests"]?[player]?.intValue == 1, "--fresh asks Spotify")

        watch.process.terminate()
        _ = watch.finish()
        #expect(!FileManager.default.fileExists(atPath: share), "a stopped watch withdraws what it published")
        #expect(try nowplaying(["--json"], env).status == 0)
        #expect(try fake.counters()["requests"]?[player]?.intValue == 2, "without a watch, a one shot asks")
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
}
