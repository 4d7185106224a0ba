import Foundation
import Testing

@testable import ToolkitCore

/// `spotify-playlists local ...` in process, against a private XDG_DATA_HOME.
@Suite(.tags(.medium)) struct LocalPlaylistsCommandTests {
    struct Local {
        let library: Library
        let data: String

        init() async throws {
            library = try await Library()
            data = library.fake.home.url.appendingPathComponent("data").path
        }

        var file: String { data + "/spotify-toolkit/local-playlists.json" }

        func run(_ arguments: [String], stdin: String? = nil) async throws -> ToolRun {
            try await library.run(
                "spotify-playlists", ["local"] + arguments, stdin: stdin, environment: ["XDG_DATA_HOME": data])
        }
    }

    @Test func addRenameDeleteAndTheirErrors() async throws {
        let local = try await Local()
        let one =
            #"{"type":"track","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"The Funeral","duration_ms":322506}"#
        #expect(try await local.run(["create", "Run"], stdin: one + "\n").status == 0)
        let added = try await local.run(["add", "run"], stdin: one + "\n\n" + one + "\n")
        #expect(added.status == 0)
        #expect(try JSONValue.parse(added.stdout)["items_total"] == 3)

        let taken = try await local.run(["create", "--allow-empty", "RUN"], stdin: "")
        #expect(taken.status == 65)
        #expect(
            taken.stderr
                == "spotify-playlists: a local playlist called 'Run' already exists; add to it with 'local add' or pick another name\n"
        )
        #expect(try await local.run(["create", "--allow-empty", "Walk"], stdin: "").status == 0)
        #expect(try await local.run(["rename", "walk", "run"]).status == 65)
        let renamed = try await local.run(["rename", "run", "Long Run"])
        #expect(renamed.status == 0)
        #expect(try JSONValue.parse(renamed.stdout)["name"] == "Long Run")
        #expect(
            try await local.run(["rename", "long run", "LONG RUN"]).status == 0, "a new case for the same playlist")

        let list = try records(try await local.run(["list"]))
        #expect(list.map { $0["name"]?.stringValue } == ["LONG RUN", "Walk"])
        #expect(list.map { $0["items_total"]?.intValue } == [3, 0])

        let deleted = try await local.run(["delete", "walk"])
        #expect(deleted.status == 0 && deleted.stdout == "")
        #expect(deleted.stderr == "spotify-playlists: deleted local playlist 'Walk' (0 items)\n")
        for arguments in [["show", "walk"], ["delete", "walk"], ["rename", "walk", "x"]] {
            let missing = try await local.run(arguments)
            #expect(missing.status == 1, "\(arguments)")
            #expect(
                missing.stderr
                    == "spotify-playlists: no local playlist called '\(arguments[1])'; 'spotify-playlists local list' shows them\n"
            )
        }
        #expect(try await local.run(["add", "walk"], stdin: one + "\n").status == 1)

        let before = try String(contentsOfFile: local.file, encoding: .utf8)
        let notJSON = try await local.run(["add", "long run"], stdin: one + "\nnot json\n")
        #expect(notJSON.status == 65)
        #expect(notJSON.stderr == "spotify-playlists: standard input: line 2: not a JSON object\n")
        let noURI = try await local.run(["add", "long run"], stdin: #"{"name":"x"}"# + "\n")
        #expect(noURI.status == 65)
        #expect(noURI.stderr.contains("line 1: not a track record (no uri)"))
        #expect(try String(contentsOfFile: local.file, encoding: .utf8) == before, "nothing stored from bad input")

        for arguments in [
            ["create", " "], ["create", "a\u{1B}[2Jb"], ["show"], ["show", "a", "b"], ["list", "x"], ["play", "x"],
        ] {
            let result = try await local.run(arguments, stdin: "")
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
    }

    @Test func aCorruptOrNewerFileIsReportedAndLeftUntouched() async throws {
        let local = try await Local()
        #expect(try await local.run(["create", "--allow-empty", "Keep"], stdin: "").status == 0)
        for (contents, status, words) in [
            ("{\"playlists\": [", Int32(65), "cannot be read"),
            ("{\"playlists\":[],\"schema_version\":99}\n", Int32(78), "newer spotify-toolkit (schema_version 99"),
        ] {
            try contents.write(toFile: local.file, atomically: true, encoding: .utf8)
            for arguments in [["list"], ["create", "--allow-empty", "New"], ["delete", "Keep"]] {
                let result = try await local.run(arguments, stdin: "")
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(local.file) && result.stderr.contains(words), "\(result.stderr)")
            }
            #expect(try String(contentsOfFile: local.file, encoding: .utf8) == contents, "never overwritten")
        }
    }

    @Test func whatGoesInComesOutByAnySpellingOfTheName() async throws {
        let local = try await Local()
        let tracks = try await local.library.tracks(["3cEYpjA9oz9GiPac4AsH4n"])
        let created = try await local.run(["create", "Café Mix 🎧"], stdin: tracks.stdout)
        #expect(created.status == 0, "\(created.stderr)")
        let record = try JSONValue.parse(created.stdout)
        #expect(record.objectValue?.keys == ["type", "name", "items_total", "duration_ms", "created_at", "updated_at"])
        #expect(record["type"] == "local_playlist" && record["name"] == "Café Mix 🎧" && record["items_total"] == 5)
        #expect(record["duration_ms"] == 3_960_406)

        for spelling in ["Café Mix 🎧", "CAFÉ MIX 🎧", "cafe\u{301} mix 🎧", " café mix 🎧 "] {
            let shown = try await local.run(["show", spelling])
            #expect(shown.status == 0, "\(spelling): \(shown.stderr)")
            #expect(shown.stdout == tracks.stdout, "\(spelling): the records as they came, in order")
        }
        // spotify-playlists local show 'café mix 🎧' | songcount --target 15m --label
        let show = try await local.run(["show", "café mix 🎧"])
        let counted = try await InProcess.run("songcount", ["--target", "15m", "--label"], stdin: show.stdout)
        #expect(counted.stdout == "4 songs\n", "\(counted.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: local.file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
