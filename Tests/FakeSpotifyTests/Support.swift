import Foundation
import LoopbackHTTP
import SpotifyClient
// The shared harness (ToolRun, TemporaryDirectory, HTTPTestClient, FakeHome, the size tags) for
// every file of this target, as when it was defined here.
@_exported import TestSupport
import Testing
import ToolkitCore

@testable import FakeSpotify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Every test starts its own fake-spotify on 127.0.0.1 with an ephemeral port and talks to it over
// HTTP; every request has a timeout, so nothing here can hang or reach the network.

/// A running fake-spotify for one test. Call `stop()` when done (`defer`).
final class Fake: Sendable {
    static let clientID = FakeHome.clientID
    static let redirectURI = "http://127.0.0.1:8888/callback"
    static let scope = "playlist-read-private user-read-currently-playing"

    let server: FakeSpotifyServer

    init(_ configure: (inout FakeSpotifySettings) -> Void = { _ in }) throws {
        var settings = FakeSpotifySettings()
        settings.clientIDs = [Fake.clientID]
        configure(&settings)
        server = try FakeSpotifyServer(settings: settings)
        server.start()
    }

    func stop() { server.stop() }

    func url(_ pathAndQuery: String) -> URL { URL(string: server.baseURL + pathAndQuery)! }

    func get(_ pathAndQuery: String, token: String? = nil) async throws -> Reply {
        try await HTTPTestClient.fetch(
            url(pathAndQuery), headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    func post(_ path: String, _ form: [(String, String)] = []) async throws -> Reply {
        try await HTTPTestClient.fetch(
            url(path), method: "POST", body: Data(URLForm.encode(form).utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
    }

    /// GET /authorize with the given parameters (nil leaves one out).
    func authorize(
        clientID: String? = Fake.clientID, redirectURI: String? = Fake.redirectURI,
        verifier: String = PKCE.makeVerifier(), challenge: String? = nil, method: String? = "S256",
        responseType: String? = "code", state: String? = "st4te", scope: String? = Fake.scope
    ) async throws -> Reply {
        var query: [(String, String)] = []
        if let clientID { query.append(("client_id", clientID)) }
        if let responseType { query.append(("response_type", responseType)) }
        if let redirectURI { query.append(("redirect_uri", redirectURI)) }
        if let method { query.append(("code_challenge_method", method)) }
        query.append(("code_challenge", challenge ?? PKCE.challenge(for: verifier)))
        if let state { query.append(("state", state)) }
        if let scope { query.append(("scope", scope)) }
        return try await get("/authorize?" + URLForm.encode(query))
    }

    func exchange(
        code: String, verifier: String, redirectURI: String = Fake.redirectURI, clientID: String = Fake.clientID
    ) async throws -> Reply {
        try await post(
            "/api/token",
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("client_id", clientID), ("code_verifier", verifier),
            ])
    }

    func refresh(_ refreshToken: String, clientID: String = Fake.clientID) async throws -> Reply {
        try await post(
            "/api/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)])
    }

    /// The whole browser login: authorize, then exchange the code; returns the token response.
    func login() async throws -> JSONValue {
        let verifier = PKCE.makeVerifier()
        let authorized = try await authorize(verifier: verifier)
        #expect(authorized.status == 302)
        let code = try #require(authorized.locationValue("code"))
        let reply = try await exchange(code: code, verifier: verifier)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.json()
    }

    func counters() async throws -> JSONValue { try await get("/_fake/counters").json() }
}

extension JSONValue {
    /// The string member `key`, or "" (for terse expectations).
    func string(_ key: String) -> String { self[key]?.stringValue ?? "" }
}

/// The OAuth error body as (error, error_description).
func oauthError(_ reply: Reply) throws -> (String, String) {
    let json = try reply.json()
    return (json.string("error"), json.string("error_description"))
}
