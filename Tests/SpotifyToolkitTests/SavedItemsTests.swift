import Foundation
import Testing
import ToolkitCore

@testable import FakeSpotify
@testable import SpotifyClient

/// `SavedItems`: library writes in ordered batches of 40, against fake-spotify's `/me/library`.
@Suite(.tags(.medium)) struct SavedItemsTests {
    static let libraryScopes = "user-library-modify user-library-read playlist-modify-public playlist-read-private"
    static let save = SpotifyScope.Need([SpotifyScope.modifyLibrary], for: "saving liked songs")
    static let read = SpotifyScope.Need(["user-library-read"], for: "reading your library")

    /// `n` distinct track URIs, none of them among the fake's generated liked songs.
    static func uris(_ count: Int, from start: Int = 0) -> [String] {
        (start..<start + count).map { "spotify:track:" + GeneratedLibrary.objectID(seed: "to-save", index: $0) }
    }

    /// A client of an in-process fake with a token for `scope`; retries do not wait.
    static func client(scope: String = libraryScopes) async throws -> (InProcessFake, SavedItems) {
        let fake = try InProcessFake()
        let minted = try await fake.call("POST", "/_fake/tokens", form: [("scope", scope)])
        let environment = ToolEnvironment(
            fake.environment(["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""]))
        var api = SpotifyWebAPI(
            environment: environment,
            tokens: try TokenProvider(environment: environment, clock: { Date().timeIntervalSince1970 }))
        api.sleep = { _ in }
        return (fake, SavedItems(api: api))
    }

    // MARK: Batches (pure)

    @Test func batchesKeepTheOrderAndHoldAtMost40() {
        #expect(SavedItems.batches([]) == [])
        #expect(SavedItems.batches(["a"]) == [["a"]])
        let forty = Self.uris(40)
        #expect(SavedItems.batches(forty) == [forty])
        let eightyFive = Self.uris(85)
        let batches = SavedItems.batches(eightyFive)
        #expect(batches.map(\.count) == [40, 40, 5])
        #expect(Array(batches.joined()) == eightyFive)
        #expect(SavedItems.batches(["a", "b", "c"], size: 0) == [["a"], ["b"], ["c"]])
    }

    // MARK: Against the fake

    @Test func saving85IsThreeRequestsInOrder() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        let uris = Self.uris(85)
        try await library.save(uris, scope: Self.save)
        #expect(try await fake.counters()["requests"]?["PUT /v1/me/library"] == 3)
        let writes = try #require(try await fake.call("GET", "/_fake/saved-items")["writes"]?.arrayValue)
        #expect(writes.map { $0["method"] } == ["PUT", "PUT", "PUT"])
        #expect(writes.flatMap { $0["uris"]?.arrayValue ?? [] }.compactMap(\.stringValue) == uris)
        #expect(try await library.contains(uris, scope: Self.read) == Array(repeating: true, count: 85))
        #expect(try await fake.counters()["requests"]?["GET /v1/me/library/contains"] == 3)

        // Liked Songs: the last request's URIs first, each request in its order, then the generated 120.
        let page = try await library.api.get("/me/tracks", query: [("limit", "50")])
        let body = try JSONValue.parse(page.body)
        #expect(body["total"] == 205)
        let listed = (body["items"]?.arrayValue ?? []).compactMap { $0["track"]?["uri"]?.stringValue }
        #expect(listed == Array(uris[80..<85] + uris[40..<80] + uris[0..<5]))
    }

    @Test func removingGeneratedLikedSongsLeavesTheRestInOrder() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        let generated = (0..<120).map {
            "spotify:track:" + GeneratedLibrary.objectID(seed: "liked", index: $0)
        }
        #expect(try await library.contains(Array(generated.prefix(3)), scope: Self.read) == [true, true, true])
        try await library.remove(
            [generated[1], generated[5], "spotify:track:" + GeneratedLibrary.objectID(seed: "x", index: 1)],
            scope: Self.save)
        #expect(
            try await library.contains([generated[0], generated[1], generated[5]], scope: Self.read)
                == [true, false, false])
        let page = try JSONValue.parse(try await library.api.get("/me/tracks", query: [("limit", "10")]).body)
        #expect(page["total"] == 118)
        let listed = (page["items"]?.arrayValue ?? []).compactMap { $0["track"]?["uri"]?.stringValue }
        #expect(listed == [0, 2, 3, 4, 6, 7, 8, 9, 10, 11].map { generated[$0] })
        // Saving one again puts it first, as a new save.
        try await library.save([generated[5]], scope: Self.save)
        let again = try JSONValue.parse(try await library.api.get("/me/tracks", query: [("limit", "2")]).body)
        #expect(again["total"] == 119)
        #expect(again["items"]?.arrayValue?[0]["track"]?["uri"]?.stringValue == generated[5])
        #expect(again["items"]?.arrayValue?[1]["track"]?["uri"]?.stringValue == generated[0])
    }

    @Test func aPlaylistURIUnfollowsAndFollowsAgain() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        func myPlaylistIDs() async throws -> [String] {
            let page = try JSONValue.parse(try await library.api.get("/me/playlists", query: [("limit", "50")]).body)
            return (page["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        let before = try await myPlaylistIDs()
        let id = try #require(before.first)
        let uri = "spotify:playlist:\(id)"
        let unfollow = SpotifyScope.Need([SpotifyScope.modifyPublicPlaylists], for: "removing playlists")
        try await library.remove([uri], scope: unfollow)
        #expect(try await myPlaylistIDs() == Array(before.dropFirst()))
        #expect(try await library.contains([uri], scope: Self.read) == [false])
        #expect(try await fake.call("GET", "/_fake/saved-items")["unfollowed_playlists"] == [.string(id)])
        try await library.save([uri], scope: unfollow)
        #expect(try await myPlaylistIDs() == before)
        #expect(try await library.contains([uri], scope: Self.read) == [true])
    }

    @Test func aMissingScopeIsExit77NamingTheLogin() async throws {
        let (fake, library) = try await Self.client(scope: "user-library-read")
        defer { fake.stop() }
        let error = await #expect(throws: ToolError.self) {
            try await library.save(Self.uris(3), scope: Self.save)
        }
        #expect(error?.exitCode == .noPermission)
        #expect(
            error?.message
                == "saving liked songs needs the user-library-modify scope, which the token in SPOTIFY_ACCESS_TOKEN lacks; set a token that has it, or unset SPOTIFY_ACCESS_TOKEN to use your login (spotify-auth login --scope edit adds it)"
        )
        // A playlist URI needs playlist-modify-public even with user-library-modify.
        let (other, withLibrary) = try await Self.client(scope: "user-library-modify")
        defer { other.stop() }
        let playlist = SpotifyScope.Need([SpotifyScope.modifyPublicPlaylists], for: "removing playlists")
        let refused = await #expect(throws: ToolError.self) {
            try await withLibrary.remove(["spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"], scope: playlist)
        }
        #expect(refused?.message.hasSuffix("(spotify-auth login --scope edit adds it)") == true)
    }

    @Test func aFailedLaterBatchSaysHowManyWentThrough() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        let uris = Self.uris(40) + ["spotify:track:not-an-id"]
        let error = await #expect(throws: ToolError.self) { try await library.save(uris, scope: Self.save) }
        #expect(
            error?.message.hasSuffix("(the first 40 of 41 were saved; the next 1 were not)") == true,
            "\(error?.message ?? "")")
        #expect(try await fake.call("GET", "/_fake/saved-items")["added"]?.arrayValue?.count == 40)
    }

    /// A batch whose answers keep getting lost may have been carried out; it is never said
    /// not to have been.
    @Test func aBatchWhoseAnswerIsLostIsUnknownNotNotSaved() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        _ = try await fake.call(
            "POST", "/_fake/faults",
            form: [("kind", "lost_answer"), ("every", "1"), ("path_prefix", "/v1/me/library"), ("count", "100")])
        let error = await #expect(throws: ToolError.self) { try await library.save(Self.uris(40), scope: Self.save) }
        #expect(
            error?.message.hasSuffix("(the first 0 of 40 were saved; whether the next 40 were is unknown)") == true,
            "\(error?.message ?? "")")
    }

    @Test func aLostAnswerIsSentAgainBecauseTheWriteIsIdempotent() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        try await fake.call(
            "POST", "/_fake/fail", form: [("path", "/v1/me/library"), ("status", "503"), ("count", "1")])
        try await library.save(Self.uris(2), scope: Self.save)
        #expect(try await fake.counters()["requests"]?["PUT /v1/me/library"] == 2)
        #expect(try await fake.call("GET", "/_fake/saved-items")["added"]?.arrayValue?.count == 2)
    }

    // MARK: The fake's limits

    @Test func theFakeRefusesMoreThan40AndBadURIs() async throws {
        let (fake, library) = try await Self.client()
        defer { fake.stop() }
        func status(_ method: String, _ uris: [String]) async throws -> (Int, String) {
            let result = try await library.api.send(
                method: method, path: method == "GET" ? "/me/library/contains" : "/me/library",
                query: [("uris", uris.joined(separator: ","))], body: nil, passing: [400])
            return (result.status, SpotifyErrorBody(result).message)
        }
        for method in ["PUT", "DELETE", "GET"] {
            #expect(try await status(method, Self.uris(40)).0 != 400)
            let tooMany = try await status(method, Self.uris(41))
            #expect(tooMany.0 == 400)
            #expect(tooMany.1.contains("Too many ids"))
            #expect(try await status(method, ["spotify:track:short"]).0 == 400)
            #expect(try await status(method, ["spotify:local:a:b:c:1"]).0 == 400)
            #expect(try await status(method, [""]).0 == 400)
        }
        #expect(try await fake.call("GET", "/_fake/saved-items")["writes"]?.arrayValue?.count == 2)
    }
}
