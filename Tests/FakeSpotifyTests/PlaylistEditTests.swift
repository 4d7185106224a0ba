import Foundation
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCore

@testable import FakeSpotify

/// `POST /_fake/edit-playlist` and the `fields=snapshot_id` filter that caches check it with.
@Suite(.tags(.medium)) struct PlaylistEditTests {
    static let id = "gen0000000000000000120"

    @Test func anEditChangesTheSnapshotAndOneItemEverywhere() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let snapshot = try await fake.get("/v1/playlists/\(Self.id)?fields=snapshot_id", token: token)
        #expect(snapshot.status == 200)
        let before = try snapshot.json()
        #expect(before.objectValue?.keys == ["snapshot_id"])
        let page = "/v1/playlists/\(Self.id)/items?offset=50&limit=50&fields=items(item(name,duration_ms))"
        let itemsBefore = try await fake.get(page, token: token).json()

        let edit = try await fake.post("/_fake/edit-playlist", [("id", Self.id), ("position", "52")])
        #expect(edit.status == 200, "\(edit.text)")
        let answer = try edit.json()
        #expect(answer["edits"] == 1)
        #expect(answer["position"] == 52)
        let after = try await fake.get("/v1/playlists/\(Self.id)?fields=snapshot_id", token: token).json()
        #expect(after["snapshot_id"] != before["snapshot_id"])
        #expect(after["snapshot_id"] == answer["snapshot_id"])

        let itemsAfter = try await fake.get(page, token: token).json()
        let old = try #require(itemsBefore["items"]?.arrayValue)
        let new = try #require(itemsAfter["items"]?.arrayValue)
        #expect(new.count == 50)
        #expect(new[2]["item"]?["name"]?.stringValue == "Track 53 (edit 1)")
        #expect(new[2]["item"]?["duration_ms"]?.intValue == old[2]["item"]?["duration_ms"]?.intValue.map { $0 + 1000 })
        for index in new.indices where index != 2 { #expect(new[index] == old[index]) }

        // The list of playlists and the full playlist show the new snapshot too.
        let full = try await fake.get("/v1/playlists/\(Self.id)", token: token).json()
        #expect(full["snapshot_id"] == answer["snapshot_id"])
        let second = try await fake.post("/_fake/edit-playlist", [("id", Self.id)])
        let embedded = try await fake.get(
            "/v1/playlists/\(Self.id)?fields=snapshot_id,items.items(item(name))", token: token
        ).json()
        #expect(embedded["snapshot_id"] == (try second.json())["snapshot_id"])
        #expect(embedded["items"]?["items"]?.arrayValue?.first?["item"]?["name"]?.stringValue == "Track 1 (edit 1)")
    }

    @Test func badEdits() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        for form in [
            [("id", "nope")], [("id", "5MlKAGFZNoN2d0Up8sQc0N")], [("id", Self.id), ("position", "120")],
            [("id", Self.id), ("position", "x")],
        ] {
            let reply = try await fake.post("/_fake/edit-playlist", form)
            #expect(reply.status == 400, "\(form): \(reply.text)")
        }
    }
}

/// `POST /_fake/other-client`: another user's client changes a playlist, one write each, as a test's
/// "someone else" (the history's diff and restore are tested against it).
@Suite(.tags(.medium)) struct OtherClientEditTests {
    static let id = "gen0000000000000000060"

    static func entries(_ fake: Fake, token: String) async throws -> (snapshot: JSONValue?, entries: [JSONValue]) {
        let object = try await fake.get("/v1/playlists/\(id)", token: token).json()
        let first = object["items"]?["items"]?.arrayValue ?? []
        let rest = try await fake.get("/v1/playlists/\(id)/items?offset=50&limit=50", token: token).json()
        return (object["snapshot_id"], Array(first.prefix(50)) + (rest["items"]?.arrayValue ?? []))
    }

    @Test func removesMovesAndAddsEachAsANewVersionKeepingTheOthersDates() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let (before, original) = try await Self.entries(fake, token: token)
        #expect(original.count == 60)

        let removed = try await fake.post("/_fake/other-client", [("id", Self.id), ("remove_positions", "0,10,59")])
        #expect(removed.status == 200, "\(removed.text)")
        #expect(try removed.json()["total"] == 57)
        let (afterRemove, remaining) = try await Self.entries(fake, token: token)
        let removedSnapshot = try removed.json()["snapshot_id"]
        #expect(afterRemove != before && afterRemove == removedSnapshot)
        let kept = original.enumerated().filter { ![0, 10, 59].contains($0.offset) }.map(\.element)
        #expect(remaining == kept, "entries that stay keep added_at and added_by")

        let moved = try await fake.post(
            "/_fake/other-client", [("id", Self.id), ("range_start", "0"), ("insert_before", "5")])
        #expect(moved.status == 200, "\(moved.text)")
        let (afterMove, order) = try await Self.entries(fake, token: token)
        #expect(afterMove != afterRemove)
        #expect(order[4] == kept[0] && order[0] == kept[1])

        let uri = "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"
        let added = try await fake.post("/_fake/other-client", [("id", Self.id), ("add", uri), ("position", "2")])
        #expect(added.status == 200, "\(added.text)")
        let (afterAdd, withNew) = try await Self.entries(fake, token: token)
        #expect(afterAdd != afterMove && withNew.count == 58)
        #expect(withNew[2]["item"]?["uri"]?.stringValue == uri)
        #expect(withNew[2]["added_by"]?["id"] == "another-user")
    }

    @Test func badChangesAreRefused() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        for form in [
            [("id", "nope"), ("remove_positions", "1")], [("id", Self.id)],
            [("id", Self.id), ("remove_positions", "60")], [("id", Self.id), ("remove_positions", "x")],
            [("id", Self.id), ("range_start", "0")], [("id", Self.id), ("range_start", "59"), ("insert_before", "70")],
            [("id", Self.id), ("add", "nope")], [("id", Self.id), ("remove_positions", "1"), ("add", "x")],
        ] {
            let reply = try await fake.post("/_fake/other-client", form)
            #expect(reply.status == 400, "\(form): \(reply.text)")
        }
    }
}
