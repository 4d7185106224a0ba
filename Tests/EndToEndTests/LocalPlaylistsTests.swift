import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// `spotify-playlists local ...` against a private XDG_DATA_HOME, spawned for real.
@Suite struct LocalPlaylistsEndToEndTests {
    struct Local {
        let library: Library
        let data: String

        init() throws {
            library = try Library()
            data = library.fake.home.url.appendingPathComponent("data").path
        }

        var environment: [String: String] { library.fake.environment(["XDG_DATA_HOME": data]) }
        var file: String { data + "/spotify-toolkit/local-playlists.json" }

        func run(_ arguments: [String], stdin: String? = nil) throws -> ToolResult {
            try library.run(
                "spotify-playlists", ["local"] + arguments, stdin: stdin, environment: ["XDG_DATA_HOME": data])
        }

        func shell(_ script: String) throws -> ToolResult {
            try ToolProcess.shell(script, environment: environment, timeout: 120)
        }
    }

    @Test func whatGoesInComesOutByAnySpellingOfTheName() throws {
        let local = try Local()
        let tracks = try local.library.tracks(["3cEYpjA9oz9GiPac4AsH4n"])
        let created = try local.run(["create", "Café Mix 🎧"], stdin: tracks.stdout)
        #expect(created.status == 0, "\(created.stderr)")
        let record = try JSONValue.parse(created.stdout)
        #expect(record.objectValue?.keys == ["type", "name", "items_total", "duration_ms", "created_at", "updated_at"])
        #expect(record["type"] == "local_playlist" && record["name"] == "Café Mix 🎧" && record["items_total"] == 5)
        #expect(record["duration_ms"] == 3_960_406)

        for spelling in ["Café Mix 🎧", "CAFÉ MIX 🎧", "cafe\u{301} mix 🎧", " café mix 🎧 "] {
            let shown = try local.run(["show", spelling])
            #expect(shown.status == 0, "\(spelling): \(shown.stderr)")
            #expect(shown.stdout == tracks.stdout, "\(spelling): the records as they came, in order")
        }
        let counted = try local.shell("spotify-playlists local show 'café mix 🎧' | songcount --target 15m --label")
        #expect(counted.stdout == "4 songs\n", "\(counted.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: local.file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func addRenameDeleteAndTheirErrors() throws {
        let local = try Local()
        let one =
            #"{"type":"track","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"The Funeral","duration_ms":322506}"#
        #expect(try local.run(["create", "Run"], stdin: one + "\n").status == 0)
        let added = try local.run(["add", "run"], stdin: one + "\n\n" + one + "\n")
        #expect(added.status == 0)
        #expect(try JSONValue.parse(added.stdout)["items_total"] == 3)

        let taken = try local.run(["create", "RUN"], stdin: "")
        #expect(taken.status == 65)
        #expect(
            taken.stderr
                == "spotify-playlists: a local playlist called 'Run' already exists; add to it with 'local add' or pick another name\n"
        )
        #expect(try local.run(["create", "Walk"], stdin: "").status == 0)
        #expect(try local.run(["rename", "walk", "run"]).status == 65)
        let renamed = try local.run(["rename", "run", "Long Run"])
        #expect(renamed.status == 0)
        #expect(try JSONValue.parse(renamed.stdout)["name"] == "Long Run")
        #expect(try local.run(["rename", "long run", "LONG RUN"]).status == 0, "a new case for the same playlist")

        let list = try records(try local.run(["list"]))
        #expect(list.map { $0["name"]?.stringValue } == ["LONG RUN", "Walk"])
        #expect(list.map { $0["items_total"]?.intValue } == [3, 0])

