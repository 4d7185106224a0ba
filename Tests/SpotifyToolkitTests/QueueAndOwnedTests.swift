import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// `spotify-nowplaying queue`: what plays now and next, as records or a table.
@Suite(.tags(.medium)) struct QueueListingTests {
    @Test func theQueueIsWhatPlaysNowThenWhatPlaysNext() async throws {
        let library = try await Library()
        try await library.fake.call("POST", "/_fake/playback", form: [("index", "3"), ("playing", "false")])
        let result = try await library.run("spotify-nowplaying", ["queue"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.map { $0["id"]?.stringValue } == PlaybackClock.catalog[3...].map(\.id))
        #expect(items.map { $0["current"] } == [true] + Array(repeating: false, count: 8))
        #expect(items.map { $0["position"]?.intValue } == (0..<9).map { $0 })
        #expect(items.allSatisfy { $0["type"] == "track" && $0["duration_ms"]?.intValue != nil })
        #expect(try await library.counters()["requests"]?["GET /v1/me/player/queue"] == 1)
    }

    @Test func whatIsAddedToTheQueuePlaysNext() async throws {
        let library = try await Library(
            scope: LibrarySourcesTests.defaults + " user-modify-playback-state")
        try await library.fake.call("POST", "/_fake/playback", form: [("index", "10"), ("playing", "false")])
        let added = "spotify:track:" + PlaybackClock.catalog[0].id
        let add = try await library.run("spotify-nowplaying", ["queue", added])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.isEmpty)
        let items = try records(try await library.run("spotify-nowplaying", ["queue"]))
        #expect(
            items.map { $0["id"]?.stringValue } == [
                PlaybackClock.catalog[10].id, PlaybackClock.catalog[0].id, PlaybackClock.catalog[11].id,
            ])
    }

    @Test func aTableOnATerminalMarksWhatPlaysNow() async throws {
        let library = try await Library()
        try await library.fake.call("POST", "/_fake/playback", form: [("index", "9"), ("playing", "false")])
        let result = try await library.run(
            "spotify-nowplaying", ["queue"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "72"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("    #  NAME") && lines[0].hasSuffix("DURATION"))
        // Counted from 1, as the other tables are; the records keep position 0.
        #expect(lines[1].hasPrefix("▶   1  Keys on the Hook") && lines[1].hasSuffix("3:03"))
        #expect(lines[2].hasPrefix("    2  Out the Door") && lines[2].contains("The Fixtures"))
        #expect(lines.allSatisfy { $0.count <= 72 })
        let json = try await library.run(
            "spotify-nowplaying", ["queue", "--json"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(try records(json).count == 3)
    }

    @Test func nothingPlayingIsExitOneAndAMissingScopeNamesItsLogin() async throws {
        let library = try await Library()
        let idle = try await library.run("spotify-nowplaying", ["queue"])
        #expect(idle.status == 1 && idle.stdout.isEmpty && idle.stderr.isEmpty)
        let device = try await library.run("spotify-nowplaying", ["queue", "--device", "Kitchen"])
        #expect(device.status == 64)

        let narrow = try await Library(scope: "playlist-read-private user-library-read")
        let refused = try await narrow.run("spotify-nowplaying", ["queue"])
        #expect(refused.status == 77)
        #expect(
            refused.stderr
                == "spotify-nowplaying: reading the queue needs the user-read-playback-state scope; add it with: spotify-auth login --scope user-read-playback-state (the scopes you have are kept)\n"
        )
    }
}

/// `spotify-playlists --owned` and `--not-owned`.
@Suite(.tags(.medium)) struct OwnedPlaylistsTests {
    static let owned = [
        "3cEYpjA9oz9GiPac4AsH4n", "7d2D2S200NyUE5KYs80PwO", "1Cp6VQCKf2VL4sP09jN9oX", generated(10_000),
        generated(120, "mix"),
    ]

    func ids(_ result: ToolRun) throws -> [String] {
        try records(result).compactMap { $0["id"]?.stringValue }
    }

    @Test func ownedAndCollaborativeOrTheOthers() async throws {
        let library = try await Library()
        let all = try await library.run("spotify-playlists", [])
        #expect(try ids(all) == Array(Self.owned.prefix(3)) + ["37i9dQZF1DXcBWIGoYBM5M"] + Self.owned.suffix(2))
        let owned = try await library.run("spotify-playlists", ["--owned"])
        #expect(owned.status == 0, "\(owned.stderr)")
        #expect(try ids(owned) == Self.owned)
        let listed = try await library.run("spotify-playlists", ["list", "--owned"])
        #expect(try ids(listed) == Self.owned)
        let others = try await library.run("spotify-playlists", ["--not-owned"])
        #expect(try ids(others) == ["37i9dQZF1DXcBWIGoYBM5M"])
        let both = try await library.run("spotify-playlists", ["--owned", "--not-owned"])
        #expect(both.status == 64)
        // The user id is the login's, kept when it was made: no GET /me per listing.
        #expect(try await library.counters()["requests"]?["GET /v1/me"] == nil)
        // With a token from the environment, whose user nobody stored, GET /me asks once a listing.
        let token = ["SPOTIFY_ACCESS_TOKEN": library.tokens.accessToken]
        let fromToken = try await library.run("spotify-playlists", ["--owned"], environment: token)
        #expect(try ids(fromToken) == Self.owned)
        #expect(try await library.counters()["requests"]?["GET /v1/me"] == 1)
    }

    @Test func aWholeLibraryReadsWithOwnedAndExitsZero() async throws {
        let library = try await Library()
        let everything = try await library.run("spotify-playlists", [])
        let failing = try await library.tracks(["--tracks-only"], stdin: everything.stdout)
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("37i9dQZF1DXcBWIGoYBM5M"), "\(failing.stderr)")

        let owned = try await library.run("spotify-playlists", ["--owned"])
        let whole = try await library.tracks(["--tracks-only"], stdin: owned.stdout)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(!whole.stderr.contains("37i9dQZF1DXcBWIGoYBM5M"))
        #expect(
            whole.stdoutLines.count == failing.stdoutLines.count, "only the editorial playlist, with no items, left out"
        )
    }
}
