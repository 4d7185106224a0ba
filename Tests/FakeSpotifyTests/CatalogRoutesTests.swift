import Foundation
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCore

@testable import FakeSpotify

/// fake-spotify's catalogue over HTTP: albums, artists, shows, tracks and episodes in the 2026
/// shapes, with Spotify's paging limits and errors.
@Suite(.tags(.medium)) struct CatalogRoutesTests {
    func fakeWithToken() async throws -> (Fake, String) {
        let fake = try Fake()
        return (fake, try await fake.login().string("access_token"))
    }

    @Test func anAlbumEmbedsItsFirst50TracksAndPagesTheRest() async throws {
        let (fake, token) = try await fakeWithToken()
        defer { fake.stop() }
        let album = try await fake.get("/v1/albums/alb0000000000000000060", token: token).json()
        #expect(album.string("type") == "album" && album.string("name") == "Album of 60")
        #expect(album["total_tracks"] == 60)
        #expect(album["tracks"]?["limit"] == 50 && album["tracks"]?["total"] == 60)
        #expect(album["tracks"]?["items"]?.arrayValue?.count == 50)
        #expect(
            album["tracks"]?["next"]?.stringValue?.hasSuffix("/albums/alb0000000000000000060/tracks?offset=50&limit=50")
                == true)
        for removed in ["available_markets", "popularity", "label", "album_group"] {
            #expect(album[removed] == nil, "\(removed) is gone for Development Mode apps")
        }
        let track = try #require(album["tracks"]?["items"]?.arrayValue?.first)
        #expect(track["album"] == nil, "simplified tracks carry no album")
        #expect(track["disc_number"] == 1 && track["track_number"] == 1)
        let rest = try await fake.get("/v1/albums/alb0000000000000000060/tracks?offset=50&limit=50", token: token)
        #expect(try rest.json()["items"]?.arrayValue?.map { $0.string("name") } == (51...60).map { "Song 0.0.\($0)" })
        let tooMany = try await fake.get("/v1/albums/alb0000000000000000060/tracks?limit=51", token: token)
        #expect(tooMany.status == 400)
    }

    @Test func anArtistsReleasesAreFilteredByGroupNewestFirstTenAPage() async throws {
        let (fake, token) = try await fakeWithToken()
        defer { fake.stop() }
        let artist = try await fake.get("/v1/artists/art0000000000000000020", token: token).json()
        #expect(artist.string("name") == "Artist 0" && artist["followers"] == nil && artist["popularity"] == nil)
        let page = try await fake.get(
            "/v1/artists/art0000000000000000020/albums?include_groups=album,single&limit=10", token: token
        ).json()
        #expect(page["total"] == 12)
        let dates = page["items"]?.arrayValue?.map { $0.string("release_date") } ?? []
        #expect(dates.count == 10 && dates == dates.sorted(by: >), "newest first: \(dates)")
        #expect(
            page["items"]?.arrayValue?.allSatisfy { ["album", "single"].contains($0.string("album_type")) } == true)
        let all = try await fake.get("/v1/artists/art0000000000000000020/albums?limit=10", token: token).json()
        #expect(all["total"] == 20, "no include_groups: every group")
        let eleven = try await fake.get("/v1/artists/art0000000000000000020/albums?limit=11", token: token)
        #expect(eleven.status == 400)
        #expect(try eleven.json()["error"]?["message"] == "Invalid limit")
        let bad = try await fake.get("/v1/artists/art0000000000000000020/albums?include_groups=albums", token: token)
        #expect(bad.status == 400)
    }

    @Test func aShowEmbedsItsEpisodesAndTracksAndEpisodesStandAlone() async throws {
        let (fake, token) = try await fakeWithToken()
        defer { fake.stop() }
        let show = try await fake.get("/v1/shows/shw0000000000000000055", token: token).json()
        #expect(show["episodes"]?["items"]?.arrayValue?.count == 50 && show["episodes"]?["total"] == 55)
        #expect(show["episodes"]?["items"]?.arrayValue?.first?["show"] == nil, "simplified episodes carry no show")
        #expect(show["publisher"] == nil && show["available_markets"] == nil)
        let episodes = try await fake.get("/v1/shows/shw0000000000000000055/episodes?offset=50&limit=50", token: token)
        #expect(try episodes.json()["items"]?.arrayValue?.count == 5)
        let episode = try await fake.get("/v1/episodes/epi0000000550000000003", token: token).json()
        #expect(episode.string("name") == "Episode 52" && episode["show"]?.string("name") == "Show of 55")
        let track = try await fake.get("/v1/tracks/trk0000000000000600005", token: token).json()
        #expect(track.string("name") == "Song 0.0.6" && track["album"]?.string("id") == "alb0000000000000000060")
        let fixture = try await fake.get("/v1/tracks/4iV5W9uYEdYUVa79Axb7Rh", token: token).json()
        #expect(
            fixture.string("name") == "The Funeral" && fixture["track"] == nil, "a fixture track, without entry flags")
    }

    @Test(arguments: [
        "/v1/albums/{id}", "/v1/albums/{id}/tracks", "/v1/artists/{id}", "/v1/artists/{id}/albums", "/v1/shows/{id}",
        "/v1/shows/{id}/episodes", "/v1/tracks/{id}", "/v1/episodes/{id}",
    ])
    func malformedIdsAre400AndUnknownOnes404(route: String) async throws {
        let (fake, token) = try await fakeWithToken()
        defer { fake.stop() }
        let malformed = try await fake.get(route.replacingOccurrences(of: "{id}", with: "abc"), token: token)
        #expect(malformed.status == 400, "\(route)")
        #expect(try malformed.json()["error"]?["message"] == "Invalid base62 id")
        let path = route.replacingOccurrences(of: "{id}", with: "0000000000000000000000")
        let unknown = try await fake.get(path, token: token)
        #expect(unknown.status == 404, "\(path)")
        let anonymous = try await fake.get(path)
        #expect(anonymous.status == 401)
    }
}
