import Foundation
import Testing

@testable import ToolkitCore

/// Interrupted writes say what landed, with real processes: Ctrl-C in an
/// interactive shell sends SIGINT to the whole foreground pipeline, so the write runs in a
/// process group of its own (setsid) with SIGINT at its default, and the signal goes to the group.
@Suite(.serialized, .tags(.large)) struct WriteSignalTests {
    static let editScope =
        "playlist-read-private playlist-read-collaborative user-library-read user-library-modify playlist-modify-private playlist-modify-public"

    /// fake-spotify answering every Web API request 30 ms late, and a login that may write.
    func setUp() throws -> (FakeSpotifyProcess, [String: String]) {
        let fake = try FakeSpotifyProcess(["--latency-ms", "30"])
        let minted = try fake.call("POST", "/_fake/tokens", form: [("expires_in", "3600"), ("scope", Self.editScope)])
        var env = fake.environment(["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""])
        env["FAKE"] = fake.base
        env["HOME_DIR"] = fake.home.url.path
        env["SPOTIFY_TOOLKIT_SETTLE_PAUSE"] = "0.05"
        return (fake, env)
    }

    /// Waits (bounded) until the fake has answered `$2` requests of route `$1`, then sends
    /// SIGINT to the process group written in $HOME_DIR/group.
    static let interruptAfter = """
        interrupt_after() {
          for i in $(seq 1 1500); do
            n=$(curl -s "$FAKE/_fake/counters" | grep -o "\\"$1\\":[0-9]*" | cut -d: -f2)
            [ "${n:-0}" -ge "$2" ] && break
            sleep 0.02
          done
          kill -INT -- -"$(cat "$HOME_DIR/group")"
        }
        """

    func file(_ env: [String: String], _ name: String) -> String {
        (try? String(contentsOfFile: env["HOME_DIR"]! + "/" + name, encoding: .utf8)) ?? ""
    }

    /// Runs `command` (a shell line) in its own process group, interrupted after `count`
    /// requests of `route`; returns its exit status.
    func interrupted(_ command: String, after count: Int, of route: String, env: [String: String]) throws -> String {
        let script =
            Self.interruptAfter + """

                ( interrupt_after '\(route)' \(count) ) &
                setsid bash -c 'echo $$ > "$HOME_DIR/group"; exec bash -c "\(command)"' \
                  > "$HOME_DIR/out" 2> "$HOME_DIR/err"
                echo $?
                wait
                """
        return try ToolProcess.shell(script, environment: env, timeout: 120).stdout
    }

    @Test func ctrlCDuringASortSaysWhatTheListHoldsAndUndoPutsItBack() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        let id = "gen0000000000000000300"
        let before = try ToolProcess.run("spotify-tracks", ["--no-cache", "--raw", id], environment: env).stdoutLines
        #expect(before.count == 300)
        let status = try interrupted(
            "spotify-playlists sort \(id) --by duration --max-moves 1000", after: 20,
            of: "PUT /v1/playlists/{id}/items", env: env)
        #expect(status == "130\n", "exit 130 as for SIGINT: \(file(env, "err"))")
        let err = file(env, "err")
        #expect(err.contains("interrupted: playlist \(id) holds 300 items, after "), "\(err)")
        #expect(err.contains("put it back with: spotify-playlists undo \(id)"), "\(err)")
        // The finishing command keeps the write's --max-moves: without it, refused.
        #expect(err.contains("or finish with: spotify-playlists replace \(id) --max-moves 1000 < "), "\(err)")
        let moves = try fake.call("GET", "/_fake/counters")["requests"]?["PUT /v1/playlists/{id}/items"]?.intValue ?? 0
        #expect(moves >= 20 && moves < 200, "it stopped after the request in flight: \(moves)")

        let undo = try ToolProcess.run("spotify-playlists", ["undo", id], environment: env)
        #expect(undo.status == 0, "\(undo.stderr)")
        let after = try ToolProcess.run("spotify-tracks", ["--no-cache", "--raw", id], environment: env).stdoutLines
        #expect(after == before, "every item, its order and its date back")
    }

    @Test func ctrlCDuringACreateSaysWhatLandedAndTheRestCanBeAdded() throws {
        let (fake, env) = try setUp()
        defer { withExtendedLifetime(fake) {} }
        let source = try ToolProcess.run(
            "spotify-tracks", ["--no-cache", "gen0000000000000003000"], environment: env)
        try source.stdout.write(toFile: env["HOME_DIR"]! + "/items.jsonl", atomically: true, encoding: .utf8)
        let status = try interrupted(
            "spotify-playlists create Copy < \\\"$HOME_DIR/items.jsonl\\\"", after: 5,
            of: "POST /v1/playlists/{id}/items", env: env)
        #expect(status == "130\n", "\(file(env, "err"))")
        let err = file(env, "err")
        #expect(err.contains("interrupted: made playlist 'Copy' ("), "\(err)")
        let landed = try #require(
            err.range(of: #"holds ([0-9,]+) of the 3,000 items asked for"#, options: .regularExpression).map {
                String(err[$0]).split(separator: " ")[1].replacingOccurrences(of: ",", with: "")
            })
        let command = try #require(
            err.components(separatedBy: "add the rest with: ").last?.trimmingCharacters(
                in: .whitespacesAndNewlines))
        // The one command that finishes the job, as printed.
        let finished = try ToolProcess.shell(command, environment: env, timeout: 120)
        #expect(finished.status == 0, "\(finished.stderr)")
        let id = try #require(
            err.range(of: #"\(([0-9A-Za-z]{22})\)"#, options: .regularExpression).map {
                String(err[$0].dropFirst().dropLast())
            })
        let copied = try ToolProcess.run("spotify-tracks", ["--no-cache", id], environment: env)
        let uris = { (lines: [String]) in lines.compactMap { try? JSONValue.parse($0)["uri"]?.stringValue } }
        #expect(uris(copied.stdoutLines) == uris(source.stdoutLines), "whole and in order after \(landed) landed")
        #expect(Int(landed) ?? 0 >= 500 && Int(landed) ?? 0 < 3000, "\(landed)")
    }
}

/// Empty input never creates: an empty pipe is a pipeline that went wrong; a
/// terminal or /dev/null means no input was given, and makes the empty playlist asked for.
@Suite(.tags(.large)) struct EmptyInputCreateTests {
    @Test func anEmptyPipeCreatesNothingAndDevNullMakesAnEmptyPlaylist() throws {
        let (fake, env) = try WriteSignalTests().setUp()
        defer { withExtendedLifetime(fake) {} }
        let piped = try ToolProcess.shell(
            "printf '' | spotify-playlists create Typo; echo \"status=$?\"", environment: env)
        #expect(piped.stdout == "status=1\n", "\(piped.stderr)")
        #expect(piped.stderr.contains("an empty pipe"), "\(piped.stderr)")
        #expect(try fake.call("GET", "/_fake/counters")["requests"]?["POST /v1/me/playlists"] == nil)
        let local = try ToolProcess.shell(
            "printf '' | spotify-playlists local create Typo; echo \"status=$?\"", environment: env)
        #expect(local.stdout == "status=1\n", "\(local.stderr)")
        let devNull = try ToolProcess.shell("spotify-playlists create Empty < /dev/null", environment: env)
        #expect(devNull.status == 0, "\(devNull.stderr)")
        #expect(try JSONValue.parse(devNull.stdout)["items_total"] == 0)
    }
}
