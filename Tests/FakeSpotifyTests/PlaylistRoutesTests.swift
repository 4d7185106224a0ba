import Foundation
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCore

@testable import FakeSpotify

@Suite(.tags(.small)) struct FieldsFilterTests {
    let entry: JSONValue = [
        "added_at": "2026-01-01T00:00:00Z", "added_by": ["id": "me"], "is_local": false,
        "item": [
            "id": "a", "name": "A", "artists": [["id": "x", "name": "X", "uri": "u"]],
            "album": ["id": "b", "name": "B", "images": []],
        ],
    ]

    @Test func nestedSelectionsKeepTheAnswersOrder() throws {
        let filter = try FieldsFilter.parse("total,items(item(name,id,artists(name)),added_at)")
        let page: JSONValue = ["href": "h", "items": [entry, entry], "limit": 50, "total": 2]
        let expected: JSONValue = [
            "items": [
                ["added_at": "2026-01-01T00:00:00Z", "item": ["id": "a", "name": "A", "artists": [["name": "X"]]]]
            ], "total": 2,
        ]
        let result = filter.apply(page)
        #expect(result["items"]?.arrayValue?.count == 2)
        #expect(result["items"]?.arrayValue?.first == expected["items"]?.arrayValue?.first)
        #expect(result.objectValue?.keys == ["items", "total"])
        #expect(result["items"]?.arrayValue?.first?["item"]?.objectValue?.keys == ["id", "name", "artists"])
    }

    @Test func dottedPathsAndMerging() throws {
        let playlist: JSONValue = [
            "name": "P", "items": ["href": "h", "total": 6, "items": []], "owner": ["id": "o", "display_name": "O"],
        ]
        #expect(
            try FieldsFilter.parse("items.total,owner(id),owner.display_name").apply(playlist) == [
                "items": ["total": 6], "owner": ["id": "o", "display_name": "O"],
            ])
        #expect(
            try FieldsFilter.parse("name,owner").apply(playlist) == [
                "name": "P", "owner": ["id": "o", "display_name": "O"],
            ])
        #expect(
            try FieldsFilter.parse("tracks.total,name").apply(playlist) == ["name": "P"],
            "absent fields are just absent")
    }

    @Test func exclusions() throws {
        #expect(
            try FieldsFilter.parse("!added_by,!item").apply(entry) == [
                "added_at": "2026-01-01T00:00:00Z", "is_local": false,
            ])
    }

    @Test(arguments: ["", "items(", "items)", "a,,b", "!a.b", "a(b))", "a b"])
    func syntaxErrors(text: String) {
        #expect(throws: FieldsFilter.SyntaxError.self) { try FieldsFilter.parse(text) }
        // Parsed once a text: an error is never remembered as a filter.
        for _ in 0..<2 { #expect(throws: FieldsFilter.SyntaxError.self) { try FieldsFilter.parsedOnce(text) } }
    }

    /// A text parsed once gives the same filter every time, past the bound on what is remembered too.
    @Test func aFilterParsedOnceIsTheFilterParsed() throws {
        for number in 0..<200 {
            let text = "total,items(added_at,item(id,name,n\(number)))"
            #expect(try FieldsFilter.parsedOnce(text) == FieldsFilter.parse(text))
            #expect(try FieldsFilter.parsedOnce(text) == FieldsFilter.parse(text))
        }
    }
}

