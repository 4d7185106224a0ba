import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

/// fake-spotify's reads of what Spotify knows about the user: `/me/top/{type}`,
/// `/me/albums` and `/albums/{id}/tracks`, `/me/following`, `/me/player/queue`: Spotify's shapes,
/// paging limits and scopes.
@Suite(.tags(.medium)) struct MeRoutesTests {
    static let everything =
        "user-top-read user-follow-read user-library-read user-read-playback-state user-read-currently-playing"

    func token(_ fake: Fake, scope: String = MeRoutesTests.everything) async throws -> String {
        try await fake.post("/_fake/tokens", [("scope", scope)]).json().string("access_token")
    }

    @Test func topTracksAndArtistsPageByOffsetPerTimeRange() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let first = try await fake.get("/v1/me/top/tracks?time_range=short_term&limit=50", token: token).json()
        #expect(first.objectValue?.keys.sorted() == ["href", "items", "limit", "next", "offset", "previous", "total"])
        #expect(first["total"] == 60 && first["items"]?.arrayValue?.count == 50)
        #expect(first["next"]?.stringValue?.contains("offset=50") == true)
        #expect(first["next"]?.stringValue?.contains("time_range=short_term") == true)
        #expect(
            first["items"]?.arrayValue?[0]["type"] == "track" && first["items"]?.arrayValue?[0]["album"]?["id"] != nil)
        let second = try await fake.get("/v1/me/top/tracks?time_range=short_term&limit=50&offset=50", token: token)
            .json()
        #expect(second["items"]?.arrayValue?.count == 10 && second["next"] == .null)
        // medium_term is the default; each range ranks differently.
        let medium = try await fake.get("/v1/me/top/tracks", token: token).json()
        #expect(medium["total"] == 80 && medium["limit"] == 20)
        #expect(medium["items"]?.arrayValue?[0]["id"] != first["items"]?.arrayValue?[0]["id"])
        let artists = try await fake.get("/v1/me/top/artists?time_range=long_term&limit=50", token: token).json()
        #expect(artists["total"] == 97)
        let artist = try #require(artists["items"]?.arrayValue?[0].objectValue)
        #expect(artist["type"] == "artist" && artist["genres"]?.arrayValue != nil && artist["images"] != nil)
        #expect(artist["followers"] == nil && artist["popularity"] == nil, "gone in Development Mode")

        for bad in ["tracks?limit=51", "tracks?limit=0", "tracks?time_range=forever", "albums"] {
            #expect(try await fake.get("/v1/me/top/\(bad)", token: token).status == 400, "\(bad)")
        }
        let noScope = try await self.token(fake, scope: "user-library-read")
        let refused = try await fake.get("/v1/me/top/tracks", token: noScope)
        #expect(refused.status == 403)
        #expect(try refused.json()["error"]?["message"] == "Insufficient client scope")
    }

    @Test func savedAlbumsEmbedTheirFirstFiftyTracksAndTheRestPages() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let page = try await fake.get("/v1/me/albums?limit=50", token: token).json()
        #expect(page["total"] == 55 && page["items"]?.arrayValue?.count == 50)
        let saved = try #require(page["items"]?.arrayValue?[1])
        #expect(saved["added_at"]?.stringValue != nil)
        let album = try #require(saved["album"])
        #expect(album["total_tracks"] == 60)
        let tracks = try #require(album["tracks"])
        #expect(tracks["total"] == 60 && tracks["items"]?.arrayValue?.count == 50 && tracks["limit"] == 50)
        #expect(tracks["items"]?.arrayValue?[0]["album"] == nil, "simplified tracks carry no album")
        let next = try #require(tracks["next"]?.stringValue)
        let id = try #require(album["id"]?.stringValue)
        #expect(next.contains("/albums/\(id)/tracks?offset=50"))
        let rest = try await fake.get("/v1/albums/\(id)/tracks?offset=50&limit=50", token: token).json()
        #expect(rest["items"]?.arrayValue?.count == 10 && rest["total"] == 60)
        #expect(rest["items"]?.arrayValue?[9]["name"] == "Album 1 Song 60")
        #expect(try await fake.get("/v1/albums/\(id)/tracks?limit=51", token: token).status == 400)
        #expect(try await fake.get("/v1/albums/0000000000000000000000/tracks", token: token).status == 404)
        #expect(try await fake.get("/v1/me/albums?limit=51", token: token).status == 400)
        let noScope = try await self.token(fake, scope: "user-top-read")
        #expect(try await fake.get("/v1/me/albums", token: noScope).status == 403)
    }

    @Test func followedArtistsPageByCursor() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let first = try await fake.get("/v1/me/following?type=artist&limit=50", token: token).json()
        let page = try #require(first["artists"])
        #expect(page.objectValue?.keys.sorted() == ["cursors", "href", "items", "limit", "next", "total"])
        #expect(page["total"] == 75 && page["items"]?.arrayValue?.count == 50)
        let after = try #require(page["cursors"]?["after"]?.stringValue)
        #expect(after == page["items"]?.arrayValue?[49]["id"]?.stringValue)
        #expect(page["next"]?.stringValue?.contains("after=\(after)") == true)
        let second = try await fake.get("/v1/me/following?type=artist&limit=50&after=\(after)", token: token).json()
        let rest = try #require(second["artists"])
        #expect(rest["items"]?.arrayValue?.count == 25 && rest["next"] == .null && rest["cursors"]?["after"] == .null)
        let ids = ((page["items"]?.arrayValue ?? []) + (rest["items"]?.arrayValue ?? [])).compactMap {
            $0["id"]?.stringValue
        }
        #expect(ids == ids.sorted() && Set(ids).count == 75)
        #expect(try await fake.get("/v1/me/following?type=artist", token: token).json()["artists"]?["limit"] == 20)
        for bad in ["type=user", "limit=5", "type=artist&limit=51", "type=artist&after=nobody"] {
            #expect(try await fake.get("/v1/me/following?\(bad)", token: token).status == 400, "\(bad)")
        }
        let noScope = try await self.token(fake, scope: "user-top-read")
        #expect(try await fake.get("/v1/me/following?type=artist", token: noScope).status == 403)
    }

    @Test func theQueueFollowsThePlayersSession() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake, scope: "user-read-playback-state user-modify-playback-state")
        let idle = try await fake.get("/v1/me/player/queue", token: token).json()
        #expect(idle == ["currently_playing": .null, "queue": []])
        _ = try await fake.post("/_fake/playback", [("index", "3"), ("playing", "false")])
        let queue = try await fake.get("/v1/me/player/queue", token: token).json()
        #expect(queue["currently_playing"]?["id"]?.stringValue == PlaybackClock.catalog[3].id)
        #expect(
            queue["queue"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == PlaybackClock.catalog[4...].map(\.id))
        // What is added to the queue plays next.
        let added = "spotify:track:" + PlaybackClock.catalog[0].id
        let enqueue = try await HTTPTestClient.fetch(
            fake.url("/v1/me/player/queue?uri=\(added)"), method: "POST", headers: ["Authorization": "Bearer \(token)"])
        #expect(enqueue.status == 204)
        let after = try await fake.get("/v1/me/player/queue", token: token).json()
        #expect(after["queue"]?.arrayValue?[0]["id"]?.stringValue == PlaybackClock.catalog[0].id)
        #expect(after["queue"]?.arrayValue?.count == 9)
        _ = try await fake.post("/_fake/playback/next")
        let skipped = try await fake.get("/v1/me/player/queue", token: token).json()
        #expect(skipped["currently_playing"]?["id"]?.stringValue == PlaybackClock.catalog[0].id)
        let noScope = try await self.token(fake, scope: "user-top-read")
        #expect(try await fake.get("/v1/me/player/queue", token: noScope).status == 403)
        let either = try await self.token(fake, scope: "user-read-currently-playing")
        #expect(try await fake.get("/v1/me/player/queue", token: either).status == 200)
    }
}
