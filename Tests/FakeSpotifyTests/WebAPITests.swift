import Foundation
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCore

@testable import FakeSpotify

@Suite(.tags(.medium)) struct WebAPITests {
    @Test func meWithAValidToken() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let reply = try await fake.get("/v1/me", token: token)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        let me = try reply.json()
        #expect(me.string("id") == "31kx7ufdeznvfbgxsw2ocqc2ql4e")
        #expect(me.string("display_name") == "Fixture User")
        #expect(reply.text.hasPrefix("{\n  \"account_id\" : "), "served verbatim from the fixture")
    }

    @Test func meWithoutAToken() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let reply = try await fake.get("/v1/me")
        #expect(reply.status == 401)
        #expect(reply.header("WWW-Authenticate") == #"Bearer realm="spotify""#)
        #expect(try reply.json() == ["error": ["status": 401, "message": "No token provided"]])
    }

    @Test func meWithAnUnknownToken() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        for header in ["Bearer nonsense", "Basic abc", "Bearer"] {
            let reply = try await HTTPTestClient.fetch(fake.url("/v1/me"), headers: ["Authorization": header])
            #expect(reply.status == 401)
            #expect(try reply.json() == ["error": ["status": 401, "message": "Invalid access token"]], "\(header)")
            #expect(
                reply.header("WWW-Authenticate")
                    == #"Bearer realm="spotify", error="invalid_token", error_description="Invalid access token""#)
        }
    }

    @Test func meWithAnExpiredToken() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        fake.server.service.advanceClock(by: 3600)
        let reply = try await fake.get("/v1/me", token: token)
        #expect(reply.status == 401)
        #expect(try reply.json() == ["error": ["status": 401, "message": "The access token expired"]])
        #expect(
            reply.header("WWW-Authenticate")
                == #"Bearer realm="spotify", error="invalid_token", error_description="The access token expired""#)
    }

    @Test func unknownRoutesAndMethods() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        let missing = try await fake.get("/v1/users/x/playlists", token: token)
        #expect(missing.status == 404)
        #expect(try missing.json() == ["error": ["status": 404, "message": "Service not found"]])
        #expect(try await fake.get("/v1/me/", token: token).status == 404)
        #expect(try await fake.get("/nothing").status == 404)
        let wrongMethod = try await fake.post("/v1/me")
        #expect(wrongMethod.status == 405)
    }
}