@Suite(.tags(.medium)) struct PlaylistRoutesTests {
    func token(_ fake: Fake) async throws -> String { try await fake.login().string("access_token") }

    @Test func libraryPagesByOffsetWithNextOnTheRemovedEndpoint() async throws {
        let fake = try Fake { $0.library.extraPlaylists = 60 }
        defer { fake.stop() }
        let token = try await token(fake)
        let first = try await fake.get("/v1/me/playlists?offset=0&limit=50", token: token).json()
        #expect(first["total"] == 66)
        #expect(first["items"]?.arrayValue?.count == 50)
        #expect(first.string("next").contains("/v1/users/31kx7ufdeznvfbgxsw2ocqc2ql4e/playlists?offset=50&limit=50"))
        let last = try await fake.get("/v1/me/playlists?offset=50&limit=50", token: token).json()
        #expect(last["items"]?.arrayValue?.count == 16)
        #expect(last["next"] == .null)
        #expect(
            try await fake.get(URL(string: first.string("next"))!.path, token: token).status == 404,
            "the next link's endpoint is gone")
        for limit in ["0", "51", "x"] {
            let reply = try await fake.get("/v1/me/playlists?limit=\(limit)", token: token)
            #expect(reply.status == 400)
            #expect(try reply.json()["error"]?["message"] == "Invalid limit")
        }
    }

    /// make bench-library measures whole-library runs on this shape, so its figures hold only
    /// while the shape does: 150 playlists, 20,531 items, mostly small, a few of thousands.
    @Test func theRealShapedLibrary() async throws {
        let sizes = RealLibrary.sizes
        #expect(sizes.count == 150)
        #expect(sizes.reduce(0, +) == 20_531)
        #expect(sizes.filter { $0 <= 60 }.count == 125)
        #expect(sizes.filter { (100...500).contains($0) }.count == 22)
        #expect(sizes.filter { (2_000...5_000).contains($0) }.count == 3)
        #expect(sizes.map { ($0 + 49) / 50 }.reduce(0, +) == 484, "pages of 50")
        #expect(Array(sizes.prefix(6)) == [3733, 5, 0, 45, 10, 6], "seeded: the same sizes every run")
        #expect(Set(RealLibrary.ids).count == 150)

        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let control = try await fake.post("/_fake/library", [("library_shape", "real")])
        #expect(try control.json()["library_shape"] == "real")
        #expect(try await fake.post("/_fake/library", [("library_shape", "huge")]).status == 400)
        var listed: [JSONValue] = []
        for offset in stride(from: 0, to: 150, by: 50) {
            let page = try await fake.get("/v1/me/playlists?offset=\(offset)&limit=50", token: token).json()
            #expect(page["total"] == 150)
            listed += page["items"]?.arrayValue ?? []
        }
        #expect(listed.map { $0.string("id") } == RealLibrary.ids)
        #expect(listed.map { $0["items"]?["total"]?.intValue ?? -1 } == sizes)
        #expect(listed.allSatisfy { $0["owner"]?["id"]?.stringValue == GeneratedLibrary.userID })
        #expect(Set(listed.map { $0.string("snapshot_id") }).count == 150)
        // A sample: every 15th playlist and the biggest; each answers 200 with the listed total.
        let biggest = sizes.indices.max { sizes[$0] < sizes[$1] }!
        for index in Array(stride(from: 0, to: 150, by: 15)) + [biggest] {
            let id = listed[index].string("id")
            let reply = try await fake.get("/v1/playlists/\(id)/items?offset=0&limit=50", token: token)
            #expect(reply.status == 200)
            let page = try reply.json()
            #expect(page["total"]?.intValue == sizes[index])
            #expect(page["items"]?.arrayValue?.count == min(50, sizes[index]))
            let metadata = try await fake.get("/v1/playlists/\(id)?fields=snapshot_id", token: token).json()
            #expect(metadata.string("snapshot_id") == listed[index].string("snapshot_id"))
        }
    }

    @Test func generatedPlaylistsAreDeterministicAndAnySize() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let path = "/v1/playlists/gen0000000000000010000/items?offset=9950&limit=50&additional_types=track,episode"
        let once = try await fake.get(path, token: token)
        let twice = try await fake.get(path, token: token)
        #expect(once.data == twice.data)
        let page = try once.json()
        #expect(page["total"] == 10_000)
        let ids = page["items"]?.arrayValue?.compactMap { $0["item"]?["id"]?.stringValue } ?? []
        #expect(ids.count == 50 && Set(ids).count == 50)
        #expect(ids.allSatisfy(SpotifyReference.isValidID))
        #expect(page["items"]?.arrayValue?.last?["item"]?["name"] == "Track 10000")
        let beyond = try await fake.get(
            "/v1/playlists/gen0000000000000010000/items?offset=10000&limit=50", token: token
        ).json()
        #expect(beyond["items"] == [])
    }

    @Test func theMixedPlaylistHasLocalFilesEpisodesAndNullItems() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let page = try await fake.get(
            "/v1/playlists/mix0000000000000000020/items?limit=20", token: try await token(fake)
        ).json()
        let items = page["items"]?.arrayValue ?? []
        #expect(
            items.map(PlaylistEntry.kind(of:))
                == (0..<20).map { i -> PlaylistEntry.Kind in
                    switch i % 10 {
                    case 3: .local
                    case 6: .episode
                    case 8: .unavailable
                    default: .track
                    }
                })
    }

    @Test func metadataWithTheFieldsFilter() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let fields = URLForm.percentEncode(PlaylistRecord.metadataFields)
        let owned = try await fake.get("/v1/playlists/gen0000000000000000150?fields=\(fields)", token: token).json()
        #expect(owned["items"] == ["total": 150])
        #expect(owned["followers"] == nil)
        let full = try await fake.get("/v1/playlists/gen0000000000000000150", token: token).json()
        #expect(full["items"]?["limit"] == 100)
        #expect(full["items"]?["items"]?.arrayValue?.count == 100)
        let notOwned = try await fake.get("/v1/playlists/5MlKAGFZNoN2d0Up8sQc0N?fields=\(fields)", token: token).json()
        #expect(notOwned["items"] == nil && notOwned["tracks"] == nil)
        #expect(notOwned.string("name") == "Road Trip Indie")
        #expect(try await fake.get("/v1/playlists/37i9dQZF1DXcBWIGoYBM5M", token: token).status == 404)
        #expect(try await fake.get("/v1/playlists/gen0000000000000000150?fields=items(", token: token).status == 400)
    }

    @Test func notOwnedItemsAndTheOldTracksEndpointAreForbidden() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await token(fake)
        let notOwned = try await fake.get("/v1/playlists/5MlKAGFZNoN2d0Up8sQc0N/items", token: token)
        #expect(notOwned.status == 403)
        #expect(try notOwned.json() == ["error": ["status": 403, "message": "Forbidden"]])
        #expect(try await fake.get("/v1/playlists/3cEYpjA9oz9GiPac4AsH4n/tracks", token: token).status == 403)
        #expect(try await fake.get("/v1/playlists/37i9dQZF1DXcBWIGoYBM5M/items", token: token).status == 404)
    }

    @Test func theLegacyShape() async throws {
        let fake = try Fake { $0.library.legacy = true }
        defer { fake.stop() }
        let token = try await token(fake)
        let page = try await fake.get("/v1/playlists/gen0000000000000000003/items", token: token).json()
        #expect(page["items"]?.arrayValue?.allSatisfy { $0["track"]?.objectValue != nil && $0["item"] == nil } == true)
        let old = try await fake.get("/v1/playlists/3cEYpjA9oz9GiPac4AsH4n/tracks?limit=100", token: token)
        #expect(old.status == 200)
        #expect(try old.json()["items"]?.arrayValue?.count == 6)
        let library = try await fake.get("/v1/me/playlists", token: token).json()
        #expect(
            library["items"]?.arrayValue?.allSatisfy { $0["items"] == nil && $0["tracks"]?["total"] != nil } == true)
        let playlist = try await fake.get("/v1/playlists/gen0000000000000000003", token: token).json()
        #expect(playlist["tracks"]?["total"] == 3 && playlist["items"] == nil)
    }

    @Test func savedTracks() async throws {
        let fake = try Fake { $0.library.savedTracks = 7 }
        defer { fake.stop() }
        let page = try await fake.get("/v1/me/tracks?limit=50", token: try await token(fake)).json()
        #expect(page["total"] == 7)
        #expect(
            page["items"]?.arrayValue?.allSatisfy {
                $0["track"]?["type"] == "track" && $0["added_at"]?.stringValue != nil
            } == true)
    }
}

