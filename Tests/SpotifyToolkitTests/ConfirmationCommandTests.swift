import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore

/// Issue 30 items 5 and 7: destructive commands ask on a terminal (with --yes for scripts), and
/// the small notes that say what a command left behind or what to do next.
@Suite(.tags(.medium)) struct ConfirmationCommandTests {
    /// Standard input is a terminal (the answer is what the test types into it); output is piped.
    static let typing = Terminal(stdinIsTerminal: true, stdoutIsTerminal: false, stderrIsTerminal: false)
    static let quietBrowser = ["BROWSER": "true"]

    static func ids(_ library: Library) async throws -> [String] {
        try records(try await library.run("spotify-playlists", [])).compactMap { $0["id"]?.stringValue }
    }

    // MARK: spotify-playlists delete

    @Test func deleteAsksOnATerminalAndKeepsThePlaylistOnNo() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(120, "mix")
        #expect(try await Self.ids(library).contains(id))
        let kept = try await library.run(
            "spotify-playlists", ["delete", "Mixed Bag"], stdin: "n\n", terminal: Self.typing)
        #expect(kept.status == 1, "\(kept.stderr)")
        #expect(kept.stdout == "")
        #expect(
            kept.stderr
                == "delete playlist 'Mixed Bag' (120 items) from your library? [y/N] spotify-playlists: kept playlist 'Mixed Bag' (\(id)); nothing was deleted\n"
        )
        #expect(try await Self.ids(library).contains(id), "still in the library")
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        #expect(requests["DELETE /v1/me/library"] == nil, "nothing was sent")

        let yes = try await library.run(
            "spotify-playlists", ["delete", "Mixed Bag"], stdin: "yes\n", terminal: Self.typing)
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(!(try await Self.ids(library).contains(id)))
    }

    @Test func deleteWithYesOrWithoutATerminalDoesNotAsk() async throws {
        let library = try await PlaylistWriteTests.editor()
        for (index, arguments) in [["delete", "--yes"], ["delete", "-y"]].enumerated() {
            let made = try await library.run("spotify-playlists", ["create", "--allow-empty", "Gone \(index)"])
            let id = try #require(try records(made).first?["id"]?.stringValue)
            let deleted = try await library.run("spotify-playlists", arguments + [id], terminal: Self.typing)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(!deleted.stderr.contains("[y/N]"), "\(deleted.stderr)")
            #expect(!(try await Self.ids(library).contains(id)))
        }
        // A script or pipe is never asked (today's behaviour, kept).
        let made = try await library.run("spotify-playlists", ["create", "--allow-empty", "Piped"])
        let id = try #require(try records(made).first?["id"]?.stringValue)
        let piped = try await library.run("spotify-playlists", ["delete", id])
        #expect(piped.status == 0 && !piped.stderr.contains("[y/N]"), "\(piped.stderr)")
    }

    // MARK: spotify-playlists local delete

    @Test func localDeleteAsksOnATerminal() async throws {
        let library = try await Library()
        let data = library.fake.home.url.appendingPathComponent("data").path
        func local(_ arguments: [String], stdin: String? = nil, terminal: Terminal = .none) async throws -> ToolRun {
            try await library.run(
                "spotify-playlists", ["local"] + arguments, stdin: stdin, environment: ["XDG_DATA_HOME": data],
                terminal: terminal)
        }
        let one =
            #"{"type":"track","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"The Funeral","duration_ms":322506}"#
        #expect(try await local(["create", "Walk"], stdin: one + "\n").status == 0)
        let kept = try await local(["delete", "walk"], stdin: "\n", terminal: Self.typing)
        #expect(kept.status == 1)
        #expect(
            kept.stderr
                == "delete local playlist 'Walk' (1 item)? It is kept only on this machine and cannot be brought back. [y/N] spotify-playlists: kept local playlist 'Walk'; nothing was deleted\n"
        )
        #expect(try records(try await local(["list"])).count == 1)
        let skipped = try await local(["delete", "walk", "--yes"], terminal: Self.typing)
        #expect(skipped.status == 0)
        #expect(skipped.stderr == "spotify-playlists: deleted local playlist 'Walk' (1 item)\n")
        #expect(try records(try await local(["list"])).isEmpty)
    }

    // MARK: routine-link remove

    @Test func removeSaysHowManySessionsGoWithTheRoutine() async throws {
        let library = try await Library()
        let count = #"{"type":"song_count","listened_ms":600000,"songs":2,"label":"2 songs"}"#
        for (name, sessions) in [("none", 0), ("one", 1), ("two", 2)] {
            _ = try await library.run("routine-link", ["add", name])
            for _ in 0..<sessions {
                #expect(try await library.run("routine-link", ["log", name], stdin: count + "\n").status == 0)
            }
        }
        let questions = [
            "none": "remove routine 'none' (no sessions)? [y/N] ",
            "one": "remove routine 'one' and its 1 session? [y/N] ",
            "two": "remove routine 'two' and its 2 sessions? [y/N] ",
        ]
        for (name, question) in questions {
            let kept = try await library.run("routine-link", ["remove", name], stdin: "n\n", terminal: Self.typing)
            #expect(kept.status == 1)
            #expect(kept.stderr == question + "routine-link: kept '\(name)'; nothing was removed\n")
        }
        #expect(try records(try await library.run("routine-link", ["list"])).count == 3)

        let removed = try await library.run("routine-link", ["remove", "one"], stdin: "y\n", terminal: Self.typing)
        #expect(removed.status == 0)
        #expect(removed.stderr == questions["one"]! + "routine-link: removed 'one' and its 1 session\n")
        let none = try await library.run("routine-link", ["remove", "none", "-y"], terminal: Self.typing)
        #expect(none.stderr == "routine-link: removed 'none' (no sessions)\n")
        // Without a terminal, remove refuses unless --yes (as it always has).
        let piped = try await library.run("routine-link", ["remove", "two"], stdin: "y\n")
        #expect(piped.status == 64 && piped.stderr.contains("pass --yes"), "\(piped.stderr)")
        #expect(
            try await library.run("routine-link", ["remove", "two", "--yes"]).stderr
                == "routine-link: removed 'two' and its 2 sessions\n")
    }

    // MARK: Item 7

    @Test func createWarnsWhenAPlaylistOfThatNameExists() async throws {
        let library = try await PlaylistWriteTests.editor()
        let first = try await library.run("spotify-playlists", ["create", "--allow-empty", "Focus"])
        #expect(first.status == 0)
        #expect(!first.stderr.contains("already have"), "\(first.stderr)")
        let id = try #require(try records(first).first?["id"]?.stringValue)
        let before = try await library.counters()["requests"]?["GET /v1/me/playlists"]?.intValue ?? 0
        let second = try await library.run("spotify-playlists", ["create", "--allow-empty", "Focus"])
        #expect(second.status == 0, "it still creates")
        #expect(
            second.stderr.hasPrefix(
                "spotify-playlists: you already have a playlist called 'Focus' (\(id)); this makes another\n"),
            "\(second.stderr)")
        let after = try await library.counters()["requests"]?["GET /v1/me/playlists"]?.intValue ?? 0
        #expect(after - before == 1, "the listing create already made, no request of its own")
    }

    @Test func fitAgainSaysThePreviousPlaylistStays() async throws {
        let library = try await PlaylistWriteTests.editor()
        _ = try await library.run("routine-link", ["add", "workout", "--duration", "30m"])
        let first = try await library.run("routine-link", ["fit", "workout", "--liked"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("linked before"), "\(first.stderr)")
        let old = try #require(try records(first).first?["playlist"]?["id"]?.stringValue)

        let edited = try await library.run(
            "routine-link", ["edit", "workout", "--duration", "20m"], environment: Self.quietBrowser)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(
            edited.stderr
                == "routine-link: 'workout' is linked to 'workout 30:00' (\(old)), which may fill the old duration; to fit 20:00: routine-link fit workout --from PLAYLIST (or --liked)\n"
        )
        let noteOnly = try await library.run("routine-link", ["edit", "workout", "--note", "legs"])
        #expect(noteOnly.stderr == "", "only a new duration suggests a refit")

        let second = try await library.run("routine-link", ["fit", "workout", "--liked"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.hasSuffix(
                "routine-link: the playlist linked before, 'workout 30:00' (\(old)), stays in your library; if you no longer want it: spotify-playlists delete \(old)\n"
            ), "\(second.stderr)")
        #expect(try await Self.ids(library).contains(old), "fit deletes nothing")
    }

    @Test func editDurationWithoutALinkSuggestsNothing() async throws {
        let library = try await Library()
        _ = try await library.run("routine-link", ["add", "walk", "--duration", "10m"])
        let edited = try await library.run("routine-link", ["edit", "walk", "--duration", "20m"])
        #expect(edited.status == 0 && edited.stderr == "", "\(edited.stderr)")
    }

    @Test func theNoClientIDGuideIsOneStepPerLine() async throws {
        let fake = try InProcessFake()
        let result = try await InProcess.run(
            "spotify-auth", ["login"], environment: fake.environment(["SPOTIFY_CLIENT_ID": ""]))
        #expect(result.status == 78)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.first == "spotify-auth: no client id. To get one:")
        for (index, line) in lines.dropFirst().enumerated() {
            #expect(line.hasPrefix("  \(index + 1). "), "\(line)")
        }
        #expect(lines[2].contains("http://127.0.0.1"), "the redirect URI to register: \(lines[2])")
        #expect(lines[4].contains("spotify-auth login --client-id YOUR_CLIENT_ID"))
    }
}
