import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Reproductions from the adversarial review (issue 6): each one crashed, lost a session or
/// trusted what it should not before its fix.
@Suite struct HardeningTests {
    // MARK: - Crashes

    @Test func countModeSurvivesExtremeProgress() throws {
        let input = """
            {"id":"a","duration_ms":1000,"progress_ms":9223372036854775807}
            {"id":"a","duration_ms":1000,"progress_ms":-1}
            {"id":"a","duration_ms":1000,"progress_ms":-9223372036854775808}
            {"id":"a","duration_ms":9223372036854775807,"progress_ms":9223372036854775807}

            """
        let result = try ToolProcess.run("songcount", ["--json"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["type"] == "song_count")
    }

    func seed(_ fake: FakeSpotifyProcess, expiresAt: String, authorizedAt: String = "1700000000") throws {
        let json =
            #"{"access_token":"a","token_type":"Bearer","scope":"s","expires_at":\#(expiresAt),"refresh_token":"r","client_id":"test-client","authorized_at":\#(authorizedAt)}"#
        try PrivateDirectory(fake.configDirectory).write(Data(json.utf8), to: "tokens.json")
    }

    @Test(arguments: ["1e300", "-1e300", "9223372036854775807", "1e16"])
    func statusSurvivesAFarFutureExpiry(expiresAt: String) throws {
        let fake = try FakeSpotifyProcess()
        try seed(fake, expiresAt: expiresAt, authorizedAt: expiresAt)
        for force in ["0", "1"] {
            let result = try ToolProcess.run(
                "spotify-auth", ["status"], environment: fake.environment(["SPOTIFY_TOOLKIT_FORCE_TTY": force]))
            #expect(result.status == 0, "\(expiresAt) tty=\(force): \(result.stderr)")
        }
    }

    @Test func refreshAndLoginSurviveAnEndlessExpiresIn() throws {
        let fake = try FakeSpotifyProcess(["--access-token-lifetime", "9223372036854775807"])
        try fake.seedLogin(expiresIn: 0)
        let refresh = try ToolProcess.run("spotify-auth", ["refresh"], environment: fake.environment())
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let status = try ToolProcess.run(
            "spotify-auth", ["status"], environment: fake.environment(["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]))
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test(arguments: ["inf", "nan", "1e308", "-5", "99999999999999999999"])
    func anAbsurdRetryAfterIsNotACrash(retryAfter: String) throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        try fake.call(
            "POST", "/_fake/fail",
            form: [("path", "/v1/me"), ("status", "429"), ("retry_after", retryAfter), ("count", "10")])
        let result = try ToolProcess.run(
            "spotify-auth", ["whoami"], environment: fake.environment(["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "0.1"]))
        #expect([69, 75].contains(result.status), "\(retryAfter): \(result.status) \(result.stderr)")
    }

    @Test(arguments: [
        ("inf", "a few"), ("\u{1b}[31m", "a few"), ("99999999999999999999", "9223372036854775807"), ("7", "7"),
    ])
    func theAccountsRateLimitShowsRetryAfterOnlyAsANumber(retryAfter: String, shown: String) throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 0)
        try fake.call(
            "POST", "/_fake/fail", form: [("path", "/api/token"), ("status", "429"), ("retry_after", retryAfter)])
        let result = try ToolProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 75)
        #expect(
            result.stderr
                == "spotify-auth: the Spotify accounts service is rate limiting; try again in \(shown) seconds\n")
    }

    @Test(arguments: ["inf", "1e300", "nan", "-1"])
    func anAbsurdRetryWaitCapIsRefusedNamingTheVariable(cap: String) throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        try fake.call(
            "POST", "/_fake/fail", form: [("path", "/v1/me"), ("status", "429"), ("retry_after", "0"), ("count", "10")])
        let result = try ToolProcess.run(
            "spotify-auth", ["whoami"], environment: fake.environment(["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": cap]))
        #expect(result.status == 78, "\(cap): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains("SPOTIFY_TOOLKIT_MAX_RETRY_WAIT"), "\(result.stderr)")
    }

    // MARK: - An interrupted refresh keeps the session

    /// A signal while the (rotating) refresh is in flight: the process finishes saving the new
    /// tokens first, then ends as the signal asks; the next tool uses the new refresh token.
    @Test(arguments: [("INT", 130), ("TERM", 143), ("HUP", 129)])
    func aSignalDuringARefreshIsDeferredUntilTheTokensAreSaved(signal: String, status: Int) throws {
        let fake = try FakeSpotifyProcess(["--token-delay-ms", "1500"])
        let seeded = try fake.seedLogin(expiresIn: 0)
        // set -m: job control, so the background job does not start with SIGINT ignored.
        let script =
            "set -m; spotify-auth token > /dev/null 2>&1 & sleep 0.7; kill -\(signal) $!; wait $!; echo status=$?"
        let result = try ToolProcess.shell(script, environment: fake.environment())
        #expect(result.stdout == "status=\(status)\n")
        let stored = try #require(try fake.store.load())
        #expect(stored.refreshToken != seeded.refreshToken)  // the rotated one was saved
        let refreshed = try ToolProcess.run("spotify-auth", ["refresh"], environment: fake.environment())
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(try fake.counters()["rejected_refreshes"] == 0)
    }

    /// A store that cannot be written (here: no file may grow, as on a full disk) fails before the
    /// refresh is sent, so the refresh token is not burnt.
    @Test func aStoreThatCannotBeWrittenFailsBeforeTheRefresh() throws {
        let fake = try FakeSpotifyProcess()
        let seeded = try fake.seedLogin(expiresIn: 0)
        let result = try ToolProcess.shell("ulimit -f 0; spotify-auth token", environment: fake.environment())
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("spotify-auth: cannot write \(fake.store.path): "))
        #expect(try fake.counters()["refreshes"] == 0)
        #expect(try fake.store.load() == seeded)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fake.configDirectory).filter {
            $0.contains(".tmp")
        }
        #expect(leftovers.isEmpty)
    }

