import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Rate limiting has one meaning in code, README and man pages: a 429 whose wait is past the cap
/// exits 75 (try again later); Spotify's QUOTA_EXCEEDED exits 69 (the quota, not a burst). The
/// code side is exercised end to end in SpotifyTracksEndToEndTests.quotaIs69AndALongRateLimitIs75.
@Suite(.tags(.medium)) struct RateLimitExitCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized

    func readmeRow(_ code: Int) throws -> String {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        return try #require(readme.split(separator: "\n").first { $0.hasPrefix("| \(code) |") }.map(String.init))
    }

    @Test func readmeAgreesWithTheCode() throws {
        let unavailable = try readmeRow(69)
        #expect(unavailable.contains("QUOTA_EXCEEDED"))
        #expect(!unavailable.contains("rate limited"), "a rate limit past the cap is 75, not 69")
        let tempFail = try readmeRow(75)
        #expect(tempFail.contains("rate limited for longer than the wait cap"))
    }

    @Test func exitCodeMeaningsAgreeToo() {
        #expect(ExitCode.unavailable.meaning.contains("QUOTA_EXCEEDED"))
        #expect(!ExitCode.unavailable.meaning.contains("rate limited"))
        #expect(ExitCode.tempFail.meaning.contains("rate limited for longer than the wait cap"))
    }

    @Test(arguments: [SpotifyPlaylists.spec, SpotifyTracks.spec])
    func manPagesSayTheSame(spec: CommandSpec) {
        let page = ManPageRenderer.render(spec, version: Toolkit.version)
        let lines = page.split(separator: "\n").map(String.init)
        func meaning(_ code: Int) -> String? {
            guard let index = lines.firstIndex(of: ".B \(code)") else { return nil }
            return lines.indices.contains(index + 1) ? lines[index + 1] : nil
        }
        #expect(meaning(69)?.contains("QUOTA_EXCEEDED") == true, "\(meaning(69) ?? "missing")")
        #expect(
            meaning(75)?.contains("rate limiting for longer than the wait cap") == true, "\(meaning(75) ?? "missing")")
    }
}
