import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

/// fake-spotify's player plays what it is asked to play: a playlist
/// of the library plays its own tracks, from `offset`, and `POST /_fake/playback/speed` speeds a
/// session up without starting it again.
@Suite(.tags(.medium)) struct PlayerContextRoutesTests {
    func play(_ fake: Fake, _ body: String) async throws -> Reply {
        let token =
            try await fake.post("/_fake/tokens", [("scope", "user-modify-playback-state")]).json()
            .string("access_token")
        return try await HTTPTestClient.fetch(
            fake.url("/v1/me/player/play"), method: "PUT", body: Data(body.utf8),
            headers: ["Authorization": "Bearer \(token)"])
    }

    @Test func aPlaylistOfTheLibraryPlaysItsOwnTracksFromItsOffset() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let id = GeneratedLibrary.generatedID(count: 7)
        let reply = try await play(fake, #"{"context_uri":"spotify:playlist:\#(id)"}"#)
        #expect(reply.status == 204, "\(reply.text)")
        let items = try await fake.get("/v1/playlists/\(id)/items?limit=50", token: try await readToken(fake)).json()
        let first = try #require(items["items"]?.arrayValue?.first?["item"])
        let state = try await fake.get("/_fake/playback").json()
        #expect(state["track"]?["id"] == first["id"], "\(state)")
        #expect(state["track"]?["duration_ms"] == first["duration_ms"])
        #expect(state["is_playing"] == true)
        // What plays reads as the playlist's own track object, not the player's catalog.
        let now = try await fake.get("/v1/me/player/currently-playing", token: try await readToken(fake)).json()
        #expect(now["item"]?["name"] == first["name"])
        #expect(now["item"]?["artists"] == first["artists"])
        #expect(now["context"]?["uri"] == .string("spotify:playlist:\(id)"))

        // The fixture playlist (Morning): its playable tracks only (no local file, episode or null).
        _ = try await play(fake, #"{"context_uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","offset":{"position":1}}"#)
        let morning = GeneratedLibrary.fixtureEntries(legacy: false).compactMap {
            PlaylistEntryItem.of($0).flatMap { PlaybackClock.Track(item: $0) }
        }
        #expect(morning.count >= 2)
        let second = try await fake.get("/_fake/playback").json()
        #expect(second["track"]?["id"] == .string(morning[1].id), "offset position 1: \(second)")
        #expect(second["index"] == 1)

        // An album the fake holds no items for still plays something (the catalog).
        let album = try await play(fake, #"{"context_uri":"spotify:album:4aawyAB9vmqN3uQ7FjRGTy"}"#)
        #expect(album.status == 204)
        #expect(try await fake.get("/_fake/playback").json()["track"]?["name"] == "Sunrise Drive")
    }

    func readToken(_ fake: Fake) async throws -> String {
        try await fake.post(
            "/_fake/tokens", [("scope", "user-read-playback-state user-read-currently-playing playlist-read-private")]
        ).json().string("access_token")
    }

    @Test func speedKeepsTheSessionAndItsPlace() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let began = Date()
        _ = try await fake.post("/_fake/playback", [("durations", "600,600"), ("position_ms", "120000")])
        let faster = try await fake.post("/_fake/playback/speed", [("speed", "1000")]).json()
        #expect(faster["speed"] == 1000)
        #expect(faster["index"] == 0, "the same session: \(faster)")
        // Virtual time does not jump when the speed changes: the first song's place moved on by at
        // most the real time this test waited at speed 1 (on a loaded machine, minutes between
        // the two requests), never by that time multiplied by the new speed.
        let waitedMs = Date().timeIntervalSince(began) * 1000
        let position = try #require(faster["position_ms"]?.intValue)
        #expect(position >= 120_000 && Double(position) <= 120_000 + waitedMs + 50, "\(faster), \(waitedMs) ms")
        // ...nor does the session's virtual clock: what passed at speed 1 (at most the real time
        // this test waited), not the session's real time multiplied by the new speed.
        let virtual = Double(faster["virtual_ms"]?.intValue ?? .max)
        #expect(virtual <= waitedMs + 50, "\(faster), \(waitedMs) ms")
        let refused = try await fake.post("/_fake/playback/speed", [("speed", "0")])
        #expect(refused.status == 400)
    }
}
