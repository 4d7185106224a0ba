import Foundation
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCore

@testable import FakeSpotify

@Suite(.tags(.medium)) struct AuthorizeTests {
    @Test func consentRedirectsWithCodeAndState() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let reply = try await fake.authorize(state: "a b&c")
        #expect(reply.status == 302)
        let location = try #require(reply.header("Location"))
        #expect(location.hasPrefix(Fake.redirectURI + "?code="))
        #expect(reply.locationValue("state") == "a b&c")
        #expect((reply.locationValue("code") ?? "").count > 40)
    }

    @Test func stateIsLeftOutWhenNotGivenAndQuerySeparatorIsAmpersand() async throws {
        let fake = try Fake { $0.redirectURIs = ["http://127.0.0.1/cb?app=1"] }
        defer { fake.stop() }
        let reply = try await fake.authorize(redirectURI: "http://127.0.0.1:5000/cb?app=1", state: nil)
        #expect(reply.status == 302)
        let location = try #require(reply.header("Location"))
        #expect(location.hasPrefix("http://127.0.0.1:5000/cb?app=1&code="))
        #expect(reply.locationValue("state") == nil)
    }

    @Test func denyRedirectsWithAccessDenied() async throws {
        let fake = try Fake { $0.deny = true }
        defer { fake.stop() }
        let reply = try await fake.authorize(state: "xyz")
        #expect(reply.status == 302)
        #expect(reply.header("Location") == Fake.redirectURI + "?error=access_denied&state=xyz")
    }

    @Test func localhostAndOtherHTTPHostsAreInsecure() async throws {
        let fake = try Fake { $0.redirectURIs = ["http://localhost:8888/callback", "http://192.168.1.2/callback"] }
        defer { fake.stop() }
        for uri in ["http://localhost:8888/callback", "http://192.168.1.2/callback", "http://LOCALHOST/callback"] {
            let reply = try await fake.authorize(redirectURI: uri)
            #expect(reply.status == 400)
            #expect(reply.header("Location") == nil)
            #expect(reply.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(reply.text.contains("INVALID_CLIENT: Insecure redirect URI"), "\(uri)")
        }
    }

    @Test func unregisteredRedirectURIIsRefused() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        for uri in [
            "http://127.0.0.1:8888/other", "http://127.0.0.1:8888/callback/", "https://example.com/callback",
            "http://127.0.0.2/callback",
        ] {
            let reply = try await fake.authorize(redirectURI: uri)
            #expect(reply.status == 400)
            #expect(reply.text.contains("INVALID_CLIENT: Invalid redirect URI"), "\(uri)")
        }
    }

    @Test func loopbackURIRegisteredWithoutPortMatchesAnyPort() async throws {
        let fake = try Fake()  // default registrations: http://127.0.0.1/callback, http://[::1]/callback
        defer { fake.stop() }
        for uri in [
            "http://127.0.0.1:8888/callback", "http://127.0.0.1:53127/callback", "http://127.0.0.1/callback",
            "http://[::1]:41234/callback",
        ] {
            let reply = try await fake.authorize(redirectURI: uri)
            #expect(reply.status == 302, "\(uri)")
            #expect(reply.header("Location")?.hasPrefix(uri + "?code=") == true)
        }
    }

    @Test func registeredPortMustMatchExactly() async throws {
        let fake = try Fake { $0.redirectURIs = ["http://127.0.0.1:8888/callback", "https://app.example/cb"] }
        defer { fake.stop() }
        #expect(try await fake.authorize(redirectURI: "http://127.0.0.1:8888/callback").status == 302)
        #expect(try await fake.authorize(redirectURI: "http://127.0.0.1:8889/callback").status == 400)
        #expect(try await fake.authorize(redirectURI: "https://app.example/cb").status == 302)
        #expect(try await fake.authorize(redirectURI: "https://app.example:444/cb").status == 400)
    }

    @Test func badClientIsRefused() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        for clientID in ["someone-else", ""] {
            let reply = try await fake.authorize(clientID: clientID)
            #expect(reply.status == 400)
            #expect(reply.text.contains("INVALID_CLIENT: Invalid client"))
        }
        #expect(try await fake.authorize(clientID: nil).text.contains("INVALID_CLIENT: Invalid client"))
    }

    @Test func anyClientIsAcceptedWhenNoneIsRegistered() async throws {
        let fake = try Fake { $0.clientIDs = [] }
        defer { fake.stop() }
        #expect(try await fake.authorize(clientID: "whatever").status == 302)
        #expect(try await fake.authorize(clientID: "").status == 400)
    }

    @Test func otherBadParametersAreNamed() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let cases: [(Reply, String)] = [
            (try await fake.authorize(responseType: nil), "response_type"),
            (try await fake.authorize(responseType: "token"), "response_type"),
            (try await fake.authorize(method: nil), "code_challenge_method"),
            (try await fake.authorize(method: "plain"), "code_challenge_method"),
            (try await fake.authorize(challenge: "short"), "code_challenge"),
            (try await fake.authorize(challenge: String(repeating: "+", count: 43)), "code_challenge"),
            (try await fake.authorize(redirectURI: nil), "redirect_uri"),
        ]
        for (reply, parameter) in cases {
            #expect(reply.status == 400)
            #expect(reply.header("Location") == nil)
            #expect(reply.text.contains(parameter), "\(parameter): \(reply.text)")
        }
    }
}

