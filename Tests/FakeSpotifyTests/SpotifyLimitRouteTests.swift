import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

/// What Spotify refuses though its description names no limit, as
/// fake-spotify answers it, and the faults that hit one page or one method.
@Suite(.tags(.medium)) struct SpotifyLimitRouteTests {
    @Test func aSearchQueryPast100CharactersIsNotFound() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let hundred = String(repeating: "a", count: 100)
        let taken = try await fake.get("/v1/search?q=\(hundred)&type=track&limit=10", token: token)
        #expect(taken.status == 200, "\(taken.text)")
        let refused = try await fake.get("/v1/search?q=\(hundred)b&type=track&limit=10", token: token)
        #expect(refused.status == 404, "\(refused.text)")
        #expect(try refused.json()["error"]?["message"] == "Not found.")
    }

    @Test func aPlayBodyPastAbout9KBIsAnHTML413() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let test = PlayerContextRoutesTests()
        func body(_ count: Int) -> String {
            let uris = (0..<count).map {
                "\"spotify:track:" + GeneratedLibrary.objectID(seed: "play", index: $0) + "\""
            }
            return #"{"uris":["# + uris.joined(separator: ",") + "]}"
        }
        #expect(body(230).utf8.count <= FakeSpotifyService.maxPlayBodyBytes)
        let small = try await test.play(fake, body(230))
        #expect(small.status == 204, "\(small.text)")
        let big = try await test.play(fake, body(1000))
        #expect(big.status == 413)
        #expect(big.text.hasPrefix("<!DOCTYPE html>"))
        #expect(big.text.contains("<title>Error 413 (Request Entity Too Large)!!1</title>"))
    }

    @Test func aFaultMayHitOnePageOrOneMethodOnly() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let id = GeneratedLibrary.generatedID(count: 120)
        let items = "/v1/playlists/\(id)/items"
        try await fake.addFault([("kind", "server_error"), ("every", "1"), ("path_prefix", items), ("offset", "100")])
        let first = try await fake.get("\(items)?offset=50&limit=50", token: token)
        #expect(first.status == 200)
        let last = try await fake.get("\(items)?offset=100&limit=50", token: token)
        #expect(last.status == 503)
        _ = try await fake.post("/_fake/clear-faults")

        try await fake.addFault([
            ("kind", "server_error"), ("every", "1"), ("carry", "no"), ("path_prefix", items), ("method", "DELETE"),
        ])
        let read = try await fake.get("\(items)?offset=0&limit=50", token: token)
        #expect(read.status == 200)
        let uri = try #require(try read.json()["items"]?.arrayValue?.first?["item"]?["uri"]?.stringValue)
        let removed = try await fake.send("DELETE", items, ["items": [["uri": .string(uri)]]], token: token)
        #expect(removed.status == 503)
        let listed = try #require(try await fake.get("/_fake/faults").json()["faults"]?.arrayValue)
        #expect(listed.first?["method"] == "DELETE")
        let refused = try await fake.post("/_fake/faults", [("kind", "reset"), ("at", "1"), ("method", "PATCH")])
        #expect(refused.status == 400)
    }
}
