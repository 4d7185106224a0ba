import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// Reproductions from the adversarial review that need a process: a signal during a
/// refresh, a file size limit, a pipe that stays open. The others run in process (AuthHardeningTests).
@Suite(.tags(.large)) struct HardeningTests {
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
}
