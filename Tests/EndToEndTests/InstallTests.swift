import Foundation
import HTTPClient
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCLI
import ToolkitCore

/// `make install` puts one binary, spotify-toolkit, in bin with a relative link per shipped tool
/// beside it, and each tool's man page and three completion scripts where each program looks for
/// them; `make uninstall` removes exactly that. Uses the debug build the tests already have (the
/// `install-files` half of `make install`; `make dist` stages its tarball with the same target).
@Suite(.tags(.large)) struct InstallTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let version = (try? String(contentsOfFile: repositoryRoot + "/VERSION", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)

    /// Every file and link under `root` (not directories), relative to it.
    func files(under root: String) -> Set<String> {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var result = Set<String>()
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + path)) != nil
            if isLink
                || (FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue)
            {
                result.insert(path)
            }
        }
        return result
    }

    /// An install of the debug build under a temporary DESTDIR, PREFIX /opt/st.
    struct Installed {
        let destination: TemporaryDirectory
        let make: String
        var bin: String { destination.path + "/opt/st/bin" }
        func tool(_ name: String) -> URL { URL(fileURLWithPath: bin + "/" + name) }

        init() throws {
            destination = try TemporaryDirectory()
            make = "make -s -C '\(InstallTests.repositoryRoot)' DESTDIR='\(destination.path)' PREFIX=/opt/st"
            let install = try ToolProcess.shell("\(make) install-files BUILT='\(ToolProcess.binDirectory.path)'")
            #expect(install.status == 0, "\(install.stderr)")
        }
    }

    @Test func installsOneBinaryWithALinkPerToolAndUninstallRemovesExactlyThat() throws {
        let installed = try Installed()
        let root = installed.destination.path
        var expected: Set<String> = ["opt/st/bin/spotify-toolkit"]
        for tool in InstalledTools.names {
            expected.formUnion([
                "opt/st/bin/\(tool)",
                "opt/st/share/man/man1/\(tool).1",
                "opt/st/share/bash-completion/completions/\(tool)",
                "opt/st/share/zsh/site-functions/_\(tool)",
                "opt/st/share/fish/vendor_completions.d/\(tool).fish",
            ])
            // Relative, so the install can move (DESTDIR, a relocated PREFIX, install.sh's copy).
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: installed.bin + "/" + tool)
                    == "spotify-toolkit")
        }
        #expect(files(under: root) == expected)
        #expect(FileManager.default.isExecutableFile(atPath: installed.bin + "/spotify-toolkit"))

        // Something of the user's own in the same directories survives uninstall.
        try "keep".write(toFile: installed.bin + "/mine", atomically: true, encoding: .utf8)
        let uninstall = try ToolProcess.shell("\(installed.make) uninstall")
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(files(under: root) == ["opt/st/bin/mine"])
    }

    /// Each tool runs through its link and as `spotify-toolkit TOOL`, and says the one version.
    @Test func everyToolRunsThroughItsLinkAndAsTheFirstArgument() throws {
        let installed = try Installed()
        let version = try #require(Self.version)
        let multiCall = installed.tool("spotify-toolkit")
        for tool in InstalledTools.names {
            let linked = try ToolProcess.run(executable: installed.tool(tool), ["--version"])
            #expect(linked.status == 0 && linked.stdout == "\(tool) \(version)\n", "\(tool): \(linked.stderr)")
            let named = try ToolProcess.run(executable: multiCall, [tool, "--version"])
            #expect(named.status == 0 && named.stdout == "\(tool) \(version)\n", "\(tool): \(named.stderr)")
            let help = try ToolProcess.run(executable: installed.tool(tool), ["-h"])
            #expect(help.stdout.contains("Usage: \(tool)"), "\(tool): \(help.stdout)")
        }
        let threeMinutes = String(repeating: #"{"duration_ms":60000}"# + "\n", count: 3)
        for (executable, arguments) in [
            (installed.tool("songcount"), ["--target", "2m", "--label"]),
            (multiCall, ["songcount", "--target", "2m", "--label"]),
        ] {
            let counted = try ToolProcess.run(executable: executable, arguments, stdin: threeMinutes)
            #expect(counted.status == 0 && counted.stdout == "2 songs\n", "\(counted.stdout)\(counted.stderr)")
        }
        let own = try ToolProcess.run(executable: multiCall, ["--version"])
        #expect(own.stdout == "spotify-toolkit \(version)\n")
    }

    @Test func withNoToolItPrintsTheUsageLineAndExits64() throws {
        let installed = try Installed()
        let bare = try ToolProcess.run(executable: installed.tool("spotify-toolkit"))
        #expect(bare.status == 64)
        #expect(bare.stdout == "")
        let usage = try #require(bare.stderr.split(separator: "\n").first)
        #expect(
            usage == "Usage: spotify-toolkit TOOL [ARGUMENTS]   (TOOL: \(InstalledTools.names.joined(separator: ", ")))"
        )
        let unknown = try ToolProcess.run(executable: installed.tool("spotify-toolkit"), ["songcont"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix(
                "spotify-toolkit: 'songcont' is not a tool; did you mean 'songcount'?\nUsage: spotify-toolkit TOOL"))
        let help = try ToolProcess.run(executable: installed.tool("spotify-toolkit"), ["--help"])
        #expect(help.status == 0)
        for tool in InstalledTools.names { #expect(help.stdout.contains("\n  \(tool) "), "\(tool)") }
    }

    /// Under a prefix bash-completion does not search, the README's
    /// line (marked `<!-- install: bash-completion -->`) makes it find the completions. The lookup
    /// is bash-completion's own (2.11's `__load_completion`): the user directory, then
    /// `share/bash-completion/completions` under each directory of XDG_DATA_DIRS.
    @Test func theReadmeLineLetsBashFindTheCompletionsUnderAnotherPrefix() throws {
        let installed = try Installed()
        let readme = try String(contentsOfFile: Self.repositoryRoot + "/README.md", encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- install: bash-completion -->\n```bash\n"))
        let end = try #require(readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex))
        let line = String(readme[marker.upperBound..<end.lowerBound])
        #expect(line.contains("$HOME/opt/spotify-toolkit/share"), "\(line)")
        let prefix = installed.destination.path + "/opt/st"
        let lookup = """
            dirs=("${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions")
            IFS=: read -r -a data <<< "${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
            for dir in "${data[@]}"; do dirs+=("$dir/bash-completion/completions"); done
            for dir in "${dirs[@]}"; do
                [ -f "$dir/routine-link" ] && { . "$dir/routine-link"; break; }
            done
            complete -p routine-link
            """
        let environment = ["HOME": installed.destination.path + "/home", "XDG_DATA_HOME": "", "XDG_DATA_DIRS": ""]
        let without = try ToolProcess.shell(lookup, environment: environment)
        #expect(without.status != 0, "not found without the line: \(without.stdout)")
        let script = line.replacingOccurrences(of: "$HOME/opt/spotify-toolkit", with: prefix) + "\n" + lookup
        let with = try ToolProcess.shell(script, environment: environment)
        #expect(with.status == 0 && with.stdout.contains("_routine_link"), "\(with.stdout) \(with.stderr)")
    }

    /// `routine-link run` finds spotify-nowplaying and songcount through its own real path: here
    /// the installed links, reached through a second link as Homebrew's `bin` reaches its Cellar,
    /// with no build directory on PATH.
    @Test func routineLinkRunFindsItsSiblingsThroughTheLinks() throws {
        let installed = try Installed()
        let elsewhere = try TemporaryDirectory()
        let outerLink = elsewhere.path + "/routine-link"
        try FileManager.default.createSymbolicLink(
            atPath: outerLink, withDestinationPath: installed.bin + "/routine-link")
        let (fake, home, shared) = try RoutineLinkSpotifyTests().setUp()
        defer { withExtendedLifetime((fake, home)) {} }
        try fake.call(
            "POST", "/_fake/playback", form: [("durations", "200,180,240"), ("position_ms", "0"), ("speed", "60")])
        var environment = shared
        environment["PATH"] = home.bin + ":/usr/bin:/bin"
        environment["SPOTIFY_TOOLKIT_TIME_SCALE"] = "60"
        let run = try ToolProcess.run(
            executable: URL(fileURLWithPath: outerLink), ["run", "morning", "--for", "2m"], environment: environment,
            timeout: 90)
        #expect(run.status == 0, "\(run.stderr)")
        let session = try JSONValue.parse(run.stdout)
        #expect(session["type"] == "session" && (session["songs"]?.doubleValue ?? 0) > 0, "\(run.stdout)")
    }
}
