import Foundation
import Testing

@testable import ToolkitCore

/// Signals and failing children around `--watch` and `routine-link run`, with real processes.
@Suite(.serialized, .tags(.large)) struct WatchSignalTests {
    /// A logged-in fake, a routine `morning` (15 min) linked to a playlist, a song playing at 60x.
    func setUp() throws -> (FakeSpotifyProcess, RoutineHome, [String: String]) {
        let fake = try FakeSpotifyProcess()
        let minted = try fake.call("POST", "/_fake/tokens", form: [("expires_in", "3600")])
        let home = try RoutineHome()
        var env = fake.environment(["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""])
        for (key, value) in home.environment()
        where env[key] == nil || ["BROWSER", "PATH", "XDG_DATA_HOME"].contains(key) {
            env[key] = value
        }
        env["SPOTIFY_API_BASE"] = fake.base + "/v1"
        env["SPOTIFY_TOOLKIT_TIME_SCALE"] = "60"
        env["HOME_DIR"] = home.home.path
        env["FAKE"] = fake.base
        _ = try ToolProcess.run("routine-link", ["add", "morning", "--duration", "15m"], environment: env)
        let record =
            #"{"type":"playlist","id":"3cEYpjA9oz9GiPac4AsH4n","uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","name":"Morning Mix","images":[]}"#
        let linked = try ToolProcess.run("routine-link", ["link", "morning"], stdin: record + "\n", environment: env)
        #expect(linked.status == 0, "\(linked.stderr)")
        try fake.call(
            "POST", "/_fake/playback", form: [("durations", "200,180,240"), ("position_ms", "10000"), ("speed", "60")])
        return (fake, home, env)
    }

    /// Waits (bounded) until the watch has polled the player `$1` times.
    static let waitForPolls = """
        polls() {
          for i in $(seq 1 1500); do
            n=$(curl -s "$FAKE/_fake/counters" | grep -o '"GET /v1/me/player/currently-playing":[0-9]*' | cut -d: -f2)
            [ "${n:-0}" -ge "$1" ] && return 0
            sleep 0.02
          done
          return 1
        }
        """

    func file(_ home: RoutineHome, _ name: String) -> String {
        (try? String(contentsOfFile: home.home.path + "/" + name, encoding: .utf8)) ?? ""
    }

    /// Ctrl-C in an interactive shell sends SIGINT to every process of the
    /// foreground pipeline. The watch answers it with its final record; songcount and
    /// routine-link log must read on to the end and log the count, as `tee -i` does. The pipeline
    /// runs in a process group of its own (setsid), with SIGINT at its default, and the signal
    /// goes to the whole group, as the terminal sends it.
    @Test func ctrlCOnAListeningPipelineStillLogsTheCount() throws {
        let (fake, home, env) = try setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        let script =
            Self.waitForPolls + """

                # The killer runs in the background; the pipeline in the foreground, so that its
                # SIGINT stays at the default (a background job of a script starts with it ignored).
                ( polls 3; kill -INT -- -"$(cat "$HOME_DIR/group")" ) &
                setsid bash -c 'echo $$ > "$HOME_DIR/group"
                  spotify-nowplaying --watch --for 30m --interval 1s | songcount | routine-link log morning \
                    > "$HOME_DIR/out" 2> "$HOME_DIR/err"
                  echo "${PIPESTATUS[*]}" > "$HOME_DIR/status"'
                wait
                cat "$HOME_DIR/status"
                """
        let result = try ToolProcess.shell(script, environment: env, timeout: 60)
        #expect(result.stdout == "0 0 0\n", "every stage ends normally: \(result.stderr) \(file(home, "err"))")
        #expect(file(home, "out").contains(#""type":"session""#), "logged: \(file(home, "out")) \(file(home, "err"))")
        let history = try ToolProcess.run("routine-link", ["history", "morning"], environment: env).stdoutLines
        #expect(history.count == 1)
        #expect(try history.first.map { try JSONValue.parse($0)["songs"] != .null } == true, "\(history)")
    }

    /// The other side of it: a stage that reads a list of tracks, not a listening stream, still
    /// stops at once on Ctrl-C.
    @Test func ctrlCStopsSongcountAtOnceOnAListOfTracks() throws {
        let (fake, home, env) = try setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        let track = #"{"type":"track","id":"t1","uri":"spotify:track:t1","name":"One","duration_ms":200000}"#
        let script = """
            ( sleep 1; date +%s > "$HOME_DIR/start"; kill -INT -- -"$(cat "$HOME_DIR/group")" ) &
            setsid bash -c 'echo $$ > "$HOME_DIR/group"
              (echo '"'"'\(track)'"'"'; sleep 12) | { songcount > "$HOME_DIR/out" 2> "$HOME_DIR/err"
                echo "$? $(date +%s)" > "$HOME_DIR/status"; }'
            wait
            read -r status ended < "$HOME_DIR/status"
            echo "$status $(( ended - $(cat "$HOME_DIR/start") ))"
            """
        let result = try ToolProcess.shell(script, environment: env, timeout: 60)
        let parts = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(parts.first == "130", "songcount died of SIGINT: \(result.stdout) \(result.stderr)")
        #expect((Int(parts.last ?? "99") ?? 99) < 8, "at once, not after the producer's 12 s: \(result.stdout)")
    }

    /// SIGHUP (a closed terminal) killed the watch without its final record.
    @Test func sighupEndsTheWatchWithItsFinalRecord() throws {
        let (fake, home, env) = try setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        let script =
            Self.waitForPolls + """

                spotify-nowplaying --watch --json --interval 1s > "$HOME_DIR/out" 2> "$HOME_DIR/err" &
                job=$!
                polls 2
                kill -HUP $job
                wait $job
                echo "status $?"
                """
        let result = try ToolProcess.shell(script, environment: env, timeout: 60)
        #expect(result.stdout == "status 0\n", "\(result.stderr) \(file(home, "err"))")
        #expect(file(home, "out").contains(#""final":true"#), "\(file(home, "out"))")
    }

    /// SIGHUP killed routine-link (exit 129), left the session running for ever and orphaned
    /// the watch. Now it stops the watch and logs what was heard, as SIGTERM does.
    @Test func sighupDuringRunStopsTheWatchAndLogs() throws {
        let (fake, home, env) = try setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        let script =
            Self.waitForPolls + """

                routine-link run morning --for 59m > "$HOME_DIR/out" 2> "$HOME_DIR/err" &
                job=$!
                polls 4
                kill -HUP $job
                wait $job
                echo "status $?"
                # (the bracket keeps pgrep from matching this script's own command line)
                pgrep -f "spotify-nowplaying --watch --json --for 354[0]" >/dev/null && echo orphan || true
                """
        let result = try ToolProcess.shell(script, environment: env, timeout: 90)
        #expect(result.stdout == "status 0\n", "\(result.stderr) \(file(home, "err"))")
        #expect(file(home, "err").contains("stopped early; logging what was heard"), "\(file(home, "err"))")
        let history = try ToolProcess.run("routine-link", ["history", "morning"], environment: env).stdoutLines
        #expect(history.count == 1)
        #expect(try history.first.map { try JSONValue.parse($0)["ended_at"] != .null } == true, "\(history)")
    }

    /// A watch that fails mid-run made `run` exit 0 and log a cut-short session as finished.
    /// Now: exit non-zero naming the watch, no session logged, and what was heard printed as a
    /// song_count record that `routine-link log` takes.
    @Test func aFailingWatchFailsTheRunAndPrintsWhatWasHeard() throws {
        let (fake, home, env) = try setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        let script =
            Self.waitForPolls + """

                routine-link run morning --for 1h > "$HOME_DIR/out" 2> "$HOME_DIR/err" &
                job=$!
                polls 4
                curl -s -d 'path=/v1/me/player/currently-playing&status=404&count=50' "$FAKE/_fake/fail" >/dev/null
                wait $job
                echo "status $?"
                """
        let result = try ToolProcess.shell(script, environment: env, timeout: 90)
        let stderr = file(home, "err")
        #expect(result.stdout != "status 0\n" && result.stdout.hasPrefix("status "), "\(result.stdout) \(stderr)")
        #expect(stderr.contains("the watch failed (exit status"), "\(stderr)")
        let printed = try JSONValue.parse(file(home, "out"))
        #expect(printed["type"] == "song_count", "\(printed)")
        #expect(try ToolProcess.run("routine-link", ["history"], environment: env).stdout == "")
        let logged = try ToolProcess.run(
            "routine-link", ["log", "morning"], stdin: file(home, "out"), environment: env)
        #expect(logged.status == 0, "\(logged.stderr)")
        #expect(try ToolProcess.run("routine-link", ["history"], environment: env).stdoutLines.count == 1)
    }

    /// When the count cannot be logged at the end (a full disk; here the store turned into a
    /// symlink, which the store refuses the same way), the count is printed for `routine-link log`.
    @Test func aStoreThatCannotBeWrittenAtTheEndStillPrintsTheCount() throws {
        let (fake, home, env) = try setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        let script =
            Self.waitForPolls + """

                routine-link run morning --for 1h > "$HOME_DIR/out" 2> "$HOME_DIR/err" &
                job=$!
                polls 4
                store="$HOME_DIR/data/spotify-toolkit/routines.json"
                mv "$store" "$store.real" && ln -s "$store.real" "$store"
                kill -TERM $job
                wait $job
                echo "status $?"
                rm "$store" && mv "$store.real" "$store"
                """
        let result = try ToolProcess.shell(script, environment: env, timeout: 90)
        let stderr = file(home, "err")
        #expect(result.stdout != "status 0\n" && result.stdout.hasPrefix("status "), "\(result.stdout) \(stderr)")
        #expect(stderr.contains("log it later with routine-link log morning"), "\(stderr)")
        let printed = try JSONValue.parse(file(home, "out"))
        #expect(printed["type"] == "song_count", "\(printed)")
        let logged = try ToolProcess.run(
            "routine-link", ["log", "morning"], stdin: file(home, "out"), environment: env)
        #expect(logged.status == 0, "\(logged.stderr)")
        let history = try ToolProcess.run("routine-link", ["history", "morning"], environment: env).stdoutLines
        #expect(history.count == 1 && !history[0].contains(#""ended_at":null"#), "\(history)")
    }
}
