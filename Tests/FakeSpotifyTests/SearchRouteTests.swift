import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

/// fake-spotify's `GET /v1/search`: the limits Spotify's Web API reference gives
/// (`limit` 1–10, `offset` 0–1000), and the filters.
@Suite(.tags(.medium)) struct SearchRouteTests {
    func names(_ answer: JSONValue) -> [String] {
        (answer["tracks"]?["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    @Test func answersAPageOfTracksWithFilters() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let q = URLForm.percentEncode(#"track:"hallelujah" artist:"Leonard Cohen""#)
        let answer = try await fake.get("/v1/search?q=\(q)&type=track&limit=10", token: token).json()
        #expect(names(answer) == ["Hallelujah", "Hallelujah - Live in London"])
        let page = try #require(answer["tracks"]?.objectValue)
        #expect(page.keys == ["href", "items", "limit", "next", "offset", "previous", "total"])
        #expect(page["total"] == 2 && page["limit"] == 10 && page["next"] == .null && page["previous"] == .null)
        // Accents and case are ignored; free words may be in the name, the artists or the album.
        let plain = try await fake.get("/v1/search?q=BEYONCE%20deja&type=track", token: token).json()
        #expect(names(plain) == ["Déjà Vu (feat. Jay-Z)"])
        // Default limit 5; offsets page on.
        let all = try await fake.get("/v1/search?q=the&type=track", token: token).json()
        #expect(all["tracks"]?["limit"] == 5 && names(all).count == 5)
        #expect(all["tracks"]?["next"]?.stringValue?.contains("offset=5") == true)
        let second = try await fake.get("/v1/search?q=the&type=track&offset=5&limit=2", token: token).json()
        #expect(second["tracks"]?["previous"]?.stringValue?.contains("offset=3") == true)
        let none = try await fake.get("/v1/search?q=nothing%20like%20this&type=track", token: token).json()
        #expect(names(none) == [] && none["tracks"]?["total"] == 0)
    }

    @Test(arguments: [
        ("type=track", "No search query"),
        ("q=x", "Missing parameter type"),
        ("q=x&type=song", "Bad search type field"),
        ("q=x&type=track&limit=0", "Invalid limit"),
        ("q=x&type=track&limit=11", "Invalid limit"),
        ("q=x&type=track&limit=ten", "Invalid limit"),
        ("q=x&type=track&offset=-1", "Invalid offset"),
        ("q=x&type=track&offset=1001", "Invalid offset"),
    ])
    func badParametersAre400(query: String, message: String) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let reply = try await fake.get("/v1/search?\(query)", token: token)
        #expect(reply.status == 400)
        #expect(try reply.json()["error"]?["message"]?.stringValue == message)
        #expect(try await fake.get("/v1/search?q=x&type=track&offset=1000&limit=10", token: token).status == 200)
        #expect(try await fake.get("/v1/search?q=x&type=track").status == 401)
    }
}
