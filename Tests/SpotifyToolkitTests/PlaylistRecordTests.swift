import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The team's fixtures (the copies fake-spotify serves), decoded into records: every playlist
/// object and every playlist or saved-track entry, in the 2026 and the legacy shape.
enum FixtureFiles {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/FakeSpotify/Fixtures").standardized

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue.parse(try Data(contentsOf: folder.appendingPathComponent(name)))
    }
}

@Suite(.tags(.small)) struct PlaylistRecordTests {
    static let kinds: [PlaylistEntry.Kind] = [.track, .local, .episode, .unavailable, .track, .track]

    @Test func everyLibraryPlaylistBecomesARecord() throws {
        let playlists = try ["me-playlists-page1.json", "me-playlists-page2.json"].flatMap {
            try FixtureFiles.json($0)["items"]?.arrayValue ?? []
        }
        let records = playlists.compactMap(PlaylistRecord.make(from:))
        #expect(records.count == 4)
        #expect(
            records.map { $0["name"]?.stringValue } == [
                "Morning", "Focus — deep work (collab)", "New Playlist", "Today's Top Hits",
            ])
        #expect(records.map { $0["items_total"]?.intValue } == [6, 143, 0, 50])
        #expect(
            records[0].keys == [
                "type", "id", "uri", "name", "description", "owner", "public", "collaborative", "snapshot_id", "images",
                "items_total", "external_url",
            ])
        #expect(
            records[0]["images"]?.arrayValue?.compactMap { $0["width"]?.intValue } == [640, 300, 60], "largest first")
        #expect(records[1]["owner"] == ["id": "smedjan", "display_name": nil])
        #expect(records[1]["collaborative"] == true)
        #expect(records[1]["images"]?.arrayValue?.first?["height"] == .null, "sizes may be null")
        #expect(records[2]["images"] == [], "images: null becomes []")
        #expect(records[3]["owner"]?["id"] == "spotify")
        #expect(records[0]["external_url"] == "https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n")
    }

    @Test func fullPlaylistsInBothShapesGiveTheSameRecord() throws {
        let current = try #require(PlaylistRecord.make(from: try FixtureFiles.json("playlist.json")))
        let legacy = try #require(PlaylistRecord.make(from: try FixtureFiles.json("playlist-legacy.json")))
        #expect(current["items_total"] == 6)
        #expect(current == legacy)
    }

    @Test func aPlaylistYouDoNotOwnHasNoItemsTotal() throws {
        let record = try #require(PlaylistRecord.make(from: try FixtureFiles.json("playlist-not-owned.json")))
        #expect(record["items_total"] == .null)
        #expect(record["name"] == "Road Trip Indie")
        #expect(PlaylistRecord.make(from: "not an object") == nil)
    }

    @Test(arguments: [
        ["playlist-items-page1.json", "playlist-items-page2.json"],
        ["playlist-tracks-page1.json", "playlist-tracks-page2.json"],
    ])
    func pagesOfEntriesInBothShapes(files: [String]) throws {
        let entries = try files.flatMap { try FixtureFiles.json($0)["items"]?.arrayValue ?? [] }
        #expect(entries.map(PlaylistEntry.kind(of:)) == Self.kinds)
        let playlist = SpotifyReference(kind: .playlist, id: "3cEYpjA9oz9GiPac4AsH4n")
        let records = entries.enumerated().map {
            PlaylistEntry.record($0.element, position: $0.offset, playlist: playlist)?.object
        }
        #expect(records[3] == nil, "a null item has no record")
        let track = try #require(records[0])
        #expect(
            track.keys == [
                "type", "id", "uri", "name", "duration_ms", "artists", "album", "explicit", "external_ids",
                "is_playable", "is_local", "added_at", "added_by", "position", "playlist",
            ])
        #expect(
            track["album"]?.objectValue?.keys == ["id", "name", "release_date", "release_date_precision", "images"])
        #expect(track["album"]?["release_date"] == "2006-03-21" && track["album"]?["release_date_precision"] == "day")
        #expect(track["external_ids"]?["isrc"] == "USSUB0634105")
        #expect(track["added_by"]?.objectValue?.keys == ["id"])
        // The restricted track says so (the fixture was fetched with a market); the rest do not say.
        let restricted = try #require(records[4])
        #expect(restricted["is_playable"] == false && restricted["explicit"] == true)
        #expect(records[5]?["added_by"] == .null, "very old entries have no added_by")
        #expect(track["artists"] == [["id": "0OdUWJ0sBjDrqHygGUXeCF", "name": "Band of Horses"]])
        #expect(
            track["playlist"]
                == [
                    "id": "3cEYpjA9oz9GiPac4AsH4n", "uri": "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n", "name": .null,
                    "snapshot_id": .null,
                ])
        let local = try #require(records[1])
        #expect(local["id"] == .null)
        #expect(local["is_local"] == true)
        #expect(local["uri"]?.stringValue?.hasPrefix("spotify:local:") == true)
        let episode = try #require(records[2])
        #expect(episode["type"] == "episode")
        #expect(episode["show"]?["name"] == "The Studio Hour", "2026: show; legacy: the show in album")
        #expect(episode["artists"] == [])
        if files[0] == "playlist-items-page1.json" {  // a legacy track-shaped episode has its show as album
            #expect(episode["release_date"]?.stringValue != nil && episode["explicit"]?.boolValue != nil, "\(episode)")
        }
        #expect(episode["external_ids"] == nil)
        #expect(records[5]?["added_at"] == .null, "very old entries have no added_at")
        #expect(records[5]?["position"] == 5)
        #expect(records.compactMap { $0?["duration_ms"]?.intValue } == [322506, 127000, 3_056_274, 195800, 258826])
    }

    @Test(arguments: [("playlist.json", "items"), ("playlist-legacy.json", "tracks")])
    func embeddedPagesToo(file: String, key: String) throws {
        let entries = try #require(try FixtureFiles.json(file)[key]?["items"]?.arrayValue)
        #expect(entries.map(PlaylistEntry.kind(of:)) == Self.kinds)
    }

    @Test func savedTracksKeepTheTrackKey() throws {
        let entries = try ["me-tracks.json", "me-tracks-last-page.json"].flatMap {
            try FixtureFiles.json($0)["items"]?.arrayValue ?? []
        }
        let records = entries.enumerated().compactMap {
            PlaylistEntry.record($0.element, position: $0.offset, playlist: nil)?.object
        }
        #expect(records.count == 4)
        #expect(
            records.map { $0["name"]?.stringValue } == [
                "Wake Me Up – Radio Edit", "Neckbrace", "The Funeral", "Say It Ain't So",
            ])
        #expect(records.allSatisfy { $0["playlist"] == .null })
        #expect(records[0]["added_at"] == "2026-03-01T09:14:22Z")
    }

    @Test func theFieldsFiltersNameEverythingTheRecordsRead() {
        for key in [
            "added_at", "added_by(id)", "is_local", "item(", "track(", "duration_ms", "artists(id,name)",
            "album(id,name,release_date,release_date_precision,images)", "show(id,name,images)", "total", "explicit",
            "is_playable", "external_ids(isrc)", "release_date,release_date_precision",
        ] {
            #expect(PlaylistEntry.itemFields.contains(key), "\(key)")
        }
        for key in [
            "id", "uri", "name", "description", "owner(id,display_name)", "public", "collaborative", "snapshot_id",
            "images", "items.total", "tracks.total", "external_urls",
        ] {
            #expect(
                PlaylistRecord.metadataFields.split(separator: ",").contains { $0.hasPrefix(key.prefix { $0 != "(" }) },
                "\(key)")
        }
    }
}