@Suite(.tags(.medium)) struct ControlTests {
    @Test func countersCountRequestsGrantsAndUnauthorized() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let login = try await fake.login()
        let token = login.string("access_token")
        for _ in 0..<3 { _ = try await fake.get("/v1/me", token: token) }
        _ = try await fake.get("/v1/me")
        _ = try await fake.refresh(login.string("refresh_token"))
        _ = try await fake.refresh(login.string("refresh_token"))  // rotated away: rejected
        _ = try await fake.get("/v1/nope")
        _ = try await fake.get("/_fake/settings")  // controls are not counted

        let reply = try await fake.get("/_fake/counters")
        #expect(reply.status == 200)
        #expect(
            reply.text
                == #"{"requests":{"GET /authorize":1,"GET /v1/me":4,"GET /v1/nope":1,"POST /api/token":3},"grants":{"authorization_code":1,"refresh_token":2},"refreshes":1,"rejected_refreshes":1,"unauthorized":1,"max_in_flight":1,"faults_fired":0,"faults_fired_by_kind":{},"not_carried_out":0,"carried_out_late":0,"stale_reads":0,"rate_limited":0,"sent_during_retry_after":0,"late_pending":0}"#
        )

        let reset = try await fake.post("/_fake/reset-counters")
        #expect(reset.status == 200)
        #expect(
            try await fake.counters() == [
                "requests": [:], "grants": ["authorization_code": 0, "refresh_token": 0],
                "refreshes": 0, "rejected_refreshes": 0, "unauthorized": 0,
                "max_in_flight": 0, "faults_fired": 0, "faults_fired_by_kind": [:], "not_carried_out": 0,
                "carried_out_late": 0, "stale_reads": 0, "rate_limited": 0, "sent_during_retry_after": 0,
                "late_pending": 0,
            ])
    }

    @Test func mintedTokens() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let reply = try await fake.post("/_fake/tokens", [("scope", "user-library-read")])
        #expect(reply.status == 200)
        let json = try reply.json()
        #expect(
            json.objectValue?.keys == [
                "access_token", "token_type", "expires_in", "refresh_token", "scope", "client_id",
            ])
        #expect(json["expires_in"] == 3600)
        #expect(json.string("scope") == "user-library-read")
        #expect(json.string("client_id") == Fake.clientID)
        #expect(try await fake.get("/v1/me", token: json.string("access_token")).status == 200)
        #expect(try await fake.refresh(json.string("refresh_token")).status == 200)
        // Minting is not a request of the API.
        #expect(try await fake.counters()["requests"]?["POST /_fake/tokens"] == nil)
    }

    @Test func mintedTokenThatIsAlreadyExpired() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let json = try await fake.post("/_fake/tokens", [("expires_in", "0"), ("client_id", "seeded")]).json()
        #expect(json["expires_in"] == 0)
        #expect(json.string("client_id") == "seeded")
        let reply = try await fake.get("/v1/me", token: json.string("access_token"))
        #expect(reply.status == 401)
        #expect(try reply.json()["error"]?["message"] == "The access token expired")
        // The refresh token still works, for the client it was minted for.
        let negative = try await fake.post("/_fake/tokens?expires_in=-60").json()
        #expect(negative["expires_in"] == -60)
        #expect(try await fake.get("/v1/me", token: negative.string("access_token")).status == 401)
        #expect(try await fake.refresh(negative.string("refresh_token")).status == 200)
    }

    @Test func expireAccessTokens() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let a = try await fake.login().string("access_token")
        let b = try await fake.post("/_fake/tokens").json().string("access_token")
        let reply = try await fake.post("/_fake/expire-access-tokens")
        #expect(try reply.json() == ["expired": 2])
        for token in [a, b] {
            #expect(
                try await fake.get("/v1/me", token: token).json()["error"]?["message"] == "The access token expired")
        }
        let fresh = try await fake.post("/_fake/tokens").json().string("access_token")
        #expect(try await fake.get("/v1/me", token: fresh).status == 200)
    }

    @Test func settingsChangeAtRunTime() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let initial = try await fake.get("/_fake/settings").json()
        #expect(initial["rotation"] == true)
        #expect(initial["refresh_token_lifetime"] == .null)
        let changed = try await fake.post(
            "/_fake/settings", [("deny", "true"), ("access_token_lifetime", "5"), ("refresh_token_lifetime", "0")])
        #expect(changed.status == 200)
        #expect(
            try changed.json().objectValue?.keys == [
                "deny", "rotation", "omit_refresh_token", "access_token_lifetime",
                "refresh_token_lifetime", "token_delay_ms", "client_ids", "redirect_uris",
            ])
        #expect(try changed.json()["deny"] == true)
        #expect(try changed.json()["access_token_lifetime"] == 5)
        #expect(try await fake.authorize().locationValue("error") == "access_denied")
        let minted = try await fake.post("/_fake/tokens").json()
        #expect(minted["expires_in"] == 5)
        #expect(
            try oauthError(try await fake.refresh(minted.string("refresh_token"))) == (
                "invalid_grant", "Refresh token revoked"
            ))

        _ = try await fake.post(
            "/_fake/settings",
            [("refresh_token_lifetime", "none"), ("rotation", "false"), ("omit_refresh_token", "false")])
        let kept = try await fake.refresh(minted.string("refresh_token")).json()
        #expect(kept.string("refresh_token") == minted.string("refresh_token"))

        let bad = try await fake.post("/_fake/settings", [("rotation", "maybe")])
        #expect(bad.status == 400)
        #expect(try bad.json().string("error").contains("rotation"))
        let unknown = try await fake.post("/_fake/settings", [("rotaton", "true")])
        #expect(unknown.status == 400)
    }

    @Test func tokenDelaySlowsTheTokenEndpoint() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        _ = try await fake.post("/_fake/settings", [("token_delay_ms", "300")])
        let token = try await fake.post("/_fake/tokens").json().string("refresh_token")
        let start = Date()
        #expect(try await fake.refresh(token).status == 200)
        #expect(Date().timeIntervalSince(start) >= 0.29)
    }

    @Test func injectedFailures() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.post("/_fake/tokens").json().string("access_token")
        let added = try await fake.post(
            "/_fake/fail", [("method", "GET"), ("path", "/v1/me"), ("status", "503"), ("count", "2")])
        #expect(added.status == 200)
        _ = try await fake.post("/_fake/fail", [("path", "/v1/me"), ("status", "429"), ("retry_after", "7")])
        _ = try await fake.post(
            "/_fake/fail",
            [
                ("path", "/v1/me"), ("status", "403"),
                ("body", "Check settings on developer.spotify.com/dashboard, the user may not be registered."),
                ("content_type", "text/plain"),
            ])

        for _ in 0..<2 {
            let unavailable = try await fake.get("/v1/me", token: token)
            #expect(unavailable.status == 503)
            #expect(try unavailable.json() == ["error": ["status": 503, "message": "Service Unavailable"]])
        }
        let limited = try await fake.get("/v1/me", token: token)
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "7")
        #expect(try limited.json()["error"]?["message"] == "API rate limit exceeded")
        let forbidden = try await fake.get("/v1/me")  // injected answers come before the token check
        #expect(forbidden.status == 403)
        #expect(forbidden.header("Content-Type") == "text/plain")
        #expect(forbidden.text == "Check settings on developer.spotify.com/dashboard, the user may not be registered.")
        #expect(try await fake.get("/v1/me", token: token).status == 200)

        let counters = try await fake.counters()
        #expect(counters["requests"]?["GET /v1/me"] == 5)
        #expect(counters["unauthorized"] == 0)
    }

    @Test func injectedFailureOnTheTokenEndpointCountsAsRejectedRefresh() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.post("/_fake/tokens").json().string("refresh_token")
        _ = try await fake.post("/_fake/fail", [("method", "POST"), ("path", "/api/token"), ("status", "500")])
        let failed = try await fake.refresh(token)
        #expect(failed.status == 500)
        #expect(try oauthError(failed).0 == "server_error")
        #expect(try await fake.refresh(token).status == 200, "the token was not used up by the failed attempt")
        let counters = try await fake.counters()
        #expect(counters["refreshes"] == 1)
        #expect(counters["rejected_refreshes"] == 1)
    }

    @Test func injectedFailureOnAPathWithoutARoute() async throws {
        // A path no route serves (the player routes exist now).
        let fake = try Fake()
        defer { fake.stop() }
        _ = try await fake.post(
            "/_fake/fail",
            [
                ("path", "/v1/me/shows"), ("status", "502"),
                ("body", #"{"error":{"status":502,"message":"Backend respond with 500"}}"#),
            ])
        let reply = try await fake.get("/v1/me/shows")
        #expect(reply.status == 502)
        #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        #expect(try reply.json()["error"]?["message"] == "Backend respond with 500")
        #expect(try await fake.get("/v1/me/shows").status == 404)
        #expect(try await fake.get("/_fake/nothing").status == 404)
        #expect(try await fake.counters()["requests"] == ["GET /v1/me/shows": 2])
    }

    @Test func badFailRequests() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        #expect(try await fake.post("/_fake/fail", [("status", "500")]).status == 400)
        #expect(try await fake.post("/_fake/fail", [("path", "/v1/me")]).status == 400)
        #expect(try await fake.post("/_fake/fail", [("path", "/v1/me"), ("status", "abc")]).status == 400)
        #expect(
            try await fake.post("/_fake/fail", [("path", "/v1/me"), ("status", "500"), ("count", "0")]).status == 400)
    }

    @Test func advanceClock() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.post("/_fake/tokens", [("expires_in", "3600")]).json().string("access_token")
        #expect(try await fake.get("/v1/me", token: token).status == 200)
        // A long lifetime, so a slow machine cannot expire the token before the clock moves.
        #expect(
            try await fake.post("/_fake/advance-clock", [("seconds", "3601")]).json()["clock_offset"]?.doubleValue
                == 3601)
        #expect(try await fake.get("/v1/me", token: token).status == 401)
    }
}