    /// A recent login gets only Spotify's words (SpotifyAuthEndToEndTests); a six-month-old one the rule too.
    @Test func theSixMonthRuleIsMentionedForALoginThatOld() throws {
        let fake = try FakeSpotifyProcess(["--refresh-token-lifetime", "0"])
        var old = try fake.seedLogin(expiresIn: 0)
        old.authorizedAt -= 183 * 24 * 3600
        try fake.store.save(old)
        let result = try ToolProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 77)
        #expect(
            result.stderr.hasPrefix(
                "spotify-auth: Spotify ended the session (Refresh token revoked (invalid_grant)); refresh tokens last six months and this login is from "
            ))
        #expect(result.stderr.hasSuffix("; run 'spotify-auth login' to log in again\n"))
    }

    // MARK: - Trust in the token store's files

    @Test(.enabled(if: geteuid() == 0, "needs root to give the directory to another user"))
    func aConfigDirectoryOwnedBySomeoneElseIsRefused() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        chmod(fake.configDirectory, 0o777)
        chown(fake.configDirectory, 65534, 65534)
        for arguments in [["token"], ["status"], ["logout"]] {
            let result = try ToolProcess.run("spotify-auth", arguments, environment: fake.environment())
            #expect(result.status == 78, "\(arguments)")
            #expect(
                result.stderr.hasSuffix(
                    "fix: chown root \(fake.configDirectory) && chmod 700 \(fake.configDirectory)\n"),
                "\(result.stderr)")
            #expect(!result.stdout.contains("access"))
        }
        #expect(FileManager.default.fileExists(atPath: fake.store.path))  // logout did not act on it either
    }

    @Test func aGroupWritableConfigDirectoryIsRefused() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        chmod(fake.configDirectory, 0o770)
        let result = try ToolProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 78)
        #expect(
            result.stderr
                == "spotify-auth: refusing to use \(fake.configDirectory): it is writable by group or others (mode 770), so another user could replace what is in it; fix: chmod 700 \(fake.configDirectory)\n"
        )
        #expect(result.stdout == "")
    }

    @Test func aTokenFileOthersCanReadIsRefused() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        chmod(fake.store.path, 0o644)
        let result = try ToolProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 78)
        #expect(
            result.stderr.hasSuffix(
                "is readable or writable by group or others (mode 644), so another user could read or replace it; fix: chmod 600 \(fake.store.path)\n"
            ))
        #expect(result.stdout == "")
    }

    @Test func aPlantedLockSymlinkIsNotFollowed() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 0)  // needs a refresh, so the lock is taken
        let victim = fake.home.path + "/victim-file"
        symlink(victim, fake.configDirectory + "/tokens.lock")
        let result = try ToolProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(result.status == 78)
        #expect(result.stderr.contains("tokens.lock"))
        #expect(result.stderr.contains("symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: victim))
    }

    /// The advice given when tokens.json is a directory is one that works, and logout gives the same.
    @Test func aDirectoryWhereTheTokensBelongGetsAdviceThatWorks() throws {
        let fake = try FakeSpotifyProcess()
        try FileManager.default.createDirectory(atPath: fake.store.path, withIntermediateDirectories: true)
        let advice =
            "\(fake.store.path) is a directory; move it out of the way (mv \(fake.store.path) \(fake.store.path).old) and try again\n"
        for arguments in [["token"], ["status"], ["logout"]] {
            let result = try ToolProcess.run("spotify-auth", arguments, environment: fake.environment())
            #expect(result.status == 78, "\(arguments)")
            #expect(result.stderr == "spotify-auth: " + advice, "\(arguments)")
        }
        let followed = try ToolProcess.shell(
            "mv \(fake.store.path) \(fake.store.path).old && spotify-auth status", environment: fake.environment())
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

    @Test func aWebAPIRedirectIsRefusedAndTheTokenStaysHome() throws {
        let servers = try redirectingServers()
        defer {
            servers.redirector.stop()
            servers.target.stop()
        }
        let result = try ToolProcess.run(
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

    @Test func anAccountsRedirectIsRefusedAndTheRefreshTokenStaysHome() throws {
        let fake = try FakeSpotifyProcess()
        let seeded = try fake.seedLogin(expiresIn: 0)
        let servers = try redirectingServers()
        defer {
            servers.redirector.stop()
            servers.target.stop()
        }
        let result = try ToolProcess.run(
            "spotify-auth", ["token"],
            environment: fake.environment([
                "SPOTIFY_ACCOUNTS_BASE": "http://127.0.0.1:\(servers.redirector.port)"
            ]))
        #expect(result.status == 69)
        #expect(result.stderr.contains("with a redirect (HTTP 307) to 127.0.0.1:\(servers.target.port)"))
        #expect(servers.recorder.requests.isEmpty)
        #expect(try fake.store.load() == seeded)
    }

    // MARK: - Login timeouts

    @Test func pasteModeHonoursTheTimeout() throws {
        let fake = try FakeSpotifyProcess()
        // stdin stays open and silent, like a terminal nobody types in.
        let result = try ToolProcess.shell(
            "sleep 4 | spotify-auth login --no-browser --timeout 1s; echo status=$?", environment: fake.environment(),
            timeout: 30)
        #expect(result.stdout == "status=75\n")
        #expect(result.stderr.contains("spotify-auth: login timed out after 0:01 waiting for the pasted redirect URL"))
        #expect(try fake.store.load() == nil)
    }

    @Test(arguments: ["0", "0s", "0:00"])
    func aZeroTimeoutIsAUsageError(timeout: String) throws {
        let fake = try FakeSpotifyProcess()
        let result = try ToolProcess.run(
            "spotify-auth", ["login", "--timeout", timeout], environment: fake.environment(["BROWSER": "true"]))
        #expect(result.status == 64)
        // A bare 0 is refused for want of a unit (issue 30: one grammar for every duration).
        let expected =
            timeout == "0"
            ? "spotify-auth: '0': a duration needs a unit" : "spotify-auth: --timeout must be longer than zero\n"
        #expect(result.stderr.hasPrefix(expected), "\(result.stderr)")
    }
}
