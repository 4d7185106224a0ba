import Foundation
import Testing

/// `make demo` runs scripts/demo.sh with the release build; this runs the same script with the
/// built tools the tests use, so the demo cannot rot.
@Suite(.serialized) struct DemoTests {
    @Test func theDemoRunsEndToEndAndLeavesNothingBehind() async throws {
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        // TMPDIR decides where the demo's throwaway home goes: here, so the test can see it was removed.
        let scratchPath = scratch.path
        // About 11 s alone, but starved by the rest of a full parallel run on two cores.
        let result = try await offThePool {
            try ToolProcess.shell(
                "'\(root)/scripts/demo.sh' '\(ToolProcess.binDirectory.path)'",
                environment: ["TMPDIR": scratchPath, "NO_COLOR": "1"], timeout: 300)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        // Each command is printed before its output, in order.
        let commands = [
            "$ BROWSER=$home/browser-login spotify-auth login",
            "$ spotify-playlists",
            "| spotify-tracks | songcount --target 15m",
            "$ routine-link add morning",
            "| routine-link link morning",
            "routine-link start morning",
            "spotify-nowplaying --watch --for 15m | songcount | routine-link log morning",
            "$ routine-link history",
        ]
        var searchFrom = out.startIndex
        for command in commands {
            let found = out.range(of: command, range: searchFrom..<out.endIndex)
            #expect(found != nil, "missing or out of order: \(command)\n\(out)")
            if let found { searchFrom = found.upperBound }
        }
        #expect(out.contains(#""type":"auth_status","logged_in":true"#))
        #expect(out.contains(#""label":"4 songs""#))
        #expect(out.contains("https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n"))
        // The accelerated session is logged in the routine's history with its song count.
        let history = out.components(separatedBy: "$ routine-link history").last ?? ""
        #expect(history.contains(#""type":"session","routine":"morning""#))
        #expect(history.contains(#"songs""#))
        #expect(!history.contains(#""label":null"#))
        // The throwaway home is gone, and so is the server.
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.filter { $0.hasPrefix("spotify-toolkit-demo") }.isEmpty, "\(left)")
        let server = out.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(out[$0]) }
        #expect(server != nil)
        if let server {
            // The demo's fake-spotify process is gone. (Not "nothing answers on its port": in this
            // busy test process another test's fake may already listen on that port number.)
            let probe = try ToolProcess.shell(
                "pgrep -f 'fake-spotify .*--port-file \(scratchPath)/spotify-toolkit-demo'")
            #expect(probe.status != 0, "the demo's fake-spotify (\(server)) still runs: \(probe.stdout)")
        }
    }

    /// Issue 20, item 2, and the README's promise: Ctrl-C (SIGINT to the whole foreground process
    /// group, at its default) while the demo listens ends the listening early, logs what was
    /// heard, and the demo goes on to the history. (bash waits and goes on when its foreground
    /// children handled SIGINT themselves, so the demo's own INT trap does not fire.)
    @Test func ctrlCWhileTheDemoListensStillLogs() async throws {
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        let scratchPath = scratch.path
        let script = """
            out="\(scratchPath)/demo.out"
            ( for i in $(seq 1 600); do grep -q 'Fifteen minutes of listening' "$out" 2>/dev/null && break; sleep 0.1; done
              # Once the watch has polled twice (it is listening, not starting): a fixed sleep lost
              # that race on a loaded machine, and the signal then reached the demo between steps.
              fake=$(grep -o 'http://127.0.0.1:[0-9]*' "$out" | head -1)
              for i in $(seq 1 600); do
                n=$(curl -s --max-time 2 "$fake/_fake/counters" | grep -o '"GET /v1/me/player/currently-playing":[0-9]*' | cut -d: -f2)
                [ "${n:-0}" -ge 2 ] && break
                sleep 0.05
              done
              kill -INT -- -"$(cat '\(scratchPath)/group')" ) &
            setsid bash -c 'echo $$ > "\(scratchPath)/group"; exec "\(root)/scripts/demo.sh" "\(ToolProcess.binDirectory.path)"' \
                > "$out" 2> "\(scratchPath)/demo.err"
            echo "status $?"
            wait
            cat "$out"
            """
        let result = try await offThePool {
            try ToolProcess.shell(
                script, environment: ["TMPDIR": scratchPath, "NO_COLOR": "1", "DEMO_SPEED": "10"], timeout: 300)
        }
        let out = result.stdout
        #expect(out.hasPrefix("status 0\n"), "the demo went on and ended normally: \(out.prefix(300)) \(result.stderr)")
        let history = out.components(separatedBy: "$ routine-link history").last ?? ""
        #expect(history.contains(#""type":"session","routine":"morning""#), "\(out)")
        #expect(!history.contains(#""label":null"#), "the session has its count: \(history)")
    }

    /// Issue 20, item 13: `make sandbox` (scripts/demo.sh --shell) logs in and leaves a shell with
    /// fake-spotify running and every variable set; leaving it stops the server and removes the home.
    @Test func theSandboxIsAShellWhereTheToolsWork() async throws {
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        let scratchPath = scratch.path
        let command =
            #"spotify-playlists | wc -l; spotify-tracks Morning | songcount --target 15m --label; echo "home=$SANDBOX_HOME""#
        let result = try await offThePool {
            try ToolProcess.shell(
                "'\(root)/scripts/demo.sh' --shell '\(ToolProcess.binDirectory.path)'",
                environment: ["TMPDIR": scratchPath, "NO_COLOR": "1", "SANDBOX_COMMAND": command], timeout: 120)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("A shell with fake-spotify at http://127.0.0.1:"), "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.trimmingCharacters(in: .whitespaces) == "6" }, "the six playlists: \(result.stdout)")
        #expect(lines.contains("4 songs"), "\(result.stdout)")
        let home = try #require(lines.first { $0.hasPrefix("home=") }).dropFirst("home=".count)
        #expect(!FileManager.default.fileExists(atPath: String(home)), "the throwaway home is gone")
        let probe = try ToolProcess.shell("pgrep -f 'fake-spotify .*--port-file \(scratchPath)/spotify-toolkit-demo'")
        #expect(probe.status != 0, "fake-spotify stopped")
    }

    /// Issue 29, D9: a real interactive shell (bash -i, its own start-up file) whose ~/.bashrc
    /// exports XDG_CONFIG_HOME to the real login's directory: the sandbox sets its own again after
    /// it, so `spotify-auth logout` there removes the sandbox's login, never the real one; and a
    /// tool started with a directory outside the sandbox refuses (78) before touching anything.
    @Test(arguments: ["bash", "zsh"])
    func aStartUpFileCannotPointTheSandboxAtTheRealLogin(shell: String) async throws {
        guard
            FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell)")
                || FileManager.default.isExecutableFile(atPath: "/bin/\(shell)")
        else {
            return  // zsh is installed by .ci/run; a machine without it skips only that shell
        }
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        let scratchPath = scratch.path
        let user = scratchPath + "/user"
        let real = user + "/real-config/spotify-toolkit"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try #"{"access_token":"REAL"}"#.write(toFile: real + "/tokens.json", atomically: true, encoding: .utf8)
        for file in [".bashrc", ".zshrc", ".zshenv"] {
            try "export XDG_CONFIG_HOME=\"$HOME/real-config\"\n".write(
                toFile: user + "/" + file, atomically: true, encoding: .utf8)
        }
        // Typed into the interactive shell (its standard input), as a person would.
        let typed = """
            spotify-auth status >/dev/null && echo "status=ok"
            spotify-auth logout
            XDG_CONFIG_HOME="$HOME/real-config" spotify-auth logout; echo "outside=$?"
            exit

            """
        let result = try await offThePool {
            try ToolProcess.shell(
                "'\(root)/scripts/demo.sh' --shell '\(ToolProcess.binDirectory.path)' <<'TYPED'\n\(typed)TYPED",
                environment: ["TMPDIR": scratchPath, "NO_COLOR": "1", "HOME": user, "SHELL": "/bin/\(shell)"],
                timeout: 120)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("status=ok"), "the sandbox's own login: \(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("outside=78"), "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("this is the spotify-toolkit sandbox"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: real + "/tokens.json"), "the real login is untouched")
    }
}
