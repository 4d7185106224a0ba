import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// routine-link fit: the best fit for a routine's duration becomes a playlist, linked.
@Suite(.tags(.medium)) struct RoutineFitTests {
    @Test func fitMakesAPlaylistThatFillsTheRoutineAndLinksIt() async throws {
        let library = try await PlaylistWriteTests.editor()
        let added = try await library.run("routine-link", ["add", "morning", "--duration", "15m"])
        #expect(added.status == 0, "\(added.stderr)")
        let fit = try await library.run("routine-link", ["fit", "morning", "--liked"])
        #expect(fit.status == 0, "\(fit.stderr)")
        let routine = try #require(try records(fit).first)
        #expect(routine["type"] == "routine" && routine["name"] == "morning")
        let id = try #require(routine["playlist"]?["id"]?.stringValue)
        #expect(routine["playlist"]?["name"] == "morning 15:00")
        #expect(fit.stderr.contains("made playlist 'morning 15:00' (\(id))"), "\(fit.stderr)")

        // The playlist: liked songs in their order, within a second of fifteen minutes.
        let tracks = try records(try await library.tracks(["--no-cache", id]))
        let total = tracks.reduce(0) { $0 + ($1["duration_ms"]?.intValue ?? 0) }
        #expect(abs(total - 900_000) <= 1_000, "\(total) ms")
        let liked = try records(try await library.tracks(["--liked"])).compactMap { $0["uri"]?.stringValue }
        let chosen = tracks.compactMap { $0["uri"]?.stringValue }
        let positions = chosen.compactMap { liked.firstIndex(of: $0) }
        #expect(positions.count == chosen.count && positions == positions.sorted(), "in the order of the source")

        // songcount agrees with what was made.
        let count = try await library.run(
            "songcount", ["--target", "15m"], stdin: try await library.tracks(["--no-cache", id]).stdout)
        #expect(count.status == 0, "\(count.stderr)")
    }

    @Test func fitFromAPlaylist() async throws {
        let library = try await PlaylistWriteTests.editor()
        _ = try await library.run("routine-link", ["add", "run", "--duration", "30m"])
        let fit = try await library.run("routine-link", ["fit", "run", "--from", generated(300), "--name", "Run 30"])
        #expect(fit.status == 0, "\(fit.stderr)")
        let id = try #require(try records(fit).first?["playlist"]?["id"]?.stringValue)
        let tracks = try records(try await library.tracks(["--no-cache", id]))
        let total = tracks.reduce(0) { $0 + ($1["duration_ms"]?.intValue ?? 0) }
        #expect(abs(total - 1_800_000) <= 1_000, "\(total) ms")
        #expect(tracks.allSatisfy { $0["playlist"]?["id"]?.stringValue == id })
    }

    /// A routine linked to a track before fit is not offered a playlist delete of
    /// that track's id; one linked to a playlist still is.
    @Test func fitOffersToDeleteOnlyAPlaylistLinkedBefore() async throws {
        let library = try await PlaylistWriteTests.editor()
        let track = try #require(try await PlaylistWriteTests.uris(library, generated(10)).first)
        _ = try await library.run("routine-link", ["add", "walk", "--duration", "10m"])
        let linked = try await library.run("routine-link", ["link", "walk", track])
        #expect(linked.status == 0, "\(linked.stderr)")
        let fit = try await library.run("routine-link", ["fit", "walk", "--liked"])
        #expect(fit.status == 0, "\(fit.stderr)")
        #expect(!fit.stderr.contains("spotify-playlists delete"), "\(fit.stderr)")
        let again = try await library.run("routine-link", ["fit", "walk", "--liked", "--name", "walk two"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("if you no longer want it: spotify-playlists delete"), "\(again.stderr)")
    }

    @Test func fitTakesAPlaylistName() async throws {
        let library = try await PlaylistWriteTests.editor()
        _ = try await library.run("routine-link", ["add", "walk", "--duration", "10m"])
        let fit = try await library.run("routine-link", ["fit", "walk", "--from", "mixed bag"])
        #expect(fit.status == 0, "\(fit.stderr)")
        #expect(try records(fit).first?["playlist"]?["id"] != nil)
    }

    @Test func fitSaysWhatIsMissing() async throws {
        let library = try await PlaylistWriteTests.editor()
        _ = try await library.run("routine-link", ["add", "open-ended"])
        let noDuration = try await library.run("routine-link", ["fit", "open-ended", "--liked"])
        #expect(noDuration.status == 64)
        #expect(noDuration.stderr.contains("--duration 15m"), "\(noDuration.stderr)")
        _ = try await library.run("routine-link", ["add", "morning", "--duration", "15m"])
        let noSource = try await library.run("routine-link", ["fit", "morning"])
        #expect(noSource.status == 64)
        let both = try await library.run("routine-link", ["fit", "morning", "--liked", "--from", generated(3)])
        #expect(both.status == 64)
        let unknown = try await library.run("routine-link", ["fit", "evening", "--liked"])
        #expect(unknown.status != 0)
        let notOwned = try await library.run("routine-link", ["fit", "morning", "--from", GeneratedLibrary.notOwnedID])
        #expect(notOwned.status == 77, "\(notOwned.stderr)")
        let readOnly = try await Library()
        _ = try await readOnly.run("routine-link", ["add", "morning", "--duration", "15m"])
        let refused = try await readOnly.run("routine-link", ["fit", "morning", "--liked"])
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("spotify-auth login --scope edit"), "\(refused.stderr)")
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        #expect(requests["POST /v1/me/playlists"] == nil, "nothing was made")
    }
}