@Suite(.tags(.small)) struct RoutingTests {
    @Test func patternsMatchSegments() {
        let route = Route("GET", "/v1/playlists/{id}/items", .bearer) { _, _ in WebAPI.notFound }
        #expect(route.match(path: "/v1/playlists/abc/items") == ["id": "abc"])
        #expect(route.match(path: "/v1/playlists//items") == nil)
        #expect(route.match(path: "/v1/playlists/abc") == nil)
        #expect(route.match(path: "/v1/playlists/abc/items/") == nil)
        #expect(route.key == "GET /v1/playlists/{id}/items")
        #expect(Route("GET", "/v1/me", .bearer) { _, _ in WebAPI.notFound }.match(path: "/v1/me") == [:])
    }

    @Test func redirectURIRules() {
        typealias R = RedirectURIRules
        #expect(R.isInsecure("http://localhost:8888/callback"))
        #expect(R.isInsecure("http://10.0.0.1/callback"))
        #expect(!R.isInsecure("http://127.0.0.1:8888/callback"))
        #expect(!R.isInsecure("http://[::1]:8888/callback"))
        #expect(!R.isInsecure("https://example.com/callback"))
        #expect(!R.isInsecure("myapp://callback"))
        let registered = ["http://127.0.0.1/callback", "http://127.0.0.1:8888/fixed", "myapp://callback"]
        #expect(R.isRegistered("http://127.0.0.1:1234/callback", in: registered))
        #expect(R.isRegistered("http://127.0.0.1/callback", in: registered))
        #expect(!R.isRegistered("http://127.0.0.1:x/callback", in: registered))
        #expect(!R.isRegistered("http://127.0.0.1:1234/callbackx", in: registered))
        #expect(R.isRegistered("http://127.0.0.1:8888/fixed", in: registered))
        #expect(!R.isRegistered("http://127.0.0.1:8889/fixed", in: registered))
        #expect(R.isRegistered("myapp://callback", in: registered))
        #expect(!R.isRegistered("myapp://callback2", in: registered))
    }

    @Test func directHandlingWithoutASocket() {
        let service = FakeSpotifyService()
        let response = service.handle(HTTPRequest(method: "GET", target: "/v1/me"))
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate") == #"Bearer realm="spotify""#)
    }
}
