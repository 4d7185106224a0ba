import Foundation
import Testing

/// `make demo` runs scripts/demo.sh with the release build; this runs the same script with the
/// built tools the tests use, so the demo cannot rot.
@Suite(.serialized, .tags(.large)) struct DemoTests {
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

    /// `make sandbox` (scripts/demo.sh --shell) logs in and leaves a shell with
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
                // As make sandbox starts it (MAKELEVEL leaked into the shell).
                environment: [
                    "TMPDIR": scratchPath, "NO_COLOR": "1", "SANDBOX_COMMAND": command, "MAKELEVEL": "1",
                    "MAKEFLAGS": "w",
                ], timeout: 120)
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

    /// A real interactive shell (bash -i, its own start-up file) whose ~/.bashrc
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
        // The sandbox's tools keep their own directories whatever the shell exports; the binary
        // itself, started with a directory outside the sandbox, refuses.
        let typed = """
            spotify-auth status >/dev/null && echo "status=ok"
            spotify-auth logout
            XDG_CONFIG_HOME="$HOME/real-config" spotify-auth status >/dev/null; echo "wrapped=$?"
            XDG_CONFIG_HOME="$HOME/real-config" '\(ToolProcess.binDirectory.path)/spotify-auth' logout; echo "outside=$?"
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
        #expect(result.stdout.contains("wrapped=77"), "logged out of the sandbox: \(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("outside=78"), "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("this is the spotify-toolkit sandbox"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: real + "/tokens.json"), "the real login is untouched")
    }

    /// `make test` typed into a terminal. The test runner starts a test's processes
    /// with the terminal as their controlling terminal, in a process group that is not its
    /// foreground one: a typed-into `bash -i` stopped that group with SIGTTIN (fake-spotify stopped
    /// for good, the run hung), and `zsh -i` took the terminal. Here script(1) is that terminal and
    /// timeout(1) that process group (and the bound, should the sandbox hang): the sandbox's shell
    /// runs with no controlling terminal, reads what is typed and ends by itself.
    @Test(arguments: ["bash", "zsh"])
    func aTypedIntoSandboxFinishesUnderATerminal(shell: String) async throws {
        guard let path = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: FileManager.default.isExecutableFile)
        else {
            return  // zsh is installed by .ci/run; a machine without it skips only that shell
        }
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        let scratchPath = scratch.path
        try """
        timeout -k 5 90 '\(root)/scripts/demo.sh' --shell '\(ToolProcess.binDirectory.path)' \
            > '\(scratchPath)/out' 2> '\(scratchPath)/err' <<'TYPED'
        spotify-auth status >/dev/null && echo "status=ok"
        exit
        TYPED
        echo "sandbox=$?" > '\(scratchPath)/status'

        """.write(toFile: scratchPath + "/run.sh", atomically: true, encoding: .utf8)
        let result = try await offThePool {
            try ToolProcess.shell(
                "script -qec 'bash \(scratchPath)/run.sh' /dev/null",
                environment: ["TMPDIR": scratchPath, "NO_COLOR": "1", "SHELL": path, "HOME": scratchPath],
                timeout: 120)
        }
        let read = { (name: String) in (try? String(contentsOfFile: scratchPath + "/" + name, encoding: .utf8)) ?? "" }
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(read("status") == "sandbox=0\n", "not stopped or timed out: \(read("err"))")
        #expect(read("out").contains("status=ok"), "\(read("out")) \(read("err"))")
    }

    /// The sandbox is a place to try everything. It is logged in
    /// with every scope, so a write works; its BROWSER completes a login, so the tools' own advice
    /// (spotify-auth login --scope edit) works, and only records what routine-link opens; the
    /// player plays the playlist it was asked to play; sandbox-speed speeds the player and the
    /// tools' clock up together (ten minutes of listening in well under the test's time-out).
    @Test func theSandboxIsAPlaceToTryEverything() async throws {
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        let scratchPath = scratch.path
        let command = """
            spotify-playlists create 'Sandbox Mix' </dev/null >/dev/null 2>&1; echo "create=$?"
            spotify-auth login --scope edit </dev/null >/dev/null 2>&1; echo "login=$?"
            routine-link add morning >/dev/null && routine-link link morning 3cEYpjA9oz9GiPac4AsH4n >/dev/null 2>&1
            routine-link start morning >/dev/null 2>&1; echo "opened=$(cat "$SANDBOX_HOME/opened")"
            spotify-nowplaying play Morning 2>/dev/null; spotify-nowplaying --json
            sandbox-speed 1000 && spotify-nowplaying --watch --for 10m | songcount --label
            echo "makelevel=${MAKELEVEL-unset}"
            """
        let result = try await offThePool {
            try ToolProcess.shell(
                "'\(root)/scripts/demo.sh' --shell '\(ToolProcess.binDirectory.path)'",
                environment: ["TMPDIR": scratchPath, "NO_COLOR": "1", "SANDBOX_COMMAND": command], timeout: 120)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("logged in with every scope"), "\(out)")
        #expect(out.contains("sandbox-speed 90"), "the banner says how to speed the player up: \(out)")
        #expect(out.contains("create=0"), "a write needs no second login: \(out) \(result.stderr)")
        #expect(out.contains("login=0"), "the advised login completes: \(out) \(result.stderr)")
        #expect(out.contains("opened=https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n"), "\(out)")
        // Morning's first track, from Morning: not the player's own catalog.
        #expect(out.contains(#""name":"The Funeral""#), "\(out)")
        #expect(
            out.contains(#""context":{"type":"playlist","uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"}"#), "\(out)")
        #expect(out.contains(" songs\n") || out.contains(" song\n"), "the sped-up watch was counted: \(out)")
        #expect(result.stderr.contains("now run 1000 times as fast"), "\(result.stderr)")
        #expect(out.contains("makelevel=unset"), "the shell is not inside make: \(out)")
    }

    /// Through the real shells on a terminal (script(1)): the prompt
    /// says you are in the sandbox, ahead of your own (bash: one a PROMPT_COMMAND redraws; zsh: a
    /// PS1 of your .zshrc; fish: a fish_prompt of your own); and the shell keeps your XDG
    /// directories (fish writes thousands of files into its data directory), while the tools use
    /// the sandbox's.
    @Test(arguments: ["bash", "zsh", "fish"])
    func theSandboxPromptShowsAndTheShellKeepsItsOwnDirectories(shell: String) async throws {
        guard let path = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: FileManager.default.isExecutableFile)
        else {
            return  // .ci/run installs zsh and fish; a machine without one skips only that shell
        }
        let root = InstallTests.repositoryRoot
        let scratch = try TemporaryDirectory()
        let scratchPath = scratch.path
        let user = scratchPath + "/user"
        try FileManager.default.createDirectory(
            atPath: user + "/.config/fish/functions", withIntermediateDirectories: true)
        // Ending in ';' as pyenv-virtualenv's does: joined with ';;' it was a syntax
        // error at every prompt, and the hook never ran.
        try #"PROMPT_COMMAND='PS1="mine> ";'"#.write(toFile: user + "/.bashrc", atomically: true, encoding: .utf8)
        try "PS1='mine> '\n".write(toFile: user + "/.zshrc", atomically: true, encoding: .utf8)
        try "function fish_prompt\n    echo -n 'mine> '\nend\n".write(
            toFile: user + "/.config/fish/functions/fish_prompt.fish", atomically: true, encoding: .utf8)
        // A fish that has run before: without its generated completions, fish starts
        // create_manpage_completions.py in the background (thousands of files in its data
        // directory: the sandbox's home, before), which would outlive the test and its terminal.
        try FileManager.default.createDirectory(
            atPath: user + "/data/fish/generated_completions", withIntermediateDirectories: true)
        // The same words in all three shells.
        let typed = """
            echo "data=$XDG_DATA_HOME config=$XDG_CONFIG_HOME."
            spotify-auth status >/dev/null && echo "status=ok"
            exit

            """
        let result = try await offThePool {
            try ToolProcess.shell(
                """
                env -u XDG_CONFIG_HOME script -qec "'\(root)/scripts/demo.sh' --shell '\(ToolProcess.binDirectory.path)'" \
                    /dev/null <<'TYPED'
                \(typed)TYPED
                """,
                environment: [
                    "TMPDIR": scratchPath, "NO_COLOR": "1", "HOME": user, "SHELL": path,
                    "XDG_DATA_HOME": user + "/data",
                ], timeout: 120)
        }
        let out = result.stdout.replacingOccurrences(of: "\r", with: "")
        #expect(result.status == 0, "\(out) \(result.stderr)")
        #expect(out.contains("(spotify sandbox) mine> "), "\(shell): \(out)")
        #expect(!out.contains("syntax error"), "\(shell): \(out)")
        #expect(out.contains("data=\(user)/data config=."), "\(shell) keeps your directories: \(out)")
        #expect(out.contains("status=ok"), "\(shell): the tools keep the sandbox's login: \(out)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.filter { $0.hasPrefix("spotify-toolkit-demo") }.isEmpty, "\(left)")
    }
}
