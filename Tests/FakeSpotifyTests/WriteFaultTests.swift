import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

/// Playlist writes as Spotify carries them out: what entries keep across moves, removes and
/// replaces, and where range moves and positioned adds put items. Every request closes its
/// connection, so a client library cannot quietly send a request again on a reused connection.
@Suite struct WriteFaultTests {
    static let id = "gen0000000000000000010"
    static let itemsPath = "/v1/playlists/\(id)/items"
    static let scope = "playlist-read-private playlist-modify-private playlist-modify-public"

    /// A well-formed track URI fake-spotify knows as a made-up track.
    static func uri(_ index: Int) -> String {
        "spotify:track:" + GeneratedLibrary.objectID(seed: "write faults", index: index)
    }

    @Test func entriesKeepAddedAtAndAddedByAcrossMovesAndRemovesButNotAReplace() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let added = try await fake.send(
            "POST", Self.itemsPath, ["uris": [.string(Self.uri(1)), .string(Self.uri(2))], "position": 0], token: token)
        #expect(added.status == 201)
        let start = try await fake.entries(Self.id, token: token)
        #expect(start.count == 12)
        for entry in start.prefix(2) {
            let addedAt = try #require(entry["added_at"]?.stringValue)
            #expect(!addedAt.contains("."), "whole seconds, as Spotify writes them: \(addedAt)")
            let seconds = try #require(parseISOTimestamp(addedAt))
            #expect(abs(seconds - Date().timeIntervalSince1970) < 30, "added now")
        }
        for entry in start {
            let user = entry["added_by"]
            #expect(user?["id"] == .string(GeneratedLibrary.userID))
            #expect(user?["type"] == "user")
            #expect(user?["uri"] == .string("spotify:user:\(GeneratedLibrary.userID)"))
            #expect(user?["href"]?.stringValue != nil && user?["external_urls"]?["spotify"]?.stringValue != nil)
        }
        #expect(start[2]["added_at"] == "2025-01-01T00:00:00Z", "the library's own date")

