import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// What a login asks for, decided before any request: where the client id and redirect URI come
/// from, in order, and how the scopes accumulate.
@Suite(.tags(.small)) struct LoginRequestTests {
    static let saved = ConfigFile.Settings(clientID: "saved1", redirectURI: "http://127.0.0.1:7000/saved")

    static func request(
        clientID: String? = nil, redirectURI: String? = nil, environment: [String: String] = [:],
        saved: ConfigFile.Settings = saved
    ) throws -> LoginRequest {
        try LoginRequest(
            clientID: clientID, redirectURI: redirectURI, environment: ToolEnvironment(environment), saved: saved)
    }

    @Test func theOptionBeatsTheEnvironmentWhichBeatsTheConfigFile() throws {
        let environment = ["SPOTIFY_CLIENT_ID": "env1", "SPOTIFY_REDIRECT_URI": "http://127.0.0.1:9000/env"]
        let given = try Self.request(
            clientID: "option1", redirectURI: "http://[::1]/option", environment: environment)
        #expect(given.clientID == "option1" && given.redirectURI == "http://[::1]/option")
        let fromEnvironment = try Self.request(environment: environment)
        #expect(fromEnvironment.clientID == "env1" && fromEnvironment.redirectURI == "http://127.0.0.1:9000/env")
        let fromConfig = try Self.request()
        #expect(fromConfig.clientID == "saved1" && fromConfig.redirectURI == "http://127.0.0.1:7000/saved")
        let nothingSaved = try Self.request(clientID: "a-b_C9", saved: ConfigFile.Settings())
        #expect(nothingSaved.redirectURI == LoopbackRedirect.defaultURI)
    }

    @Test func noClientIDSaysHowToGetOneWithTheRedirectURIToRegister() throws {
        let error = try #require(throws: ToolError.self) {
            try Self.request(redirectURI: "http://127.0.0.1:5000/cb", saved: ConfigFile.Settings())
        }
        #expect(error.exitCode == .config)
        #expect(error.message == "no client id. To get one:")
        #expect(error.detailLines.count == 4)
        #expect(error.detailLines[1] == "2. in its settings, add the redirect URI http://127.0.0.1:5000/cb;")
    }

    @Test func aClientIDIsLettersDigitsDashesAndUnderscores() throws {
        for bad in ["", "abc def", "id/../x", "ïd", "a\nb"] {
            let error = try #require(throws: ToolError.self) { try Self.request(clientID: bad) }
            #expect(error.exitCode == .config)
            #expect(error.message.hasPrefix("'\(bad)' is not a client id"))
        }
    }

    @Test func scopesAccumulateDefaultsFirstThenKeptThenAsked() {
        let defaults = LoginFlow.defaultScopes
        let none = LoginRequest.scopes(kept: [], asked: [])
        #expect(none.scopes == defaults && none.keptExtras.isEmpty)
        let kept = ["user-top-read", defaults[0], "user-follow-read"]
        let both = LoginRequest.scopes(kept: kept, asked: ["user-follow-read", "playlist-modify-public"])
        #expect(both.scopes == defaults + ["user-top-read", "user-follow-read", "playlist-modify-public"])
        // Named only when neither a default nor asked for now: those the user did not ask for this time.
        #expect(both.keptExtras == ["user-top-read"])
        let twice = LoginRequest.scopes(kept: ["user-top-read", "user-top-read"], asked: ["user-top-read"])
        #expect(twice.scopes == defaults + ["user-top-read"] && twice.keptExtras.isEmpty)
    }
}
