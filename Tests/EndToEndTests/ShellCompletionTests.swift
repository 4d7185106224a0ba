import Foundation
import Testing

/// Completions agree across shells: bash, zsh and fish, running the
/// generated scripts themselves, offer the device names wherever a device is asked for
/// (`--device` of every playback command, `transfer`, `routine-link start|run --device`); fish
/// offers only the names where a name goes (never the subcommands before it), and describes an
/// option once, not again beside each of its values.
@Suite(.serialized, .tags(.large)) struct ShellCompletionTests {
    static let root = InstallTests.repositoryRoot
    static let devices = ["Fixture MacBook Pro", "Kitchen", "Living Room"]

    /// The lines to complete, each ending where Tab is pressed.
    static let deviceLines = [
        "spotify-nowplaying play --device ", "spotify-nowplaying pause --device ", "spotify-nowplaying transfer ",
        "routine-link start morning --play --device ", "routine-link run morning --play --device ",
    ]

    static func shellExists(_ name: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/\(name)")
            || FileManager.default.isExecutableFile(atPath: "/bin/\(name)")
    }

    /// A fake with a login that may read devices, and a local playlist to complete.
    static func setUp() throws -> (FakeSpotifyProcess, [String: String]) {
        let fake = try FakeSpotifyProcess()
        let minted = try fake.call("POST", "/_fake/tokens", form: [("scope", "user-read-playback-state")])
        let env = fake.environment([
            "SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? "",
            "XDG_DATA_HOME": fake.home.url.appendingPathComponent("data").path,
        ])
        let track =
            #"{"type":"track","id":"a","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"A","duration_ms":1000}"#
        let made = try ToolProcess.run(
            "spotify-playlists", ["local", "create", "Mix Tape"], stdin: track + "\n", environment: env)
        #expect(made.status == 0, "\(made.stderr)")
        return (fake, env)
    }

    static func words(_ output: String) -> [String] {
        output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }

    @Test func bashOffersDevicesEverywhereADeviceGoes() throws {
        let (fake, env) = try Self.setUp()
        _ = fake
        for line in Self.deviceLines {
            var words = line.split(separator: " ").map { "'\($0)'" }
            words.append("''")
            let tool = line.split(separator: " ")[0]
            let function = "_" + tool.replacingOccurrences(of: "-", with: "_")
            let script = """
                source '\(Self.root)/completions/bash/\(tool)'
                COMP_WORDS=(\(words.joined(separator: " "))); COMP_CWORD=\(words.count - 1); \(function)
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try ToolProcess.shell(script, environment: env)
            #expect(Self.words(result.stdout) == Self.devices, "bash: \(line)| \(result.stdout) \(result.stderr)")
        }
    }

    @Test func zshOffersDevicesEverywhereADeviceGoes() throws {
        guard Self.shellExists("zsh") else { return }  // .ci/run installs it
        let (fake, env) = try Self.setUp()
        _ = fake
        let capture = try fake.home.file("capture.zsh", contents: Self.zshCapture)
        for line in Self.deviceLines + ["spotify-nowplaying pa"] {
            let result = try ToolProcess.shell(
                "timeout 60 zsh -f '\(capture)' '\(Self.root)/completions/zsh' '\(line)'", environment: env,
                timeout: 90)
            let offered = Self.words(result.stdout).map { $0.replacingOccurrences(of: "\\", with: "") }
            let expected = line.hasSuffix(" pa") ? ["pause"] : Self.devices
            #expect(offered == expected, "zsh: \(line)| \(result.stdout) \(result.stderr)")
        }
    }

    @Test func fishOffersDevicesNamesOnlyWhereNamesGoAndDescribesAnOptionOnce() throws {
        guard Self.shellExists("fish") else { return }  // .ci/run installs it
        let (fake, env) = try Self.setUp()
        _ = fake
        func complete(_ line: String) throws -> String {
            let tool = line.split(separator: " ")[0]
            let result = try ToolProcess.shell(
                "fish --no-config -c \"source '\(Self.root)/completions/fish/\(tool).fish'; complete -C '\(line)'\"",
                environment: env)
            return result.stdout
        }
        for line in Self.deviceLines {
            #expect(Self.words(try complete(line)) == Self.devices, "fish: \(line)")
        }
        // A local playlist's name, not the actions before it (create, list, show...).
        #expect(Self.words(try complete("spotify-playlists local show ")) == ["Mix Tape"])
        #expect(Self.words(try complete("spotify-playlists local ")).contains("show"))
        #expect(!Self.words(try complete("spotify-playlists local ")).contains("Mix Tape"))
        // --scope described once, beside the option; its values stand alone.
        let option = try complete("spotify-auth login --sco")
        #expect(option.split(separator: "\n").count == 1, "\(option)")
        #expect(option.hasPrefix("--scope\tRequest SCOPE"), "\(option)")
        let values = try complete("spotify-auth login --scope ")
        #expect(Self.words(values).contains("edit"), "\(values)")
        #expect(!values.contains("Request SCOPE"), "\(values)")
    }

    /// Drives zsh's completion system on a pseudo-terminal (zpty): types the line and Tab, and
    /// prints every match compadd is given, one per line. Markers (a NUL line) before and after
    /// the completion bound the read; `timeout` bounds it all.
    static let zshCapture = #"""
        zmodload zsh/zpty
        zpty z zsh -f -i
        zpty -w z "PROMPT= ; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
        zpty -w z "null-line () { echo -E - \$'\\0'; }; compprefuncs=( null-line ); comppostfuncs=( null-line exit )"
        zpty -w z 'compadd () {
          if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
          typeset -a __hits; builtin compadd -A __hits "$@"
          local h; for h in $__hits; do echo -E - "match:$h"; done
        }'
        zpty -w z "bindkey '^M' undefined-key; bindkey '^J' undefined-key; bindkey '^I' complete-word"
        zpty -w z "$2"$'\t'
        integer seen=0
        while zpty -r z line; do
          if [[ $line == *$'\0'* ]]; then (( seen++ )) && exit 0 || continue; fi
          (( seen )) && [[ $line == match:* ]] && print -r -- "${${line#match:}%%$'\r'*}"
        done
        """#
}