        let moved = try await fake.send(
            "PUT", Self.itemsPath, ["range_start": 0, "range_length": 2, "insert_before": 7], token: token)
        #expect(moved.status == 200)
        let removed = try await fake.send(
            "DELETE", Self.itemsPath, ["items": [["uri": start[3]["item"]?["uri"] ?? .null]]], token: token)
        #expect(removed.status == 200)
        let after = try await fake.entries(Self.id, token: token)
        #expect(after.count == 11)
        let byURI = Dictionary(start.map { (Self.uri(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        for entry in after {
            let original = try #require(byURI[Self.uri(of: entry)])
            #expect(entry == original, "moved or left in place, an entry is the same entry")
        }
        // Two moved before item 7 as it was (the library's 5th), then the library's 2nd removed.
        let expected = [start[2], start[4], start[5], start[6], start[0], start[1]] + start[7...]
        #expect(after.map(Self.uri(of:)) == expected.map(Self.uri(of:)))

        let replaced = try await fake.send(
            "PUT", Self.itemsPath, ["uris": .array(after.map { .string(Self.uri(of: $0)) })], token: token)
        #expect(replaced.status == 200)
        let renewed = try await fake.entries(Self.id, token: token)
        #expect(renewed.map(Self.uri(of:)) == after.map(Self.uri(of:)))
        let now = Date().timeIntervalSince1970
        #expect(
            renewed.allSatisfy { entry in
                entry["added_at"]?.stringValue.flatMap(parseISOTimestamp).map { abs($0 - now) < 30 } == true
            }, "every entry is new")
        #expect(renewed.allSatisfy { $0["added_by"]?["id"] == .string(GeneratedLibrary.userID) })
    }

    /// range_start, range_length, insert_before → the new order of items 0...9 (nil: 400).
    @Test(
        arguments: [
            (0, 1, 10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]),  // the reference: the first to the end
            (9, 1, 0, [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]),  // the reference: the last to the start
            (2, 3, 7, [0, 1, 5, 6, 2, 3, 4, 7, 8, 9]),  // forward: before item 7 as it was
            (5, 2, 1, [0, 5, 6, 1, 2, 3, 4, 7, 8, 9]),  // backward: before item 1
            (3, 2, 3, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),  // before itself: no change
            (3, 2, 5, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),  // right after itself: no change
            (3, 3, 4, nil), (0, 1, 11, nil), (10, 1, 0, nil), (8, 3, 0, nil),
        ] as [(Int, Int, Int, [Int]?)])
    func rangeMovesCountInsertBeforeInThePlaylistBeforeTheMove(
        start: Int, length: Int, insertBefore: Int, expected: [Int]?
    ) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let original = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        #expect(original.count == 10)
        let body: JSONValue = [
            "range_start": .int(start), "range_length": .int(length), "insert_before": .int(insertBefore),
            "snapshot_id": "an older snapshot, which Spotify does not refuse",
        ]
        let reply = try await fake.send("PUT", Self.itemsPath, body, token: token)
        let now = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        if let expected {
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json()["snapshot_id"]?.stringValue?.isEmpty == false)
            #expect(now == expected.map { original[$0] })
        } else {
            #expect(reply.status == 400, "\(reply.text)")
            #expect(now == original)
        }
    }

    /// position → where the added item lands among items 0...9 (nil: 400, nothing added).
    @Test(arguments: [(0, 0), (3, 3), (10, 10), (nil, 10), (11, nil), (-1, nil)] as [(Int?, Int?)])
    func addingAtAPositionInsertsBeforeTheItemThere(position: Int?, lands: Int?) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let original = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        var body: JSONObject = ["uris": [.string(Self.uri(1))]]
        if let position { body["position"] = .int(position) }
        let reply = try await fake.send("POST", Self.itemsPath, .object(body), token: token)
        let now = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        if let lands {
            #expect(reply.status == 201, "\(reply.text)")
            var expected = original
            expected.insert(Self.uri(1), at: lands)
            #expect(now == expected)
        } else {
            #expect(reply.status == 400)
            #expect(now == original)
        }
    }

    // MARK: Helpers

    static func uri(of entry: JSONValue) -> String { entry["item"]?["uri"]?.stringValue ?? "" }

    /// The URIs of the first page embedded in a playlist object.
    static func uris(_ playlist: JSONValue) -> [String] {
        (playlist["items"]?["items"]?.arrayValue ?? []).map(uri(of:))
    }
}

extension Fake {
    /// An access token that may change the user's playlists.
    func editToken() async throws -> String {
        try await post("/_fake/tokens", [("scope", WriteFaultTests.scope)]).json().string("access_token")
    }

    /// A Web API request with a JSON body, on a connection of its own.
    func send(
        _ method: String, _ path: String, _ body: JSONValue, token: String, timeout: TimeInterval = 10
    ) async throws -> Reply {
        try await HTTPClient.fetch(
            url(path), method: method, body: Data(body.serialized().utf8),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json", "Connection": "close"],
            timeout: timeout)
    }

    /// `GET /v1/playlists/{id}` (with its first 100 entries embedded).
    func playlist(_ id: String, token: String) async throws -> JSONValue {
        let reply = try await HTTPClient.fetch(
            url("/v1/playlists/\(id)"), headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.json()
    }

    /// Every entry of a playlist, read page by page from `/items`.
    func entries(_ id: String, token: String) async throws -> [JSONValue] {
        var entries: [JSONValue] = []
        for _ in 0..<200 {  // 10,000 items at most
            let reply = try await HTTPClient.fetch(
                url("/v1/playlists/\(id)/items?offset=\(entries.count)&limit=50"),
                headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
            let page = try #require(try reply.json()["items"]?.arrayValue)
            entries += page
            if page.count < 50 { break }
        }
        return entries
    }
}
