import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// Every `tool: message` line is one clean line, whatever the message quotes.
@Suite(.tags(.medium)) struct MessageSafetyTests {
    @Test func anErrorQuotingHostileTextIsOneCleanLine() async throws {
        let hostile = "A\u{1B}]0;pwned\u{07}\u{1B}[2J\nB\u{9B}31m\u{202E}C"
        let result = try await InProcess.run("spotify-tracks", [hostile])
        #expect(result.status == 64)
        let first = try #require(result.stderr.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix("spotify-tracks: 'A"))
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x202E })
        #expect(result.stderr.split(separator: "\n").count == 3, "message, usage line, hint: the newline was blanked")
    }

    @Test func warningsAreCleanedToo() throws {
        let scratch = try InProcess.Scratch()
        let fd = try scratch.open("err", flags: O_WRONLY | O_CREAT | O_TRUNC)
        DiagnosticStream(fileDescriptor: fd).report("tool", "x\u{1B}[2Jy\nz")
        close(fd)
        #expect(try scratch.read("err") == "tool: x [2Jy z\n")
    }
}

extension MessageSafetyTests {
    @Test func aHostileDisplayNameIsCleanedInStatus() {
        var tokens = StoredTokens(
            accessToken: "A1", scope: "a", expiresAt: 1000, refreshToken: "R1", clientID: "c", authorizedAt: 0)
        tokens.displayName = "Eve\u{1B}]0;pwned\u{07}\nroot\u{202E}"
        tokens.userID = "eve"
        let text = AuthStatus(tokens: tokens, store: FileTokenStore(directory: "/tmp/none"), now: 400).humanText
        #expect(text.hasPrefix("Logged in as Eve ]0;pwned  root  (eve)\n"))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
    }
}
