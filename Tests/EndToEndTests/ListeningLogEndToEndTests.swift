import Foundation
import Testing

@testable import ToolkitCore

/// The listening log and the song timer with real processes: plays piped between the tools,
/// processes writing the log at once, the watch adding what it hears, `pause --at-end` against
/// fake-spotify's playback clock, and Ctrl-C cancelling it.
@Suite(.tags(.large)) struct ListeningLogEndToEndTests {
    static let scope =
        """
        user-read-currently-playing user-read-playback-state user-modify-playback-state user-read-recently-played \
        playlist-read-private playlist-read-collaborative playlist-modify-private playlist-modify-public
        """

    /// fake-spotify, and the environment of a login to it that may do all of the above.
    func setUp() throws -> (FakeSpotifyProcess, [String: String]) {
        let fake = try FakeSpotifyProcess()
        let minted = try fake.call("POST", "/_fake/tokens", form: [("expires_in", "3600"), ("scope", Self.scope)])
        var env = fake.environment(["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""])
        env["FAKE"] = fake.base
        env["HOME_DIR"] = fake.home.url.path
        return (fake, env)
    }

    func logLines(_ fake: FakeSpotifyProcess) -> [String] {
        let path = fake.home.url.appendingPathComponent("data/spotify-toolkit/listening-log.jsonl").path
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func whatPlaysAndTheLastTwoPlaysArePipedIntoAPlaylist() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        try fake.call("POST", "/_fake/playback", form: [("position_ms", "83000"), ("speed", "0.001")])
        try fake.call("POST", "/_fake/playback/history", form: [("count", "5")])
        let script = """
            P=gen0000000000000000003
            count() { spotify-tracks --no-cache "$P" | wc -l; }
            before=$(count)
            spotify-nowplaying --json | spotify-playlists add "$P" >/dev/null || echo "add 1 failed: ${PIPESTATUS[*]}"
            one=$(count)
            spotify-nowplaying recent | head -2 | spotify-playlists add "$P" >/dev/null || echo "add 2 failed"
            three=$(count)
            echo "$((one - before)) $((three - one))"
            spotify-tracks --no-cache "$P" | tail -2 | jq -r .uri
            spotify-nowplaying recent | head -2 | jq -r .uri
            """
        let result = try ToolProcess.shell(script, environment: env)
        let lines = result.stdoutLines
        #expect(lines.first == "1 2", "\(result.stdout)\n\(result.stderr)")
        #expect(lines.count == 5 && Array(lines[1...2]) == Array(lines[3...4]), "\(result.stdout)")
    }

    @Test func processesWritingTheLogAtOnceAddEachPlayOnce() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        try fake.call("POST", "/_fake/playback", form: [("mode", "nothing")])
        try fake.call("POST", "/_fake/playback/history", form: [("count", "30")])
        let files = try TemporaryDirectory()
        // Two downloads of 400 plays each, a minute apart.
        for year in [2023, 2024] {
            let entries = (0..<400).map { index in
                let minute = index % 60
                let hour = index / 60
                return """
                    {"ts":"\(year)-05-01T\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):00Z",\
                    "ms_played":\(1000 + index),"master_metadata_track_name":"Song \(index)",\
                    "master_metadata_album_artist_name":"Artist","master_metadata_album_album_name":"Album",\
                    "spotify_track_uri":"spotify:track:0FakeTrack\(String(repeating: "0", count: 12 - String(index).count))\(index)",\
                    "episode_name":null,"episode_show_name":null,"spotify_episode_uri":null,"reason_end":"trackdone",\
                    "skipped":false}
                    """
            }
            try files.file(
                "Streaming_History_Audio_\(year).json", contents: "[" + entries.joined(separator: ",\n") + "]")
        }
        let script = """
            cd "\(files.path)"
            for i in 1 2 3; do
              spotify-nowplaying history import Streaming_History_Audio_2023.json 2>>err & 
              spotify-nowplaying history import Streaming_History_Audio_2024.json Streaming_History_Audio_2023.json 2>>err &
              spotify-nowplaying history sync 2>>err &
            done
            fails=0
            for job in $(jobs -p); do wait "$job" || fails=$((fails + 1)); done
            echo "$fails"
            """
        let result = try ToolProcess.shell(script, environment: env, timeout: 120)
        #expect(result.stdout == "0\n", "\(result.stderr)\n\((try? files.read("err")) ?? "")")
        let lines = logLines(fake)
        #expect(lines.count == 830)
        let records = try lines.map { try JSONValue.parse($0) }
        let keys = records.map { "\($0["uri"]?.stringValue ?? "")@\($0["played_at"]?.stringValue ?? "")" }
        #expect(Set(keys).count == 830)
        #expect(records.filter { $0["logged_from"] == "recently_played" }.count == 30)
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: fake.home.url.appendingPathComponent("data/spotify-toolkit/listening-log.jsonl").path)[
                .posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func theWatchAddsTheSongsItSeesPlayedThrough() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        // Two 20-second songs at ten times the speed, watched for 50 s of that time: both end.
        try fake.call("POST", "/_fake/playback", form: [("durations", "20,20,60"), ("speed", "10")])
        var watchEnv = env
        watchEnv["SPOTIFY_TOOLKIT_TIME_SCALE"] = "10"
        let watch = try ToolProcess.run(
            "spotify-nowplaying", ["--watch", "--for", "50s"], environment: watchEnv, timeout: 60)
        #expect(watch.status == 0, "\(watch.stderr)")
        let logged = try logLines(fake).map { try JSONValue.parse($0) }
        #expect(
            logged.map { $0["uri"]?.stringValue ?? "" } == [
                "spotify:track:0FakeTrack000000000000", "spotify:track:0FakeTrack000000000001",
            ], "\(logged)")
        #expect(logged.allSatisfy { $0["type"] == "played" && $0["logged_from"] == "watch" })
        #expect(logged.first?["duration_ms"] == 20_000)
    }

    @Test func pauseAtEndPausesAtTheEndOfTheSongOnTheFakesClock() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        // 25 s of the song left at five times the speed: 5 s; a second late is 5 s into the next song.
        try fake.call(
            "POST", "/_fake/playback", form: [("durations", "40,40"), ("speed", "5"), ("position_ms", "15000")])
        var timed = env
        timed["SPOTIFY_TOOLKIT_TIME_SCALE"] = "5"
        let run = try ToolProcess.run("spotify-nowplaying", ["pause", "--at-end"], environment: timed, timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let state = try fake.call("GET", "/_fake/playback")
        #expect(state["is_playing"] == false)
        let index = state["index"]?.intValue ?? -1
        let position = state["position_ms"]?.intValue ?? -1
        #expect((index == 0 && position >= 30_000) || (index == 1 && position <= 10_000), "\(state)")
        #expect((try fake.counters()["requests"]?["GET /v1/me/player/currently-playing"]?.intValue ?? 99) <= 3)
    }

    /// routine-link run --stop-at-end: a one-minute routine over 40-second songs at ten times the
    /// speed; its time is up 20 s into the second song, which then plays to its end and pauses.
    @Test func runStopAtEndPausesAtTheEndOfTheSongThatCrossesTheRoutinesTime() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        let home = try RoutineHome()
        var routineEnv = env
        for (key, value) in home.environment() where env[key] == nil || ["BROWSER", "PATH"].contains(key) {
            routineEnv[key] = value
        }
        _ = try ToolProcess.run("routine-link", ["add", "morning", "--duration", "1m"], environment: routineEnv)
        let record =
            #"{"type":"playlist","id":"3cEYpjA9oz9GiPac4AsH4n","uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","name":"Morning Mix","images":[]}"#
        _ = try ToolProcess.run("routine-link", ["link", "morning"], stdin: record + "\n", environment: routineEnv)
        try fake.call("POST", "/_fake/playback", form: [("durations", "40,40,40"), ("speed", "10")])
        routineEnv["SPOTIFY_TOOLKIT_TIME_SCALE"] = "10"
        let run = try ToolProcess.run(
            "routine-link", ["run", "morning", "--stop-at-end"], environment: routineEnv, timeout: 90)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONValue.parse(run.stdout)["type"] == "session", "\(run.stdout)")
        #expect(run.stderr.contains("paused"), "\(run.stderr)")
        let state = try fake.call("GET", "/_fake/playback")
        #expect(state["is_playing"] == false)
        let index = state["index"]?.intValue ?? -1
        let position = state["position_ms"]?.intValue ?? -1
        // Not before the second song's end; at most a loaded second (10 s of song) after it.
        #expect((index == 1 && position >= 30_000) || (index == 2 && position <= 10_000), "\(state)")
        withExtendedLifetime(home) {}
    }

    @Test func ctrlCCancelsThePauseAndSaysSo() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        try fake.call("POST", "/_fake/playback", form: [("durations", "600,600")])
        let script = """
            spotify-nowplaying pause --after 2 2> "$HOME_DIR/err" &
            pid=$!
            for i in $(seq 1 500); do grep -q "Ctrl-C cancels" "$HOME_DIR/err" 2>/dev/null && break; sleep 0.02; done
            kill -INT "$pid"
            wait "$pid"
            echo "status=$?"
            cat "$HOME_DIR/err"
            """
        let result = try ToolProcess.shell(script, environment: env)
        #expect(result.stdout.contains("status=130"), "\(result.stdout)")
        #expect(result.stdout.contains("cancelled: playback was not paused"), "\(result.stdout)")
        let state = try fake.call("GET", "/_fake/playback")
        #expect(state["is_playing"] == true)
        #expect((try fake.counters()["requests"]?["PUT /v1/me/player/pause"]?.intValue ?? 0) == 0)
    }
}