@Suite(.tags(.medium)) struct TokenExchangeTests {
    @Test func codeExchangeWithTheRightVerifierGivesTokens() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let verifier = PKCE.makeVerifier()
        let code = try #require(try await fake.authorize(verifier: verifier).locationValue("code"))
        let reply = try await fake.exchange(code: code, verifier: verifier)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/json")
        let json = try reply.json()
        #expect(json.objectValue?.keys == ["access_token", "token_type", "expires_in", "refresh_token", "scope"])
        #expect(json.string("token_type") == "Bearer")
        #expect(json["expires_in"] == 3600)
        #expect(json.string("scope") == Fake.scope)
        let access = json.string("access_token")
        let refresh = json.string("refresh_token")
        #expect(access.hasPrefix("BQ") && access.count == 66)
        #expect(refresh.hasPrefix("AQ") && refresh.count == 88)
        #expect(!reply.text.contains(": ") && !reply.text.contains(", "), "compact JSON")
        // and the token works
        #expect(try await fake.get("/v1/me", token: access).status == 200)
    }

    @Test func rfc7636TestVectorIsAccepted() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let authorized = try await fake.authorize(challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let code = try #require(authorized.locationValue("code"))
        #expect(try await fake.exchange(code: code, verifier: verifier).status == 200)
    }

    @Test func codeIsSingleUse() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let verifier = PKCE.makeVerifier()
        let code = try #require(try await fake.authorize(verifier: verifier).locationValue("code"))
        #expect(try await fake.exchange(code: code, verifier: verifier).status == 200)
        let again = try await fake.exchange(code: code, verifier: verifier)
        #expect(again.status == 400)
        #expect(try oauthError(again) == ("invalid_grant", "Invalid authorization code"))
        #expect(again.text == #"{"error":"invalid_grant","error_description":"Invalid authorization code"}"#)
    }

    @Test func unknownAndExpiredCodes() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        #expect(
            try oauthError(try await fake.exchange(code: "nope", verifier: PKCE.makeVerifier())) == (
                "invalid_grant", "Invalid authorization code"
            ))
        let verifier = PKCE.makeVerifier()
        let code = try #require(try await fake.authorize(verifier: verifier).locationValue("code"))
        fake.server.service.advanceClock(by: 601)
        #expect(
            try oauthError(try await fake.exchange(code: code, verifier: verifier)) == (
                "invalid_grant", "Invalid authorization code"
            ))
    }

    @Test func wrongVerifier() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let code = try #require(try await fake.authorize(verifier: PKCE.makeVerifier()).locationValue("code"))
        let reply = try await fake.exchange(code: code, verifier: PKCE.makeVerifier())
        #expect(reply.status == 400)
        #expect(try oauthError(reply) == ("invalid_grant", "code_verifier was incorrect"))
    }

    @Test func redirectURIMustBeByteIdentical() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let verifier = PKCE.makeVerifier()
        let code = try #require(
            try await fake.authorize(redirectURI: "http://127.0.0.1:8888/callback", verifier: verifier).locationValue(
                "code"))
        // Same registration, other port: still not the URI the code was issued for.
        let reply = try await fake.exchange(
            code: code, verifier: verifier, redirectURI: "http://127.0.0.1:9999/callback")
        #expect(reply.status == 400)
        #expect(try oauthError(reply) == ("invalid_grant", "Invalid redirect URI"))
    }

    @Test func clientMismatchIsInvalidClient() async throws {
        let fake = try Fake { $0.clientIDs = [] }
        defer { fake.stop() }
        let verifier = PKCE.makeVerifier()
        let code = try #require(try await fake.authorize(clientID: "one", verifier: verifier).locationValue("code"))
        let reply = try await fake.exchange(code: code, verifier: verifier, clientID: "two")
        #expect(reply.status == 400)
        #expect(try oauthError(reply) == ("invalid_client", "Invalid client"))
    }

    @Test func unregisteredClientIsInvalidClient() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let reply = try await fake.exchange(code: "x", verifier: PKCE.makeVerifier(), clientID: "stranger")
        #expect(try oauthError(reply) == ("invalid_client", "Invalid client"))
    }

    @Test func grantTypeAndMissingParameters() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let unknown = try await fake.post("/api/token", [("grant_type", "client_credentials")])
        #expect(unknown.status == 400)
        #expect(
            unknown.text
                == #"{"error":"unsupported_grant_type","error_description":"grant_type must be authorization_code or refresh_token"}"#
        )
        let missing = try await fake.post("/api/token", [("code", "x")])
        #expect(try oauthError(missing).0 == "unsupported_grant_type")
        let noVerifier = try await fake.post(
            "/api/token",
            [
                ("grant_type", "authorization_code"), ("code", "x"),
                ("redirect_uri", Fake.redirectURI), ("client_id", Fake.clientID),
            ])
        #expect(noVerifier.status == 400)
        #expect(try oauthError(noVerifier) == ("invalid_request", "Missing required parameter: code_verifier"))
        let noRefreshToken = try await fake.post(
            "/api/token", [("grant_type", "refresh_token"), ("client_id", Fake.clientID)])
        #expect(try oauthError(noRefreshToken).0 == "invalid_request")
    }

    @Test func tokensAreDistinct() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let a = try await fake.login()
        let b = try await fake.login()
        #expect(a.string("access_token") != b.string("access_token"))
        #expect(a.string("refresh_token") != b.string("refresh_token"))
    }
}

