import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// `spotify-auth` in process against an in-process fake-spotify (the browser login, the IPv6
/// listener, signals and the twenty racing processes stay end to end).
@Suite(.tags(.medium)) struct SpotifyAuthCommandTests {
    static let userID = "31kx7ufdeznvfbgxsw2ocqc2ql4e"

    @Test func localhostRedirectURIsAreRefused() async throws {
        let fake = try InProcessFake()
        let result = try await InProcess.run(
            "spotify-auth", ["login", "--redirect-uri", "http://localhost:8888/callback"],
            environment: fake.environment())
        #expect(result.status == 78)
        #expect(result.stderr.contains("Spotify refuses redirect URIs with 'localhost'"))
    }

    @Test func aMissingClientIDExplainsTheSteps() async throws {
        let fake = try InProcessFake()
        let result = try await InProcess.run(
            "spotify-auth", ["login"], environment: fake.environment(["SPOTIFY_CLIENT_ID": ""]))
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("spotify-auth: no client id."))
        #expect(result.stderr.contains("developer.spotify.com/dashboard"))
        #expect(result.stderr.contains("User Management"))
    }

    @Test func statusAndLogoutWhenLoggedOut() async throws {
        let fake = try InProcessFake()
        let status = try await InProcess.run("spotify-auth", ["status"], environment: fake.environment())
        #expect(status.status == 77)
        #expect(
            status.stdout == #"{"type":"auth_status","logged_in":false,"token_store":"\#(fake.store.path)"}"# + "\n")
        let token = try await InProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(token.status == 77)
        #expect(token.stderr == "spotify-auth: not logged in; run 'spotify-auth login'\n")
        for _ in 0..<2 {
            let logout = try await InProcess.run("spotify-auth", ["logout"], environment: fake.environment())
            #expect(logout.status == 0)
            #expect(logout.stderr == "spotify-auth: not logged in; no tokens in \(fake.store.path)\n")
        }
        try await fake.seedLogin(expiresIn: 3600)
        let logout = try await InProcess.run("spotify-auth", ["logout"], environment: fake.environment())
        #expect(logout.stderr == "spotify-auth: logged out; removed the tokens from \(fake.store.path)\n")
        #expect(try fake.store.load() == nil)
    }

    @Test func refreshWhenTheTokenIsAboutToExpire() async throws {
        let fake = try InProcessFake()
        let seeded = try await fake.seedLogin(expiresIn: 30)  // under the 60 s margin
        let result = try await InProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try #require(try fake.store.load())
        #expect(result.stdout == stored.accessToken + "\n")
        #expect(stored.accessToken != seeded.accessToken)
        #expect(stored.refreshToken != seeded.refreshToken)  // rotated and stored
        #expect(try await fake.counters()["refreshes"] == 1)
        // Now fresh: no further refresh.
        _ = try await InProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(try await fake.counters()["refreshes"] == 1)
    }

    @Test func refreshOnceAfterA401() async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 3600)
        try await fake.call("POST", "/_fake/expire-access-tokens")  // the store still believes it is valid
        let result = try await InProcess.run("spotify-auth", ["whoami"], environment: fake.environment())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["id"]?.stringValue == Self.userID)
        let counters = try await fake.counters()
        #expect(counters["unauthorized"] == 1)
        #expect(counters["refreshes"] == 1)
        #expect(counters["requests"]?["GET /v1/me"] == 2)
    }

    @Test func aRefreshResponseWithoutRefreshTokenKeepsTheOldOne() async throws {
        let fake = try InProcessFake(["--omit-refresh-token"])
        let seeded = try await fake.seedLogin(expiresIn: 3600)
        let first = try await InProcess.run("spotify-auth", ["refresh"], environment: fake.environment())
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try fake.store.load()?.refreshToken == seeded.refreshToken)
        let second = try await InProcess.run("spotify-auth", ["refresh"], environment: fake.environment())
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try await fake.counters()["refreshes"] == 2)
    }

    @Test func anEndedSessionRemovesTheTokensAndSaysToLogIn() async throws {
        let fake = try InProcessFake(["--refresh-token-lifetime", "0"])
        try await fake.seedLogin(expiresIn: 0)
        let result = try await InProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 77)
        #expect(
            result.stderr
                == "spotify-auth: Spotify ended the session (Refresh token revoked (invalid_grant)); run 'spotify-auth login' to log in again\n"
        )
        #expect(result.stdout == "")
        #expect(try fake.store.load() == nil)
    }

    @Test func networkErrorsAndServerErrorsKeepTheTokens() async throws {
        let fake = try InProcessFake()
        let seeded = try await fake.seedLogin(expiresIn: 0)
        try await fake.call(
            "POST", "/_fake/fail", form: [("method", "POST"), ("path", "/api/token"), ("status", "503")])
        let failed = try await InProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(failed.status == 69)
        #expect(try fake.store.load() == seeded)
        // A login made against an accounts service that is now unreachable.
        let unreachable = try fake.bindLogin(accountsBase: "http://127.0.0.1:9")
        let offline = try await InProcess.run(
            "spotify-auth", ["token"], environment: fake.environment(["SPOTIFY_ACCOUNTS_BASE": "http://127.0.0.1:9"]))
        #expect(offline.status == 69)
        #expect(offline.stderr.hasPrefix("spotify-auth: cannot reach 127.0.0.1:9"))
        #expect(!offline.stderr.contains(seeded.refreshToken!))
        #expect(try fake.store.load() == unreachable)
    }

    @Test func anUnreadableStoreIsAConfigErrorAndIsNotOverwritten() async throws {
        let fake = try InProcessFake()
        // A directory where the file should be.
        try FileManager.default.createDirectory(atPath: fake.store.path, withIntermediateDirectories: true)
        for arguments in [["token"], ["status"], ["login"]] {
            let result = try await InProcess.run(
                "spotify-auth", arguments, environment: fake.environment(["BROWSER": "true"]))
            #expect(result.status == 78)
            #expect(result.stderr.contains(fake.store.path))
        }
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: fake.store.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func anAccessTokenFromTheEnvironmentIsUsedAsIsAndNeverStored() async throws {
        let fake = try InProcessFake()
        let minted = try await fake.call("POST", "/_fake/tokens", form: [("expires_in", "3600")])
        let token = try #require(minted["access_token"]?.stringValue)
        let env = fake.environment(["SPOTIFY_ACCESS_TOKEN": token])
        #expect(try await InProcess.run("spotify-auth", ["token"], environment: env).stdout == token + "\n")
        let whoami = try await InProcess.run("spotify-auth", ["whoami"], environment: env)
        #expect(whoami.status == 0)
        #expect(try fake.store.load() == nil)
        let rejected = try await InProcess.run(
            "spotify-auth", ["whoami"], environment: fake.environment(["SPOTIFY_ACCESS_TOKEN": "BQnot-a-real-token"]))
        #expect(rejected.status == 77)
        #expect(!rejected.stderr.contains("BQnot-a-real-token"))
    }

    @Test func helpForEverySubcommand() async throws {
        for command in SpotifyAuth.spec.subcommands {
            let result = try await InProcess.run("spotify-auth", [command.name, "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("spotify-auth \(command.name): "))
        }
        let missing = try await InProcess.run("spotify-auth", [])
        #expect(missing.status == 64)
        #expect(
            missing.stderr.hasPrefix(
                "spotify-auth: missing command; one of: login, status, whoami, token, refresh, logout, usage\n"))
    }
}
