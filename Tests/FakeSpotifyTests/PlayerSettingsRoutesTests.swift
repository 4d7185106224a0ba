import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

/// fake-spotify's player settings and library writes over HTTP: the parameters it refuses (400
/// in Spotify's error shape) and the scopes it asks for.
@Suite(.tags(.medium)) struct PlayerSettingsRoutesTests {
    static let scope = "user-read-playback-state user-modify-playback-state user-library-modify user-library-read"

    func token(_ fake: Fake, scope: String = Self.scope) async throws -> String {
        try await fake.post("/_fake/tokens", [("scope", scope)]).json().string("access_token")
    }

    func put(_ fake: Fake, _ pathAndQuery: String, token: String, body: String? = nil, method: String = "PUT")
        async throws -> Reply
    {
        try await HTTPTestClient.fetch(
            fake.url(pathAndQuery), method: method, body: body.map { Data($0.utf8) },
            headers: ["Authorization": "Bearer \(token)"])
    }

    @Test func badParametersAre400InSpotifysShape() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        _ = try await fake.post("/_fake/playback")
        let token = try await token(fake)
        let cases: [(String, String?)] = [
            ("/v1/me/player/shuffle", nil), ("/v1/me/player/shuffle?state=on", nil),
            ("/v1/me/player/repeat?state=all", nil), ("/v1/me/player/repeat", nil),
            ("/v1/me/player/volume?volume_percent=101", nil), ("/v1/me/player/volume?volume_percent=-1", nil),
            ("/v1/me/player/volume?volume_percent=abc", nil), ("/v1/me/player/volume", nil),
            ("/v1/me/player/seek?position_ms=-5", nil), ("/v1/me/player/seek?position_ms=1.5", nil),
            ("/v1/me/player/seek?position_ms=99999999999999999999", nil),
            ("/v1/me/player", "not json"), ("/v1/me/player", #"{"device_ids": []}"#),
            ("/v1/me/player", #"{"device_ids": ["a", "b"]}"#), ("/v1/me/player", #"{"play": true}"#),
            ("/v1/me/player", #"{"device_ids": ["0d1841b0976bae2a3a310dd74c0f3df354899bc8"], "play": "yes"}"#),
        ]
        for (path, body) in cases {
            let reply = try await put(fake, path, token: token, body: body)
            #expect(reply.status == 400, "\(path) \(body ?? "")")
            #expect(try reply.json()["error"]?["status"] == 400, "\(path)")
            #expect(try reply.json()["error"]?["message"]?.stringValue?.isEmpty == false, "\(path)")
        }
        let unknown = try await put(fake, "/v1/me/player", token: token, body: #"{"device_ids": ["nope"]}"#)
        #expect(unknown.status == 404)
        // Nothing changed.
        let state = try await fake.get("/_fake/playback").json()
        #expect(state["shuffle_state"] == false)
        #expect(state["repeat_state"] == "off")
        #expect(state["volumes"] == [:])
    }

    @Test func settingsNeedThePlaybackScopeAndWritesTheLibraryScope() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        _ = try await fake.post("/_fake/playback")
        let readOnly = try await token(fake, scope: "user-read-playback-state user-library-read")
        for path in [
            "/v1/me/player/shuffle?state=true", "/v1/me/player/repeat?state=off",
            "/v1/me/player/volume?volume_percent=5",
            "/v1/me/player/seek?position_ms=0",
        ] {
            let reply = try await put(fake, path, token: readOnly)
            #expect(reply.status == 403, "\(path)")
            #expect(try reply.json()["error"]?["message"] == "Insufficient client scope")
        }
        let uri = "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"
        for method in ["PUT", "DELETE"] {
            let reply = try await put(fake, "/v1/me/library?uris=\(uri)", token: readOnly, method: method)
            #expect(reply.status == 403, "\(method)")
        }
        let contains = try await fake.get("/v1/me/library/contains?uris=\(uri)", token: readOnly)
        #expect(contains.status == 200)
        #expect(try contains.json() == [false])
        let full = try await token(fake)
        let saved = try await put(fake, "/v1/me/library?uris=\(uri)", token: full)
        #expect(saved.status == 200)
        #expect(saved.data.isEmpty)
        #expect(try await fake.get("/v1/me/library/contains?uris=\(uri)", token: full).json() == [true])
    }
}