        let deleted = try local.run(["delete", "walk"])
        #expect(deleted.status == 0 && deleted.stdout == "")
        #expect(deleted.stderr == "spotify-playlists: deleted local playlist 'Walk' (0 items)\n")
        for arguments in [["show", "walk"], ["delete", "walk"], ["rename", "walk", "x"]] {
            let missing = try local.run(arguments)
            #expect(missing.status == 1, "\(arguments)")
            #expect(
                missing.stderr
                    == "spotify-playlists: no local playlist called '\(arguments[1])'; 'spotify-playlists local list' shows them\n"
            )
        }
        #expect(try local.run(["add", "walk"], stdin: one + "\n").status == 1)

        let before = try String(contentsOfFile: local.file, encoding: .utf8)
        let notJSON = try local.run(["add", "long run"], stdin: one + "\nnot json\n")
        #expect(notJSON.status == 65)
        #expect(notJSON.stderr == "spotify-playlists: standard input: line 2: not a JSON object\n")
        let noURI = try local.run(["add", "long run"], stdin: #"{"name":"x"}"# + "\n")
        #expect(noURI.status == 65)
        #expect(noURI.stderr.contains("line 1: not a track record (no uri)"))
        #expect(try String(contentsOfFile: local.file, encoding: .utf8) == before, "nothing stored from bad input")

        for arguments in [
            ["create", " "], ["create", "a\u{1B}[2Jb"], ["show"], ["show", "a", "b"], ["list", "x"], ["play", "x"],
        ] {
            let result = try local.run(arguments, stdin: "")
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
    }

    @Test func twentyWritersAtOnceLoseNothing() throws {
        let local = try Local()
        #expect(try local.run(["create", "Mix"], stdin: "").status == 0)
        // 20 processes append one record each, and 20 others create a playlist each, all at once.
        let result = try local.shell(
            """
            for i in $(seq 1 20); do
              printf '{"type":"track","uri":"spotify:track:%022d","duration_ms":1000}\\n' "$i" | spotify-playlists local add Mix > /dev/null &
              printf '' | spotify-playlists local create "List $i" > /dev/null &
            done
            wait
            """)
        #expect(result.status == 0, "\(result.stderr)")
        let shown = try records(try local.run(["show", "mix"]))
        #expect(
            Set(shown.compactMap { $0["uri"]?.stringValue })
                == Set(
                    (1...20).map {
                        "spotify:track:" + String(repeating: "0", count: 22 - String($0).count) + String($0)
                    }))
        #expect(try records(try local.run(["list"])).count == 21)
    }

    @Test func aWriterKilledAtAnyMomentLeavesTheOldOrTheNewFile() throws {
        let local = try Local()
        #expect(try local.run(["create", "Big"], stdin: "").status == 0)
        let big = try local.library.fake.home.file(
            "big.jsonl",
            contents: String(
                repeating:
                    #"{"type":"track","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"The Funeral","duration_ms":322506}"#
                    + "\n", count: 20_000))
        // Bounded: 12 writers, each killed with SIGKILL after 0 to 0.3 s; after each, the file must read.
        let result = try local.shell(
            """
            for i in $(seq 1 12); do
              spotify-playlists local add Big < '\(big)' > /dev/null 2>&1 &
              pid=$!
              sleep 0.$(( RANDOM % 300 ))
              kill -9 $pid 2> /dev/null
              wait $pid 2> /dev/null
              n=$(spotify-playlists local show Big | wc -l) || exit 1
              [ $(( n % 20000 )) -eq 0 ] || { echo "torn: $n records" >&2; exit 1; }
            done
            spotify-playlists local list > /dev/null
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: local.file + ".tmp"))
    }

    @Test func aCorruptOrNewerFileIsReportedAndLeftUntouched() throws {
        let local = try Local()
        #expect(try local.run(["create", "Keep"], stdin: "").status == 0)
        for (contents, status, words) in [
            ("{\"playlists\": [", Int32(65), "cannot be read"),
            ("{\"playlists\":[],\"schema_version\":99}\n", Int32(78), "newer spotify-toolkit (schema_version 99"),
        ] {
            try contents.write(toFile: local.file, atomically: true, encoding: .utf8)
            for arguments in [["list"], ["create", "New"], ["delete", "Keep"]] {
                let result = try local.run(arguments, stdin: "")
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(local.file) && result.stderr.contains(words), "\(result.stderr)")
            }
            #expect(try String(contentsOfFile: local.file, encoding: .utf8) == contents, "never overwritten")
        }
    }
}
