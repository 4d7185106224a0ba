import Foundation
import Testing

@testable import ToolkitCLI

/// Issue 20 item 6: a wait before a retry is said on a terminal (stderr), and nowhere else.
@Suite(.tags(.medium)) struct RetryNoteTests {
    static let terminal = Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: true)

    @Test func aRetryIsNotedOnATerminalOnly() async throws {
        let library = try await Library()
        for terminal in [Self.terminal, .none] {
            try await library.fault([
                ("kind", "server_error"), ("status", "503"), ("at", "1"), ("path_prefix", "/v1/playlists/"),
            ])
            let result = try await library.fake.run("spotify-tracks", ["--no-cache", generated(2)], terminal: terminal)
            _ = try await library.fake.call("POST", "/_fake/clear-faults")
            #expect(result.status == 0, "\(result.stderr)")
            let noted =
                result.stderr.contains("spotify-tracks: Spotify failed (HTTP 503")
                && result.stderr.contains("; trying again (2 of 5)")
            #expect(noted == terminal.stderrIsTerminal, "\(result.stderr)")
        }
    }

    @Test func aRateLimitWaitOverTwoSecondsIsNotedOnATerminal() async throws {
        let library = try await Library()
        try await library.fault([("kind", "rate_limit"), ("at", "1"), ("retry_after", "3")])
        let result = try await library.fake.run(
            "spotify-tracks", ["--no-cache", generated(2)], terminal: Self.terminal)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "spotify-tracks: Spotify is rate limiting; waiting 3 s as it asked, then trying again"),
            "\(result.stderr)")
    }

    @Test func aShortRateLimitWaitIsNotNoted() async throws {
        let library = try await Library()
        try await library.fault([("kind", "rate_limit"), ("at", "1"), ("retry_after", "1")])
        let result = try await library.fake.run(
            "spotify-tracks", ["--no-cache", generated(2)], terminal: Self.terminal)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("rate limiting"), "\(result.stderr)")
    }
}