@Suite(.tags(.medium)) struct RefreshTests {
    @Test func rotationKillsTheOldRefreshToken() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let first = try await fake.login()
        let old = first.string("refresh_token")
        let reply = try await fake.refresh(old)
        #expect(reply.status == 200)
        let json = try reply.json()
        #expect(json.objectValue?.keys == ["access_token", "token_type", "expires_in", "refresh_token", "scope"])
        let new = json.string("refresh_token")
        #expect(!new.isEmpty && new != old)
        #expect(json.string("access_token") != first.string("access_token"))
        #expect(json.string("scope") == Fake.scope)

        let reused = try await fake.refresh(old)
        #expect(reused.status == 400)
        #expect(reused.text == #"{"error":"invalid_grant","error_description":"Invalid refresh token"}"#)
        #expect(try await fake.refresh(new).status == 200)

        let counters = try await fake.counters()
        #expect(counters["refreshes"] == 2)
        #expect(counters["rejected_refreshes"] == 1)
        #expect(counters["grants"]?["refresh_token"] == 3)
        #expect(counters["grants"]?["authorization_code"] == 1)
    }

    @Test func noRotationReturnsTheSameRefreshToken() async throws {
        let fake = try Fake { $0.rotation = false }
        defer { fake.stop() }
        let token = try await fake.login().string("refresh_token")
        for _ in 0..<3 {
            let reply = try await fake.refresh(token)
            #expect(reply.status == 200)
            #expect(try reply.json().string("refresh_token") == token)
        }
    }

    @Test func omittedRefreshTokenKeepsTheOldOneWorking() async throws {
        let fake = try Fake { $0.omitRefreshToken = true }
        defer { fake.stop() }
        let token = try await fake.login().string("refresh_token")
        #expect(!token.isEmpty)
        for _ in 0..<2 {
            let reply = try await fake.refresh(token)
            #expect(reply.status == 200)
            let json = try reply.json()
            #expect(json["refresh_token"] == nil)
            #expect(json.objectValue?.keys == ["access_token", "token_type", "expires_in", "scope"])
        }
    }

    @Test func refreshTokenLifetimeCountsFromTheOriginalLogin() async throws {
        let fake = try Fake { $0.refreshTokenLifetime = 100 }
        defer { fake.stop() }
        var token = try await fake.login().string("refresh_token")
        fake.server.service.advanceClock(by: 60)
        let refreshed = try await fake.refresh(token)
        #expect(refreshed.status == 200)
        token = try refreshed.json().string("refresh_token")
        fake.server.service.advanceClock(by: 60)  // 120 s after login, 60 s after the refresh
        let revoked = try await fake.refresh(token)
        #expect(revoked.status == 400)
        #expect(revoked.text == #"{"error":"invalid_grant","error_description":"Refresh token revoked"}"#)
        #expect(try await fake.counters()["rejected_refreshes"] == 1)
    }

    @Test func refreshNeedsTheTokensClient() async throws {
        let fake = try Fake { $0.clientIDs = [] }
        defer { fake.stop() }
        let token = try await fake.login().string("refresh_token")
        #expect(
            try oauthError(try await fake.refresh(token, clientID: "other")) == ("invalid_client", "Invalid client"))
        let noClient = try await fake.post("/api/token", [("grant_type", "refresh_token"), ("refresh_token", token)])
        #expect(try oauthError(noClient) == ("invalid_client", "Invalid client"))
        #expect(try await fake.refresh(token).status == 200)
    }

    @Test func refreshedAccessTokenHasTheConfiguredLifetime() async throws {
        let fake = try Fake { $0.accessTokenLifetime = 30 }
        defer { fake.stop() }
        let login = try await fake.login()
        #expect(login["expires_in"] == 30)
        let refreshed = try await fake.refresh(login.string("refresh_token")).json()
        #expect(refreshed["expires_in"] == 30)
        fake.server.service.advanceClock(by: 31)
        let expired = try await fake.get("/v1/me", token: refreshed.string("access_token"))
        #expect(expired.status == 401)
    }

    @Test func concurrentRefreshesOfOneRotatingTokenLetExactlyOneWin() async throws {
        let fake = try Fake { $0.tokenDelayMs = 50 }
        defer { fake.stop() }
        let token = try await fake.login().string("refresh_token")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await fake.refresh(token).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 400 }.count == 19)
        let counters = try await fake.counters()
        #expect(counters["refreshes"] == 1)
        #expect(counters["rejected_refreshes"] == 19)
    }
}
