import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// `spotify-playlists local ...` against a private XDG_DATA_HOME, spawned for real: writers at
/// once and writers killed (the rest runs in process, LocalPlaylistsCommandTests).
@Suite(.tags(.large)) struct LocalPlaylistsEndToEndTests {
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

    @Test func twentyWritersAtOnceLoseNothing() throws {
        let local = try Local()
        #expect(try local.run(["create", "--allow-empty", "Mix"], stdin: "").status == 0)
        // 20 processes append one record each, and 20 others create a playlist each, all at once.
        let result = try local.shell(
            """
            for i in $(seq 1 20); do
              printf '{"type":"track","uri":"spotify:track:%022d","duration_ms":1000}\\n' "$i" | spotify-playlists local add Mix > /dev/null &
              printf '' | spotify-playlists local create --allow-empty "List $i" > /dev/null &
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
        #expect(try local.run(["create", "--allow-empty", "Big"], stdin: "").status == 0)
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
}
