import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-playlists run in process against an in-process fake-spotify.
@Suite(.tags(.medium)) struct SpotifyPlaylistsCommandTests {
    static let libraryNames = [
        "Morning", "Focus — deep work (collab)", "New Playlist", "Today's Top Hits", "Long Run", "Mixed Bag",
    ]

    func playlists(_ library: Library, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:])
        async throws -> ToolRun
    {
        try await library.run("spotify-playlists", arguments, stdin: stdin, environment: environment)
    }

    @Test func listsTheWholeLibraryByOffset() async throws {
        let library = try await Library(["--extra-playlists", "120"])
        let result = try await playlists(library, [])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 126)
        #expect(items.prefix(6).map { $0["name"]?.stringValue } == Self.libraryNames)
        #expect(items.suffix(120).map { $0["items_total"]?.intValue } == (0..<120).map { $0 })
        #expect(items.allSatisfy { $0["type"] == "playlist" })
        #expect(
            try await library.counters()["requests"] == ["GET /v1/me/playlists": 3],
            "offset paging; the removed next endpoint is never called")
        let explicit = try await playlists(library, ["list", "--concurrency", "1"])
        #expect(explicit.stdout == result.stdout)
    }

    @Test func aTableOnATerminal() async throws {
        let library = try await Library()
        let result = try await playlists(
            library, [], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "100"])
        let lines = result.stdoutLines
        #expect(lines.count == 7)
        #expect(
            lines[0].hasPrefix("NAME") && lines[0].contains("ITEMS") && lines[0].contains("OWNER")
                && lines[0].hasSuffix("ID"))
        #expect(lines[5].hasPrefix("Long Run") && lines[5].contains("10,000") && lines[5].hasSuffix(generated(10_000)))
    }

    @Test func getTakesEveryFormOfReference() async throws {
        let library = try await Library()
        let id = "3cEYpjA9oz9GiPac4AsH4n"
        let forms = [
            id, "spotify:playlist:\(id)", "https://open.spotify.com/intl-de/playlist/\(id)?si=0123abc",
            #"{"type":"playlist","uri":"spotify:playlist:\#(id)","name":"Morning"}"#,
        ]
        let result = try await playlists(library, ["get"] + forms)
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 4 && Set(items.map(\.description)).count == 1)
        #expect(items[0]["name"] == "Morning" && items[0]["items_total"] == 6)
        #expect(items[0]["duration_ms"] == nil)
        var listed = try #require(try records(try await playlists(library, [])).first?.objectValue)
        var fetched = try #require(items[0].objectValue)
        #expect(listed.keys == fetched.keys, "the same record as the list gives")
        listed["description"] = nil  // the fixtures' simplified and full objects differ only here
        fetched["description"] = nil
        #expect(listed == fetched)

        let stdin = try await playlists(library, ["get"], stdin: forms.joined(separator: "\n") + "\n")
        #expect(stdin.stdout == result.stdout)
        let bad = try await playlists(library, ["get", "spotify:album:4aawyAB9vmqN3uQ7FjRGTy"])
        #expect(bad.status == 64)
        #expect(
            bad.stderr.hasPrefix(
                "spotify-playlists: 'spotify:album:4aawyAB9vmqN3uQ7FjRGTy': an album URI, not a playlist"))
    }

    @Test func durationIsTheSumOfTheItems() async throws {
        let library = try await Library()
        let playlist = generated(120, "mix")
        let tracks = try records(try await library.tracks([playlist]))
        let expected = tracks.compactMap { $0["duration_ms"]?.intValue }.reduce(0, +)
        let result = try await playlists(library, ["get", "--duration", playlist, "5MlKAGFZNoN2d0Up8sQc0N"])
        #expect(result.status == 0)
        let items = try records(result)
        #expect(items[0]["duration_ms"]?.intValue == expected)
        #expect(items[0].objectValue?.keys.last == "duration_ms")
        #expect(items[1]["duration_ms"] == .null)
        #expect(items[1]["items_total"] == .null)
        #expect(
            result.stderr.contains(
                "playlist 5MlKAGFZNoN2d0Up8sQc0N: Spotify returns items only for playlists you own or collaborate on"))
        #expect(result.stderr.hasSuffix("; duration_ms is null\n"))
    }

    @Test func aMissingPlaylistIsReportedAndTheOthersStillPrint() async throws {
        let library = try await Library()
        let result = try await playlists(library, ["get", "37i9dQZF1DXcBWIGoYBM5M", generated(3)])
        #expect(result.status == 1)
        #expect(try records(result).map { $0["id"]?.stringValue } == [generated(3)])
        #expect(result.stderr.contains("playlist 37i9dQZF1DXcBWIGoYBM5M: not found (404: Resource not found)"))
    }

    @Test func legacyShapesGiveTheSameRecords() async throws {
        let current = try await playlists(try await Library(), ["get", "3cEYpjA9oz9GiPac4AsH4n", generated(30)])
        let legacy = try await playlists(
            try await Library(["--legacy"]), ["get", "3cEYpjA9oz9GiPac4AsH4n", generated(30)])
        #expect(current.status == 0 && !current.stdout.isEmpty)
        #expect(current.stdout == legacy.stdout)
        let list = try records(try await playlists(try await Library(["--legacy"]), []))
        #expect(list.map { $0["items_total"]?.intValue } == [6, 143, 0, 50, 10_000, 120])
    }

    @Test func faultsWhileListingAndFetching() async throws {
        let library = try await Library(["--extra-playlists", "300"])
        let clean = try await playlists(library, [])
        try await library.fault([("kind", "reset"), ("every", "3")])
        try await library.fault([("kind", "server_error"), ("every", "4")])
        let faulty = try await playlists(library, [])
        #expect(faulty.status == 0, "\(faulty.stderr)")
        #expect(faulty.stdout == clean.stdout)
        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        try await library.fault([("kind", "quota"), ("rate", "1")])
        let quota = try await playlists(library, ["get", generated(1)])
        #expect(quota.status == 69)
    }

    @Test func usageErrors() async throws {
        let library = try await Library()
        let unknown = try await playlists(library, ["lsit"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr
                == "spotify-playlists: unknown command 'lsit'; did you mean 'list'?\nUsage: spotify-playlists [COMMAND] [OPTIONS]\nTry 'spotify-playlists --help' for more information.\n"
        )
        let help = try await playlists(library, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Usage: spotify-playlists [COMMAND] [OPTIONS]"))
    }
}