@Suite(.tags(.medium)) struct FaultTests {
    @Test func scheduledFaultsHitTheRequestsNamed() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let added = try await fake.post(
            "/_fake/faults",
            [("kind", "rate_limit"), ("at", "2+4"), ("retry_after", "3"), ("path_prefix", "/v1/me/tracks")])
        #expect(added.status == 200, "\(added.text)")
        var statuses: [Int] = []
        for _ in 0..<5 {
            let reply = try await fake.get("/v1/me/tracks", token: token)
            statuses.append(reply.status)
            if reply.status == 429 { #expect(reply.header("Retry-After") == "3") }
        }
        #expect(statuses == [200, 429, 200, 429, 200])
        #expect(try await fake.get("/v1/me", token: token).status == 200, "other paths are left alone")
        #expect(try await fake.counters()["faults_fired"] == 2)
        let listed = try await fake.get("/_fake/faults").json()
        #expect(listed["faults"]?.arrayValue?.first?["fired"] == 2)
        #expect(try await fake.post("/_fake/clear-faults").json() == ["removed": 1])
    }

    @Test func everyNthAndQuotaAndServerErrors() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        _ = try await fake.post("/_fake/faults", [("kind", "quota"), ("every", "3"), ("count", "1")])
        _ = try await fake.post("/_fake/faults", [("kind", "server_error"), ("at", "1"), ("status", "502")])
        let first = try await fake.get("/v1/me", token: token)
        #expect(first.status == 502)
        #expect(try first.json()["error"]?["message"] == "Backend respond with 500")
        #expect(try await fake.get("/v1/me", token: token).status == 200)
        let quota = try await fake.get("/v1/me", token: token)
        #expect(quota.status == 429)
        #expect(try quota.json()["error"]?["reason"] == "QUOTA_EXCEEDED")
        for _ in 0..<4 { #expect(try await fake.get("/v1/me", token: token).status == 200, "count=1: only once") }
    }

    @Test func resetTruncatedAndGarbageBodies() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        _ = try await fake.post("/_fake/faults", [("kind", "reset"), ("at", "1")])
        _ = try await fake.post("/_fake/faults", [("kind", "truncate"), ("at", "2")])
        _ = try await fake.post("/_fake/faults", [("kind", "garbage"), ("at", "3")])
        await #expect(throws: (any Error).self, "reset") { _ = try await fake.get("/v1/me", token: token) }
        await #expect(throws: (any Error).self, "truncated: fewer bytes than Content-Length") {
            _ = try await fake.get("/v1/me", token: token)
        }
        let garbage = try await fake.get("/v1/me", token: token)
        #expect(garbage.status == 200)
        #expect(throws: (any Error).self) { try garbage.json() }
        #expect(try await fake.get("/v1/me", token: token).json().string("id") == "31kx7ufdeznvfbgxsw2ocqc2ql4e")
    }

    @Test func rateFaultsAreReproducible() throws {
        func hits() throws -> [Bool] {
            var rule = try FaultRule(fields: [("kind", "reset"), ("rate", "0.3"), ("seed", "42")])
            return (0..<200).map { _ in rule.hits(path: "/v1/me") }
        }
        let first = try hits()
        #expect(first == (try hits()))
        let count = first.filter { $0 }.count
        #expect(count > 30 && count < 90, "about 30% of 200: \(count)")
    }

    @Test(arguments: [
        [("kind", "boom"), ("rate", "1")], [("kind", "reset")], [("kind", "reset"), ("rate", "2")],
        [("kind", "reset"), ("rate", "0.5"), ("every", "2")], [("kind", "reset"), ("at", "0")],
        [("kind", "reset"), ("every", "1"), ("colour", "red")],
    ])
    func badRulesAreRefused(fields: [(String, String)]) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let reply = try await fake.post("/_fake/faults", fields)
        #expect(reply.status == 400)
        #expect(try reply.json()["error"]?.stringValue?.isEmpty == false)
    }

    @Test func latencyAndTheMostInFlight() async throws {
        let fake = try Fake { $0.library.latencyMs = 300 }
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        _ = try await fake.post("/_fake/reset-counters")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 { group.addTask { try await fake.get("/v1/me", token: token).status } }
            for try await status in group { #expect(status == 200) }
        }
        let seen = try await fake.counters()["max_in_flight"]?.intValue ?? 0
        #expect(seen >= 2 && seen <= 5, "five requests held 300 ms each overlap: \(seen)")
        #expect(try await fake.post("/_fake/library", [("latency_ms", "-1")]).status == 400)
    }
}
