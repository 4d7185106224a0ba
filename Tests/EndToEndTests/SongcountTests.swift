import Foundation
import Testing

/// Spawns the built `songcount` and checks stdout, stderr and exit status.
@Suite(.tags(.large)) struct SongcountEndToEndTests {
    static let examplePlaylist = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/morning-playlist.jsonl").path

    func track(_ id: String, seconds: Int) -> String {
        #"{"id":"\#(id)","name":"Song \#(id)","type":"track","uri":"spotify:track:\#(id)","duration_ms":\#(seconds * 1000)}"#
    }

    @Test func aClosedPipeEndsQuietly() throws {
        let dir = try TemporaryDirectory()
        let big = (1...50_000).map { track("t\($0)", seconds: 200) }.joined(separator: "\n")
        let path = try dir.file("big.jsonl", contents: big)
        let result = try ToolProcess.shell(
            "songcount --select --target 100000h '\(path)' | head -1; echo \"status ${PIPESTATUS[0]}\"")
        #expect(result.stderr == "")
        #expect(result.stdoutLines.count == 2)
        #expect(result.stdoutLines.last == "status 141" || result.stdoutLines.last == "status 0")
    }

    @Test func writeErrorsAreExit74() throws {
        let result = try ToolProcess.shell("songcount --help > /dev/full")
        #expect(result.status == 74)
        #expect(result.stderr == "songcount: write to standard output failed: No space left on device\n")
    }
}

extension SongcountEndToEndTests {
    @Test func waitingOnATerminalShowsUsageInsteadOfHanging() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        // `script` gives songcount a terminal on stdin; with no FILE it must not sit waiting.
        let result = try ToolProcess.shell(
            "script -qec 'songcount --target 15m; echo status=$?' /dev/null < /dev/null", timeout: 20)
        #expect(result.stdout.contains("reads records on standard input"))
        #expect(result.stdout.contains("status=64"))
    }
}
