import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// What Spotify knows about you: `spotify-tracks --top`, `--saved-albums`,
/// `--top-artists` and `--followed` against fake-spotify: offset and cursor paging, ranks across
/// pages, scopes, the table.
@Suite(.tags(.medium)) struct LibrarySourcesTests {
    static let defaults =
        "playlist-read-private playlist-read-collaborative user-read-currently-playing user-read-playback-state user-library-read"
    static let withHistory = defaults + " user-read-recently-played user-top-read user-follow-read"

    static func requests(_ counters: JSONValue, _ route: String) -> Int {
        counters["requests"]?[route]?.intValue ?? 0
    }

    @Test func topTracksAreRankedAcrossPages() async throws {
        let library = try await Library(scope: Self.withHistory)
        let result = try await library.tracks(["--top", "--range", "short"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 60)
        #expect(items.map { $0["rank"]?.intValue } == (1...60).map { $0 })
        #expect(items.map { $0["position"]?.intValue } == (0..<60).map { $0 })
        #expect(items.allSatisfy { $0["type"] == "track" && $0["playlist"] == .null && $0["added_at"] == .null })
        #expect(items[0]["album"]?["name"]?.stringValue != nil && items[0]["artists"]?.arrayValue?[0]["name"] != nil)
        #expect(Set(items.compactMap { $0["id"]?.stringValue }).count == 60)
        let counters = try await library.counters()
        #expect(Self.requests(counters, "GET /v1/me/top/{type}") == 2, "50 to a page: \(counters)")

        // medium is the default, as Spotify's; the ranges differ.
        let medium = try await library.tracks(["--top"])
        #expect(try records(medium).count == 80)
        #expect(try records(medium).first?["id"] != items.first?["id"])
        let long = try await library.tracks(["--top", "--range", "long"])
        #expect(try records(long).last?["rank"] == 99)
        let raw = try await library.tracks(["--top", "--raw", "--range", "short"])
        #expect(try records(raw).first?["id"] == items.first?["id"])
        #expect(try records(raw).first?["track_number"] != nil, "Spotify's track object untouched")
    }

    @Test func topArtistsAndFollowedArtistsAreArtistRecords() async throws {
        let library = try await Library(scope: Self.withHistory)
        let top = try await library.tracks(["--top-artists", "--range", "long"])
        #expect(top.status == 0, "\(top.stderr)")
        let artists = try records(top)
        #expect(artists.count == 97)
        #expect(artists.map { $0["rank"]?.intValue } == (1...97).map { $0 })
        let first = try #require(artists.first?.objectValue)
        #expect(first.keys == ["type", "id", "uri", "name", "genres", "images", "external_url", "rank"])
        #expect(first["type"] == "artist" && first["uri"]?.stringValue?.hasPrefix("spotify:artist:") == true)
        #expect(artists.contains { $0["genres"] == [] }, "an artist without genres has []")

        let followed = try await library.tracks(["--followed"])
        #expect(followed.status == 0, "\(followed.stderr)")
        let following = try records(followed)
        #expect(following.count == 75)
        #expect(following.allSatisfy { $0["type"] == "artist" && $0["rank"] == nil })
        let ids = following.compactMap { $0["id"]?.stringValue }
        #expect(Set(ids).count == 75 && ids == ids.sorted(), "each cursor page once, in Spotify's order")
        let counters = try await library.counters()
        #expect(Self.requests(counters, "GET /v1/me/following") == 2, "cursor pages of 50: \(counters)")
    }

    @Test func savedAlbumsAreTheirTracksInOrderWithTheRestOfALongAlbum() async throws {
        let library = try await Library()
        let result = try await library.tracks(["--saved-albums"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        // 55 albums of 8 to 14 tracks, one of 60.
        let counts = (0..<55).map { $0 == 1 ? 60 : 8 + $0 % 7 }
        #expect(items.count == counts.reduce(0, +))
        let albums = items.compactMap { $0["album"]?["name"]?.stringValue }
        var expected: [String] = []
        for (index, count) in counts.enumerated() {
            expected += Array(repeating: "Saved Album \(index)", count: count)
        }
        #expect(albums == expected, "album after album, in saved order, the long one whole in its place")
        let long = items.filter { $0["album"]?["name"] == "Saved Album 1" }
        #expect(long.map { $0["position"]?.intValue } == (0..<60).map { $0 })
        #expect(long.last?["name"] == "Album 1 Song 60" && long.last?["disc_number"] == 2)
        #expect(long.last?["track_number"] == 20)
        #expect(items.allSatisfy { $0["added_at"]?.stringValue != nil && $0["playlist"] == .null })
        #expect(items[0]["album"]?["images"]?.arrayValue?.isEmpty == false, "the cover from the saved album")
        let counters = try await library.counters()
        #expect(Self.requests(counters, "GET /v1/me/albums") == 2)
        #expect(Self.requests(counters, "GET /v1/albums/{id}/tracks") == 1, "only the long album's rest")
    }

    @Test func aMissingScopeNamesTheLoginThatAddsIt() async throws {
        let library = try await Library()
        let hint = "add it with: spotify-auth login --scope history (the scopes you have are kept)\n"
        for (arguments, what) in [
            (["--top"], "reading your top tracks and artists needs the user-top-read scope"),
            (["--top-artists"], "reading your top tracks and artists needs the user-top-read scope"),
            (["--followed"], "reading the artists you follow needs the user-follow-read scope"),
        ] {
            let result = try await library.tracks(arguments)
            #expect(result.status == 77, "\(arguments)")
            #expect(result.stderr == "spotify-tracks: \(what); \(hint)", "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test(arguments: [
        (["--top", generated(1)], "--top reads your library; it takes no PLAYLIST"),
        (["--top", "--liked"], "--top and --liked cannot be used together"),
        (["--saved-albums", "--followed"], "--saved-albums and --followed cannot be used together"),
        (["--top", "--search", "x"], "--top and --search cannot be used together"),
        (["--range", "short"], "--range goes with --top or --top-artists"),
        (["--saved-albums", "--range", "short"], "--range goes with --top or --top-artists"),
        (["--top", "--range", "forever"], "forever"),
    ])
    func optionsThatDoNotGoTogetherAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await InProcess.run("spotify-tracks", arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func tablesOnATerminal() async throws {
        let library = try await Library(scope: Self.withHistory)
        let tty = ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "70"]
        let top = try await library.tracks(["--top", "--range", "short"], environment: tty)
        #expect(top.status == 0, "\(top.stderr)")
        let lines = top.stdoutLines
        #expect(lines.first == "Your top tracks of the last 4 weeks")
        #expect(lines[1].hasPrefix(" #  NAME") && lines[1].hasSuffix("DURATION"))
        #expect(lines[2].hasPrefix(" 1  Track 1 "))
        #expect(lines[61].hasPrefix("60  Track 60 "))
        #expect(lines.last?.hasPrefix("60 items, ") == true)
        #expect(lines.allSatisfy { $0.count <= 70 })

        let artists = try await library.tracks(["--followed"], environment: tty)
        let table = artists.stdoutLines
        #expect(table.first?.hasPrefix("  #  NAME") == true && table.first?.hasSuffix("GENRES") == true)
        #expect(table[1].hasPrefix("  1  Artist "))
        #expect(table.last == "75 artists")
        let json = try await library.tracks(["--followed", "--json"], environment: tty)
        #expect(try records(json).count == 75)
    }

    @Test func recordsArePure() {
        let track: JSONValue = [
            "id": "t", "uri": "spotify:track:t", "name": "Song", "duration_ms": 1000, "type": "track",
            "artists": [["id": "a", "name": "A"]], "disc_number": 2, "track_number": 7,
        ]
        let saved: JSONValue = [
            "added_at": "2026-01-01T00:00:00Z",
            "album": [
                "id": "al", "name": "LP", "images": [],
                "tracks": ["items": [track], "offset": 0, "total": 51, "limit": 50],
            ],
        ]
        let (records, rest) = LibraryReads.savedAlbumTracks(saved)
        let tracks = records.map(\.object)
        #expect(tracks.count == 1 && tracks[0]["album"]?["name"] == "LP" && tracks[0]["disc_number"] == 2)
        #expect(tracks[0]["added_at"] == "2026-01-01T00:00:00Z" && tracks[0]["position"] == 0)
        #expect(rest?.id == "al" && rest?.from == 1 && rest?.total == 51)
        #expect(LibraryReads.savedAlbumTracks(["album": .null]).records.isEmpty)
        #expect(LibraryReads.topTrackRecord(track, rank: 51)?.object["position"] == 50)
        #expect(LibraryReads.artistRecord(["id": "x", "genres": .null])?.json["genres"] == [])
        // Cursor paging ends without next, without items, or when the cursor does not move.
        let page: JSONValue = ["items": [["id": "a"]], "next": "https://x", "cursors": ["after": "a"]]
        #expect(LibraryReads.nextCursor(page, after: nil) == "a")
        #expect(LibraryReads.nextCursor(page, after: "a") == nil)
        #expect(LibraryReads.nextCursor(["items": [], "next": "x", "cursors": ["after": "b"]], after: nil) == nil)
        #expect(LibraryReads.nextCursor(["items": [1], "next": .null, "cursors": ["after": "b"]], after: nil) == nil)
        // The queue: what plays now first and marked; null items skipped.
        let queue = LibraryReads.queueRecords(["currently_playing": track, "queue": [.null, track, track]]).map(
            \.object)
        #expect(queue.map { $0["current"] } == [true, false, false])
        #expect(queue.map { $0["position"] } == [0, 1, 2])
        #expect(
            LibraryReads.queueRecords(["currently_playing": .null, "queue": [track]]).first?.object["position"] == 1)
        #expect(LibraryReads.queueRecords(nil).isEmpty)
    }
}
