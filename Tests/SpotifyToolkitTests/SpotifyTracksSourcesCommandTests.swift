import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-tracks reading albums, artists, shows, tracks and episodes, alone and mixed with
/// playlists, against an in-process fake-spotify (its catalogue: see CatalogHandlers.swift).
@Suite(.tags(.medium)) struct SpotifyTracksSourcesCommandTests {
    static let album60 = "alb0000000000000000060"
    static let artist20 = "art0000000000000000020"
    static let show55 = "shw0000000000000000055"
    /// Track 6 of the 60-track album; episode 4 of the 55-episode show (newest first).
    static let track = "trk0000000000000600005"
    static let episode = "epi0000000550000000003"

    func requests(_ library: Library) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (route, count) in try await library.counters()["requests"]?.objectValue ?? [:] {
            counts[route] = count.intValue
        }
        return counts
    }

    @Test func anAlbumOf60TracksReadsInTwoRequestsDiscByDisc() async throws {
        let library = try await Library()
        let result = try await library.tracks(["spotify:album:\(Self.album60)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let items = try records(result)
        #expect(items.count == 60)
        #expect(items.map { $0["position"]?.intValue } == Array(0..<60))
        #expect(items.map { $0["name"]?.stringValue } == (1...60).map { "Song 0.0.\($0)" })
        // Two discs of 30, track numbers starting again on the second.
        #expect(
            items.map { $0["disc_number"]?.intValue } == Array(repeating: 1, count: 30) + Array(repeating: 2, count: 30)
        )
        #expect(items.map { $0["track_number"]?.intValue } == Array(1...30) + Array(1...30))
        let first = try #require(items.first?.objectValue)
        #expect(
            first.keys == [
                "type", "id", "uri", "name", "duration_ms", "artists", "album", "explicit", "external_ids",
                "is_playable", "is_local", "disc_number", "track_number", "added_at", "position", "playlist", "source",
            ])
        // The simplified tracks lack `album`: it is the album's.
        #expect(items.allSatisfy { $0["album"]?["id"]?.stringValue == Self.album60 })
        #expect(first["album"]?["name"] == "Album of 60")
        #expect(first["album"]?["images"]?.arrayValue?.count == 3)
        #expect(first["playlist"] == .null)
        #expect(first["added_at"] == .null)
        #expect(
            first["source"]
                == [
                    "type": "album", "id": .string(Self.album60), "uri": .string("spotify:album:\(Self.album60)"),
                    "name": "Album of 60",
                ])
        #expect(try await requests(library) == ["GET /v1/albums/{id}": 1, "GET /v1/albums/{id}/tracks": 1])
    }

    @Test func anAlbumWithRawPrintsSpotifysSimplifiedTracksUntouched() async throws {
        let library = try await Library()
        let result = try await library.tracks(["--raw", "https://open.spotify.com/album/\(Self.album60)?si=x"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 60)
        #expect(items.allSatisfy { $0["album"] == nil && $0["type"] == "track" && $0["track_number"] != nil })
    }

    @Test func anArtistReadsEachReleaseNewestFirstWithinTheBudget() async throws {
        let library = try await Library()
        let result = try await library.tracks([
            "--include-groups", "album,single,appears_on,compilation", "spotify:artist:\(Self.artist20)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        // 20 releases: albums of 8 to 14 tracks, one of 60, singles of 2 or 3, compilations of
        // 15, appearances of 10; each read in full, in release order (0 is the newest).
        let releases = (0..<20).map { FakeReleases.tracks($0) }
        #expect(items.count == releases.reduce(0, +))
        var albumOrder: [String] = []
        for item in items {
            let name = item["album"]?["name"]?.stringValue ?? "?"
            if albumOrder.last != name { albumOrder.append(name) }
        }
        #expect(albumOrder == (0..<20).map { "Release \($0) of Artist 0" })
        #expect(items.map { $0["position"]?.intValue } == Array(0..<items.count), "positions count on across releases")
        #expect(
            items.allSatisfy {
                $0["source"]
                    == [
                        "type": "artist", "id": .string(Self.artist20),
                        "uri": .string("spotify:artist:\(Self.artist20)"), "name": "Artist 0",
                    ]
            })
        // The single (release 1) carries songs of the album after it: kept, as the man page says.
        let names = items.compactMap { $0["name"]?.stringValue }
        #expect(names.filter { $0 == "Song 0.2.1" }.count == 2)
        // ceil(20/10) listing pages + 20 albums + 1 page beyond the first (release 2's 60 tracks).
        let counts = try await requests(library)
        #expect(counts["GET /v1/artists/{id}/albums"] == 2)
        #expect(counts["GET /v1/albums/{id}"] == 20)
        #expect(counts["GET /v1/albums/{id}/tracks"] == 1)
        #expect(counts.values.reduce(0, +) <= 2 + 20 + 1)
        #expect((try await library.counters()["max_in_flight"]?.intValue ?? 99) <= 8)
    }

    @Test func anArtistReadsAlbumsAndSinglesByDefault() async throws {
        let library = try await Library()
        let result = try await library.tracks(["spotify:artist:\(Self.artist20)"])
        #expect(result.status == 0, "\(result.stderr)")
        let albums = Set(try records(result).compactMap { $0["album"]?["name"]?.stringValue })
        let expected = (0..<20).filter { [0, 1, 2].contains($0 % 5) }.map { "Release \($0) of Artist 0" }
        #expect(albums == Set(expected))
        let counts = try await requests(library)
        #expect(counts["GET /v1/artists/{id}/albums"] == 2, "12 releases: two pages of at most 10")
        #expect(counts["GET /v1/albums/{id}"] == 12)
    }

    @Test(arguments: ["", "albums", "album,,single", "album,SINGLE"])
    func unknownIncludeGroupsAreAUsageError(groups: String) async throws {
        let library = try await Library()
        let result = try await library.tracks(["--include-groups", groups, "spotify:artist:\(Self.artist20)"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--include-groups takes album, single, appears_on and compilation"))
        #expect(try await requests(library).isEmpty, "nothing asked")
    }

    @Test func aShowPrintsItsEpisodesWithTheShow() async throws {
        let library = try await Library()
        let result = try await library.tracks(
            [], stdin: #"{"type":"show","uri":"spotify:show:\#(Self.show55)"}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 55)
        #expect(items.map { $0["name"]?.stringValue } == (1...55).reversed().map { "Episode \($0)" })
        #expect(items.allSatisfy { $0["type"] == "episode" && $0["show"]?["name"] == "Show of 55" })
        #expect(items.allSatisfy { $0["artists"] == [] && $0["album"] == .null && $0["disc_number"] == nil })
        #expect(items.first?["source"]?["name"] == "Show of 55")
        #expect(try await requests(library) == ["GET /v1/shows/{id}": 1, "GET /v1/shows/{id}/episodes": 1])
        let tracksOnly = try await library.tracks(["--tracks-only", "spotify:show:\(Self.show55)"])
        #expect(tracksOnly.status == 0)
        #expect(tracksOnly.stdout == "")
    }

    @Test func aTrackAndAnEpisodePrintThemselves() async throws {
        let library = try await Library()
        let result = try await library.tracks([
            "spotify:track:\(Self.track)", "https://open.spotify.com/intl-de/episode/\(Self.episode)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 2)
        #expect(items[0]["name"] == "Song 0.0.6")
        #expect(items[0]["album"]?["name"] == "Album of 60")
        #expect(items[0]["track_number"] == 6)
        #expect(items[0]["source"]?["type"] == "track")
        #expect(items[0]["source"]?["name"] == "Song 0.0.6")
        #expect(items[1]["type"] == "episode")
        #expect(items[1]["show"]?["name"] == "Show of 55")
        #expect(items[1]["position"] == 0)
        #expect(try await requests(library) == ["GET /v1/tracks/{id}": 1, "GET /v1/episodes/{id}": 1])
    }

    @Test func sourcesOfEveryKindMixInOneRunInTheirOrder() async throws {
        let library = try await Library()
        // Slow answers, so the run's overlap shows in max_in_flight.
        _ = try await library.fake.call("POST", "/_fake/library", form: [("latency_ms", "20")])
        let result = try await library.tracks(
            [
                generated(120), "spotify:album:\(Self.album60)", "-", "spotify:artist:\(Self.artist20)",
                "spotify:track:\(Self.track)",
            ], stdin: "spotify:show:\(Self.show55)\n\(GeneratedLibrary.fixturePlaylistID)\n")
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        var order: [String] = []
        for item in items {
            let source = "\(item["source"]?["type"]?.stringValue ?? "?") \(item["source"]?["id"]?.stringValue ?? "?")"
            if order.last != source { order.append(source) }
        }
        #expect(
            order == [
                "playlist \(generated(120))", "album \(Self.album60)", "show \(Self.show55)",
                "playlist \(GeneratedLibrary.fixturePlaylistID)", "artist \(Self.artist20)", "track \(Self.track)",
            ])
        let counters = try await library.counters()
        let inFlight = counters["max_in_flight"]?.intValue ?? 0
        #expect(inFlight > 1 && inFlight <= 8, "one limit for the whole run: \(inFlight)")
        // Each source read once, no more than alone.
        let counts = try await requests(library)
        #expect(counts["GET /v1/albums/{id}"] == 1 + 12)
        #expect(counts["GET /v1/shows/{id}"] == 1)
        #expect(counts["GET /v1/tracks/{id}"] == 1)
    }

    @Test func aSourceSpotifyDoesNotKnowIsReportedAndTheOthersPrint() async throws {
        let library = try await Library()
        let result = try await library.tracks([
            "spotify:album:alb0000000000000099999", "spotify:track:\(Self.track)",
            "spotify:artist:0000000000000000000000", "spotify:show:shw0000000000000000000",
        ])
        #expect(result.status == 1, "404: not found")
        #expect(try records(result).map { $0["id"]?.stringValue } == [Self.track])
        #expect(
            result.stderr
                == """
                spotify-tracks: album alb0000000000000099999: not found (404: Resource not found); check the id, URI or URL
                spotify-tracks: artist 0000000000000000000000: not found (404: Resource not found); check the id, URI or URL

                """)
    }

    @Test(arguments: [
        ("spotify:user:someone", "not a playlist, album, artist, show, track or episode id, URI or URL"),
        ("https://open.spotify.com/audiobook/3cEYpjA9oz9GiPac4AsH4n", "not a playlist, album, artist, show"),
        ("spotify:album:nope", "'spotify:album:nope': an album URI with a malformed id"),
        ("https://open.spotify.com/artist/x", "an artist URL with a malformed id"),
    ])
    func whatIsNoSourceIsAUsageError(argument: String, message: String) async throws {
        let library = try await Library()
        let result = try await library.tracks([argument])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func standardInputIsReadOnce() async throws {
        let library = try await Library()
        let twice = try await library.tracks(["-", "-"], stdin: "\(generated(3))\n")
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("'-' (standard input) is named more than once"))
        let alone = try await library.tracks(["-"], stdin: "\(generated(3))\n")
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdoutLines.count == 3, "not a playlist called '-'")
    }

    @Test func offlineAnAlbumIsNeverCached() async throws {
        let library = try await Library()
        let result = try await library.tracks(
            ["--offline", "spotify:album:\(Self.album60)"], environment: ["SPOTIFY_TOOLKIT_CACHE_SIZE": "1M"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("--offline prints cached playlists only"), "\(result.stderr)")
        #expect(try await requests(library).isEmpty)
    }

    // MARK: Playlist records say which playlist

    @Test func playlistRecordsCarryThePlaylistsNameAndSource() async throws {
        let library = try await Library()
        let result = try await library.tracks([generated(120)])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 120)
        let snapshot = try #require(items.first?["playlist"]?["snapshot_id"]?.stringValue)
        let playlist: JSONValue = [
            "id": .string(generated(120)), "uri": .string("spotify:playlist:\(generated(120))"),
            "name": "Generated 120", "snapshot_id": .string(snapshot),
        ]
        #expect(items.allSatisfy { $0["playlist"] == playlist }, "\(items.first ?? .null)")
        #expect(items.allSatisfy { $0["source"]?["type"] == "playlist" && $0["source"]?["name"] == "Generated 120" })
        // A piped record's name stands until the playlist's object tells the current one.
        let piped = try await library.tracks(
            [],
            stdin: #"{"type":"playlist","id":"\#(generated(3))","name":"Old name","items_total":3,"snapshot_id":"x"}"#
                + "\n")
        #expect(try records(piped).allSatisfy { $0["playlist"]?["name"] == "Generated 3" })
        // And the version its read began at, not the piped record's stale one.
        #expect(
            try records(piped).allSatisfy {
                $0["playlist"]?["snapshot_id"]?.stringValue.map { !$0.isEmpty && $0 != "x" } == true
            })
    }

    @Test func aCachedCopyPrintsTheNamesAFetchPrints() async throws {
        let library = try await Library()
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "16M"]
        let fetched = try await library.tracks([generated(250)], environment: cache)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let cached = try await library.tracks([generated(250)], environment: cache)
        #expect(cached.stdout == fetched.stdout)
        #expect(try await requests(library) == ["GET /v1/playlists/{id}": 1], "served from the cache")
        #expect(try records(cached).first?["playlist"]?["name"] == "Generated 250")
    }

    @Test func aVersionOneCacheEntryIsFetchedAgainQuietly() async throws {
        let library = try await Library()
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "16M"]
        _ = try await library.tracks([generated(5)], environment: cache)
        let directory = library.fake.environment()["XDG_CACHE_HOME"]! + "/spotify-toolkit/playlists"
        let path = directory + "/" + generated(5) + ".jsonl"
        // As an earlier release wrote it: version 1 (records without the playlist's name), sound.
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        let lines = written.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let header = String(decoding: lines[0], as: UTF8.self).replacingOccurrences(
            of: #""version":\#(CacheEntryFormat.version)"#, with: #""version":1"#)
        #expect(header.contains(#""version":1"#), "\(header)")
        var old = Data((header + "\n").utf8)
        for line in lines[1..<(lines.count - 2)] { old.append(contentsOf: line + [UInt8(ascii: "\n")]) }
        let checksum = old.withUnsafeBytes { CacheEntryFormat.fnv1a64($0) }
        old.append(contentsOf: Data(#"{"end":5,"fnv1a64":"\#(CacheEntryFormat.hex(checksum))"}"#.utf8 + [10]))
        try old.write(to: URL(fileURLWithPath: path))
        #expect(throws: CacheEntryFormat.Outdated.self, "sound, and of version 1") {
            try CacheEntryFormat.validate(old, playlistID: generated(5))
        }
        let again = try await library.tracks([generated(5)], environment: cache)
        #expect(again.status == 0)
        #expect(again.stderr == "", "an upgrade is not damage: \(again.stderr)")
        #expect(try records(again).count == 5)
    }

    // MARK: '-' elsewhere

    @Test func getReadsStandardInputForADash() async throws {
        let library = try await Library()
        let result = try await library.run(
            "spotify-playlists", ["get", generated(3), "-"], stdin: "spotify:playlist:\(generated(4))\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try records(result).map { $0["id"]?.stringValue } == [generated(3), generated(4)])
        let write = try await library.run("spotify-playlists", ["add", "-"], stdin: "spotify:track:\(Self.track)\n")
        #expect(write.status == 64)
        #expect(write.stderr.contains("'-': name the PLAYLIST to change itself"), "\(write.stderr)")
    }

    @Test func queueReadsStandardInputForADash() async throws {
        let library = try await Library(scope: "user-read-playback-state user-modify-playback-state")
        _ = try await library.fake.call("POST", "/_fake/playback", form: [("playing", "true")])
        let result = try await library.run(
            "spotify-nowplaying", ["queue", "-"],
            stdin: "spotify:track:\(Self.track)\nspotify:episode:\(Self.episode)\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await requests(library)["POST /v1/me/player/queue"] == 2)
        let mixed = try await library.run("spotify-nowplaying", ["queue", "-", "spotify:track:\(Self.track)"])
        #expect(mixed.status == 64)
    }

    // MARK: routine-link

    @Test func aRoutineLinksASingleTrackWithItsDuration() async throws {
        let library = try await Library()
        _ = try await library.run("routine-link", ["add", "breathe", "--duration", "5m"])
        let linked = try await library.run(
            "routine-link", ["link", "breathe", "https://open.spotify.com/track/\(Self.track)"])
        #expect(linked.status == 0, "\(linked.stderr)")
        let playlist = try #require(try records(linked).first?["playlist"])
        #expect(playlist["uri"]?.stringValue == "spotify:track:\(Self.track)")
        #expect(playlist["name"] == "Song 0.0.6")
        #expect(playlist["image_url"]?.stringValue?.contains(Self.album60) == true, "the album's cover")
        let duration = try #require(playlist["duration_ms"]?.intValue)
        #expect(duration > 0)
        let shown = try await library.run(
            "routine-link", ["show", "breathe"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(
            shown.stdout.contains("'Song 0.0.6' (spotify:track:\(Self.track)), \(formatClock(milliseconds: duration))"),
            "\(shown.stdout)")
        let album = try await library.run("routine-link", ["link", "breathe", "spotify:album:\(Self.album60)"])
        #expect(album.status == 0, "\(album.stderr)")
        #expect(try records(album).first?["playlist"]?["duration_ms"] == .null, "60 tracks: more than the object holds")
    }

    @Test func aGetDurationRecordKeepsThePlaylistsDuration() async throws {
        let library = try await Library()
        _ = try await library.run("routine-link", ["add", "run"])
        let got = try await library.run("spotify-playlists", ["get", "--duration", generated(7)])
        #expect(got.status == 0, "\(got.stderr)")
        let total = try #require(try records(got).first?["duration_ms"]?.intValue)
        let linked = try await library.run("routine-link", ["link", "run", "-"], stdin: got.stdout)
        #expect(linked.status == 0, "\(linked.stderr)")
        let playlist = try #require(try records(linked).first?["playlist"])
        #expect(playlist["duration_ms"]?.intValue == total)
        #expect(playlist["name"] == "Generated 7")
        let listed = try await library.run("routine-link", ["show", "run", "--json"])
        #expect(try records(listed).first?["playlist"]?["duration_ms"]?.intValue == total)
    }
}

/// How many tracks fake-spotify gives release k of a generated artist.
enum FakeReleases {
    static func tracks(_ k: Int) -> Int {
        switch k % 5 {
        case 1: 2 + k % 2
        case 3: 15
        case 4: 10
        default: k == 2 ? 60 : 8 + k % 7
        }
    }
}
