import Foundation
import TestSupport
import Testing

@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCore

/// Reproductions from the adversarial review, in process: each one crashed, lost a
/// session or trusted what it should not before its fix. The ones that need a process (a signal
/// during a refresh, a file size limit, a pipe that stays open) are HardeningTests, end to end.
@Suite(.tags(.medium)) struct AuthHardeningTests {
    // MARK: - Crashes

    @Test func countModeSurvivesExtremeProgress() async throws {
        let input = """
            {"id":"a","duration_ms":1000,"progress_ms":9223372036854775807}
            {"id":"a","duration_ms":1000,"progress_ms":-1}
            {"id":"a","duration_ms":1000,"progress_ms":-9223372036854775808}
            {"id":"a","duration_ms":9223372036854775807,"progress_ms":9223372036854775807}

            """
        let result = try await InProcess.run("songcount", ["--json"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["type"] == "song_count")
    }

    func seed(_ fake: InProcessFake, expiresAt: String, authorizedAt: String = "1700000000") throws {
        let json =
            #"{"access_token":"a","token_type":"Bearer","scope":"s","expires_at":\#(expiresAt),"refresh_token":"r","client_id":"test-client","authorized_at":\#(authorizedAt)}"#
        try PrivateDirectory(fake.configDirectory).write(Data(json.utf8), to: "tokens.json")
    }

    @Test(arguments: ["1e300", "-1e300", "9223372036854775807", "1e16"])
    func statusSurvivesAFarFutureExpiry(expiresAt: String) async throws {
        let fake = try InProcessFake()
        try seed(fake, expiresAt: expiresAt, authorizedAt: expiresAt)
        for force in ["0", "1"] {
            let result = try await fake.run(
                "spotify-auth", ["status"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": force])
            #expect(result.status == 0, "\(expiresAt) tty=\(force): \(result.stderr)")
        }
    }

    @Test func refreshAndLoginSurviveAnEndlessExpiresIn() async throws {
        let fake = try InProcessFake(["--access-token-lifetime", "9223372036854775807"])
        try await fake.seedLogin(expiresIn: 0)
        let refresh = try await fake.run("spotify-auth", ["refresh"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let status = try await fake.run("spotify-auth", ["status"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test(arguments: ["inf", "nan", "1e308", "-5", "99999999999999999999"])
    func anAbsurdRetryAfterIsNotACrash(retryAfter: String) async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 3600)
        try await fake.call(
            "POST", "/_fake/fail",
            form: [("path", "/v1/me"), ("status", "429"), ("retry_after", retryAfter), ("count", "10")])
        let result = try await fake.run(
            "spotify-auth", ["whoami"], environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "0.1"])
        #expect([69, 75].contains(result.status), "\(retryAfter): \(result.status) \(result.stderr)")
    }

    @Test(arguments: [
        ("inf", "a few"), ("\u{1b}[31m", "a few"), ("99999999999999999999", "9223372036854775807"), ("7", "7"),
    ])
    func theAccountsRateLimitShowsRetryAfterOnlyAsANumber(retryAfter: String, shown: String) async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 0)
        try await fake.call(
            "POST", "/_fake/fail", form: [("path", "/api/token"), ("status", "429"), ("retry_after", retryAfter)])
        let result = try await fake.run("spotify-auth", ["token"])
        #expect(result.status == 75)
        #expect(
            result.stderr
                == "spotify-auth: the Spotify accounts service is rate limiting; try again in \(shown) seconds\n")
    }

    @Test(arguments: ["inf", "1e300", "nan", "-1"])
    func anAbsurdRetryWaitCapIsRefusedNamingTheVariable(cap: String) async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 3600)
        try await fake.call(
            "POST", "/_fake/fail", form: [("path", "/v1/me"), ("status", "429"), ("retry_after", "0"), ("count", "10")])
        let result = try await fake.run(
            "spotify-auth", ["whoami"], environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": cap])
        #expect(result.status == 78, "\(cap): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains("SPOTIFY_TOOLKIT_MAX_RETRY_WAIT"), "\(result.stderr)")
    }

    /// A recent login gets only Spotify's words (SpotifyAuthEndToEndTests); a six-month-old one the rule too.
    @Test func theSixMonthRuleIsMentionedForALoginThatOld() async throws {
        let fake = try InProcessFake(["--refresh-token-lifetime", "0"])
        var old = try await fake.seedLogin(expiresIn: 0)
        old.authorizedAt -= 183 * 24 * 3600
        try fake.store.save(old)
        let result = try await fake.run("spotify-auth", ["token"])
        #expect(result.status == 77)
        #expect(
            result.stderr.hasPrefix(
                "spotify-auth: Spotify ended the session (Refresh token revoked (invalid_grant)); refresh tokens last six months and this login is from "
            ))
        #expect(result.stderr.hasSuffix("; run 'spotify-auth login' to log in again\n"))
    }

    // MARK: - Trust in the token store's files

    @Test(.enabled(if: geteuid() == 0, "needs root to give the directory to another user"))
    func aConfigDirectoryOwnedBySomeoneElseIsRefused() async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 3600)
        chmod(fake.configDirectory, 0o777)
        chown(fake.configDirectory, 65534, 65534)
        for arguments in [["token"], ["status"], ["logout"]] {
            let result = try await fake.run("spotify-auth", arguments)
            #expect(result.status == 78, "\(arguments)")
            #expect(
                result.stderr.hasSuffix(
                    "fix: chown root \(fake.configDirectory) && chmod 700 \(fake.configDirectory)\n"),
                "\(result.stderr)")
            #expect(!result.stdout.contains("access"))
        }
        #expect(FileManager.default.fileExists(atPath: fake.store.path))  // logout did not act on it either
    }

    @Test func aGroupWritableConfigDirectoryIsRefused() async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 3600)
        chmod(fake.configDirectory, 0o770)
        let result = try await fake.run("spotify-auth", ["token"])
        #expect(result.status == 78)
        #expect(
            result.stderr
                == "spotify-auth: refusing to use \(fake.configDirectory): it is writable by group or others (mode 770), so another user could replace what is in it; fix: chmod 700 \(fake.configDirectory)\n"
        )
        #expect(result.stdout == "")
    }

    @Test func aTokenFileOthersCanReadIsRefused() async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 3600)
        chmod(fake.store.path, 0o644)
        let result = try await fake.run("spotify-auth", ["token"])
        #expect(result.status == 78)
        #expect(
            result.stderr.hasSuffix(
                "is readable or writable by group or others (mode 644), so another user could read or replace it; fix: chmod 600 \(fake.store.path)\n"
            ))
        #expect(result.stdout == "")
    }

    @Test func aPlantedLockSymlinkIsNotFollowed() async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 0)  // needs a refresh, so the lock is taken
        let victim = fake.home.path + "/victim-file"
        symlink(victim, fake.configDirectory + "/tokens.lock")
        let result = try await fake.run("spotify-auth", ["token"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("tokens.lock"))
        #expect(result.stderr.contains("symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: victim))
    }

    /// The advice given when tokens.json is a directory is one that works, and logout gives the same.
    @Test func aDirectoryWhereTheTokensBelongGetsAdviceThatWorks() async throws {
        let fake = try InProcessFake()
        try FileManager.default.createDirectory(atPath: fake.store.path, withIntermediateDirectories: true)
        let advice =
            "\(fake.store.path) is a directory; move it out of the way (mv \(fake.store.path) \(fake.store.path).old) and try again\n"
        for arguments in [["token"], ["status"], ["logout"]] {
            let result = try await fake.run("spotify-auth", arguments)
            #expect(result.status == 78, "\(arguments)")
            #expect(result.stderr == "spotify-auth: " + advice, "\(arguments)")
        }
        // mv tokens.json tokens.json.old && spotify-auth status
        try FileManager.default.moveItem(atPath: fake.store.path, toPath: fake.store.path + ".old")
        let followed = try await fake.run("spotify-auth", ["status"])
        #expect(followed.status == 77)  // logged out, and usable again
    }

    // MARK: - The token goes only to the host it was meant for

    /// A server on another port that records whatever reaches it.
    final class Recorder: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var seen: [HTTPRequest] = []
        var requests: [HTTPRequest] { lock.withLock { seen } }
        func record(_ request: HTTPRequest) { lock.withLock { seen.append(request) } }
    }

    func redirectingServers() throws -> (redirector: LoopbackHTTPServer, target: LoopbackHTTPServer, recorder: Recorder)
    {
        let recorder = Recorder()
        let target = try LoopbackHTTPServer(host: "127.0.0.1", port: 0) { request in
            recorder.record(request)
            return .json(#"{"id":"attacker","access_token":"x","expires_in":3600}"#)
        }
        let targetPort = target.port
        let redirector = try LoopbackHTTPServer(host: "127.0.0.1", port: 0) { request in
            .redirect(
                to: "http://127.0.0.1:\(targetPort)\(request.target)", status: request.method == "POST" ? 307 : 302)
        }
        target.start()
        redirector.start()
        return (redirector, target, recorder)
    }

    @Test func aWebAPIRedirectIsRefusedAndTheTokenStaysHome() async throws {
        let servers = try redirectingServers()
        defer {
            servers.redirector.stop()
            servers.target.stop()
        }
        let result = try await InProcess.run(
            "spotify-auth", ["whoami"],
            environment: [
                "SPOTIFY_API_BASE": "http://127.0.0.1:\(servers.redirector.port)/v1",
                "SPOTIFY_ACCESS_TOKEN": "BQsecret-token",
            ])
        #expect(result.status == 69)
        #expect(
            result.stderr
                == "spotify-auth: 127.0.0.1:\(servers.redirector.port) answered GET /v1/me with a redirect (HTTP 302) to 127.0.0.1:\(servers.target.port); Spotify does not redirect API requests, so it was not followed (check SPOTIFY_API_BASE and SPOTIFY_ACCOUNTS_BASE)\n"
        )
        #expect(servers.recorder.requests.isEmpty)
        #expect(!result.stderr.contains("BQsecret-token"))
    }

    @Test func anAccountsRedirectIsRefusedAndTheRefreshTokenStaysHome() async throws {
        let fake = try InProcessFake()
        try await fake.seedLogin(expiresIn: 0)
        let servers = try redirectingServers()
        // A login made against the redirector: the redirect is what stops the refresh token.
        let seeded = try fake.bindLogin(accountsBase: "http://127.0.0.1:\(servers.redirector.port)")
        defer {
            servers.redirector.stop()
            servers.target.stop()
        }
        let result = try await fake.run(
            "spotify-auth", ["token"],
            environment: ["SPOTIFY_ACCOUNTS_BASE": "http://127.0.0.1:\(servers.redirector.port)"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("with a redirect (HTTP 307) to 127.0.0.1:\(servers.target.port)"))
        #expect(servers.recorder.requests.isEmpty)
        #expect(try fake.store.load() == seeded)
    }

    @Test(arguments: ["0", "0s", "0:00"])
    func aZeroTimeoutIsAUsageError(timeout: String) async throws {
        let fake = try InProcessFake()
        let result = try await fake.run(
            "spotify-auth", ["login", "--timeout", timeout], environment: ["BROWSER": "true"])
        #expect(result.status == 64)
        // A bare 0 is 0 seconds (a bare number is seconds), refused as zero.
        #expect(result.stderr.hasPrefix("spotify-auth: --timeout must be longer than zero\n"), "\(result.stderr)")
    }
}
