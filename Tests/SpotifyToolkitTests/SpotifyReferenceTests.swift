import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct SpotifyReferenceTests {
    static let id = "3cEYpjA9oz9GiPac4AsH4n"

    @Test(arguments: [
        "3cEYpjA9oz9GiPac4AsH4n",
        "  3cEYpjA9oz9GiPac4AsH4n\n",
        "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n",
        "spotify:user:someone:playlist:3cEYpjA9oz9GiPac4AsH4n",
        "https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n",
        "https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n?si=abc123&pt=x",
        "https://open.spotify.com/intl-de/playlist/3cEYpjA9oz9GiPac4AsH4n?si=1",
        "http://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n#top",
        "open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n",
        "https://open.spotify.com/embed/playlist/3cEYpjA9oz9GiPac4AsH4n",
        "https://open.spotify.com/user/someone/playlist/3cEYpjA9oz9GiPac4AsH4n",
        #"{"type":"playlist","id":"3cEYpjA9oz9GiPac4AsH4n","name":"Run"}"#,
        #"{"uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"}"#,
        #"{"id":"3cEYpjA9oz9GiPac4AsH4n"}"#,
    ])
    func acceptsEveryForm(text: String) throws {
        let reference = try SpotifyReference.parse(text, expecting: .playlist)
        #expect(reference == SpotifyReference(kind: .playlist, id: Self.id))
        #expect(reference.uri == "spotify:playlist:\(Self.id)")
        #expect(reference.webURL == "https://open.spotify.com/playlist/\(Self.id)")
    }

    @Test(arguments: [
        ("", "empty"),
        ("morning", "not a playlist id"),
        ("3cEYpjA9oz9GiPac4AsH4", "not a playlist id"),  // 21 characters
        ("3cEYpjA9oz9GiPac4AsH4n!", "not a playlist id"),
        ("spotify:track:3cEYpjA9oz9GiPac4AsH4n", "a track URI, not a playlist"),
        ("spotify:playlist:abc", "malformed id"),
        ("spotify:playlist", "not a Spotify playlist URI"),
        ("https://open.spotify.com/album/3cEYpjA9oz9GiPac4AsH4n", "an album URL, not a playlist"),
        ("https://open.spotify.com/", "does not name a playlist"),
        ("https://example.com/playlist/3cEYpjA9oz9GiPac4AsH4n", "not a playlist id"),
        (#"{"type":"track","id":"3cEYpjA9oz9GiPac4AsH4n"}"#, "a track record, not a playlist"),
        (#"{"name":"Run"}"#, "without a playlist uri or id"),
        ("{not json", "not a JSON object"),
    ])
    func rejectsWithAReason(text: String, reason: String) {
        #expect {
            try SpotifyReference.parse(text, expecting: .playlist)
        } throws: { error in
            (error as? SpotifyReference.ParseError)?.description.contains(reason) == true
        }
    }

    @Test func otherKindsParseToo() throws {
        #expect(
            try SpotifyReference.parse("spotify:track:4iV5W9uYEdYUVa79Axb7Rh", expecting: .track).id
                == "4iV5W9uYEdYUVa79Axb7Rh")
        #expect(
            try SpotifyReference.parse("https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy", expecting: .album).uri
                == "spotify:album:4aawyAB9vmqN3uQ7FjRGTy")
    }

    @Test func badArgumentIsAUsageErrorQuotingIt() {
        #expect(throws: ToolError.usage("'nope': not a playlist id, spotify:playlist: URI or open.spotify.com URL")) {
            try SpotifyReference.argument("nope", expecting: .playlist)
        }
    }
}

@Suite(.tags(.small)) struct TrackRecordTests {

    @Test func trackKeepsSpotifyNamesInOrder() throws {
        let item: JSONValue = [
            "album": [
                "id": "A", "name": "Album",
                "images": [
                    ["url": "small", "height": 64, "width": 64], ["url": "big", "height": 640, "width": 640],
                    ["url": "nosize", "height": nil, "width": nil],
                ],
            ],
            "artists": [["id": "B", "name": "Band", "href": "x"]],
            "duration_ms": 180_000, "id": "T", "is_local": false, "name": "Song", "type": "track",
            "uri": "spotify:track:T",
        ]
        let record = try #require(TrackRecord(spotify: item)?.object)
        #expect(
            JSONValue.object(record).serialized()
                == #"{"type":"track","id":"T","uri":"spotify:track:T","name":"Song","duration_ms":180000,"artists":[{"id":"B","name":"Band"}],"album":{"id":"A","name":"Album","release_date":null,"release_date_precision":null,"images":[{"url":"big","height":640,"width":640},{"url":"small","height":64,"width":64},{"url":"nosize","height":null,"width":null}]},"explicit":null,"external_ids":{"isrc":null},"is_local":false}"#
        )
    }

    @Test func episodeHasShowAndEmptyArtists() throws {
        let item: JSONValue = [
            "type": "episode", "id": "E", "uri": "spotify:episode:E", "name": "Ep", "duration_ms": 1000,
            "show": ["id": "S", "name": "Show", "images": nil],
        ]
        let record = try #require(TrackRecord(spotify: item)?.object)
        #expect(record["type"] == "episode")
        #expect(record["artists"] == .array([]))
        #expect(record["album"] == .null)
        #expect(record["show"] == ["id": "S", "name": "Show", "images": .array([])])
    }

    @Test func lenientOnMissingAndBadFields() throws {
        let record = try #require(TrackRecord(spotify: ["name": "x", "duration_ms": -5, "images": nil])?.object)
        #expect(record["id"] == .null)
        #expect(record["duration_ms"] == .null)
        #expect(record["album"] == .null)
        #expect(record["artists"] == .array([]))
        #expect(TrackRecord(spotify: .null) == nil)
        #expect(TrackRecord(spotify: "text") == nil)
    }
}

@Suite(.tags(.small)) struct SpotifyErrorBodyTests {
    @Test func serverTextCannotReachTheTerminalRaw() {
        let json = HTTPResult(
            status: 403, headers: [:],
            body: Data(#"{"error":{"status":403,"message":"bad\u001b[2Jthing\nnext","reason":"X\u0007"}}"#.utf8))
        let body = SpotifyErrorBody(json)
        #expect(body.message == "bad [2Jthing next")
        #expect(body.reason == "X")
        let plain = HTTPResult(status: 403, headers: [:], body: Data("  Check settings\r\n\u{1b}]0;title\u{07}  ".utf8))
        #expect(SpotifyErrorBody(plain).message == "Check settings   ]0;title")
    }
}
