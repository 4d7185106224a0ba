import Foundation
import Testing
@testable import SpotifyToolkit

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
        let json = #"{"access_token":"a","token_type":"Bearer","scope":"s","expires_at":\#(expiresAt),"refresh_token":"r","client_id":"test-client","authorized_at":\#(authorizedAt)}"#
        try PrivateDirectory(fake.configDirectory).write(Data(json.utf8), to: "tokens.json")
    }

    @Test(arguments: ["1e300", "-1e300", "9223372036854775807", "1e16"])
    func statusSurvivesAFarFutureExpiry(expiresAt: String) throws {
        let fake = try FakeSpotifyProcess()
        try seed(fake, expiresAt: expiresAt, authorizedAt: expiresAt)
        for force in ["0", "1"] {
            let result = try ToolProcess.run("spotify-auth", ["status"], environment: fake.environment(["SPOTIFY_TOOLKIT_FORCE_TTY": force]))
            #expect(result.status == 0, "\(expiresAt) tty=\(force): \(result.stderr)")
        }
    }

    @Test func refreshAndLoginSurviveAnEndlessExpiresIn() throws {
        let fake = try FakeSpotifyProcess(["--access-token-lifetime", "9223372036854775807"])
        try fake.seedLogin(expiresIn: 0)
        let refresh = try ToolProcess.run("spotify-auth", ["refresh"], environment: fake.environment())
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let status = try ToolProcess.run("spotify-auth", ["status"], environment: fake.environment(["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]))
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test(arguments: ["inf", "nan", "1e308", "-5", "99999999999999999999"])
    func anAbsurdRetryAfterIsNotACrash(retryAfter: String) throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        try fake.call("POST", "/_fake/fail", form: [("path", "/v1/me"), ("status", "429"), ("retry_after", retryAfter), ("count", "10")])
        let result = try ToolProcess.run("spotify-auth", ["whoami"], environment: fake.environment(["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "0.1"]))
        #expect([69, 75].contains(result.status), "\(retryAfter): \(result.status) \(result.stderr)")
    }

    @Test(arguments: ["inf", "1e300", "nan", "-1"])
    func anAbsurdRetryWaitCapIsNotACrash(cap: String) throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        try fake.call("POST", "/_fake/fail", form: [("path", "/v1/me"), ("status", "429"), ("retry_after", "0"), ("count", "10")])
        let result = try ToolProcess.run("spotify-auth", ["whoami"], environment: fake.environment(["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": cap]))
        #expect([69, 75].contains(result.status), "\(cap): \(result.status) \(result.stderr)")
    }
}
