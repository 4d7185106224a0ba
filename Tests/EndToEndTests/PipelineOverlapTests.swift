import Foundation
import Testing

@testable import ToolkitCore

/// The stages of a pipeline overlap: a producer's records reach a pipe as each
/// page is done, and spotify-tracks starts on the first line of standard input while the rest
/// still arrives. Shown by the order of events, never by a time: a record read while the input
/// is still open, or while the producer is still waiting for a later page.
@Suite(.tags(.large)) struct PipelineOverlapTests {
    /// A tool with its three streams as pipes the test holds.
    final class Running: @unchecked Sendable {  // the pipes and the process are used from the test's thread
        let process = Process()
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        var pending = Data()

        init(_ tool: String, _ arguments: [String], environment: [String: String]) throws {
            process.executableURL = ToolProcess.url(of: tool)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            for (key, value) in environment { env[key] = value }
            process.environment = env
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            _ = ToolProcess.ignoreSIGPIPE
            try process.run()
        }

        func write(_ line: String) throws {
            try stdin.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        }

        /// The next `count` lines of stdout, blocking until they come (nil at end of output).
        func lines(_ count: Int) -> [String]? {
            var lines: [String] = []
            while lines.count < count {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                    continue
                }
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                pending += chunk
            }
            return lines
        }

        /// Closes stdin and waits: the rest of stdout, stderr and the status.
        func finish() throws -> (rest: String, stderr: String, status: Int32) {
            try? stdin.fileHandleForWriting.close()
            let rest = pending + stdout.fileHandleForReading.readDataToEndOfFile()
            let err = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (
                String(decoding: rest, as: UTF8.self), String(decoding: err, as: UTF8.self), process.terminationStatus
            )
        }
    }

    /// Closes a pipe's write end once, whoever comes first: the test, or the safety net that
    /// keeps a tool that waits for all of its input (the old behaviour) from hanging the test.
    final class OnceClosed: @unchecked Sendable {  // `closed` behind `lock`
        private let lock = NSLock()
        private var closed = false
        private(set) var bySafetyNet = false
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        func close(safetyNet: Bool) {
            lock.withLock {
                guard !closed else { return }
                closed = true
                bySafetyNet = safetyNet
                try? handle.close()
            }
        }
        var wasClosedBySafetyNet: Bool { lock.withLock { bySafetyNet } }
    }

    @Test func spotifyTracksPrintsTheFirstPlaylistWhileItsInputIsStillOpen() throws {
        let library = try Library()
        let first = generated(5)
        let second = generated(7)
        let tracks = try Running("spotify-tracks", ["--no-cache"], environment: library.fake.environment())
        let input = OnceClosed(tracks.stdin.fileHandleForWriting)
        // Only if the first record never comes while the input is open: then the input is closed
        // so the run can end, and the test fails below.
        DispatchQueue.global().asyncAfter(deadline: .now() + 90) { input.close(safetyNet: true) }
        try tracks.write(first)
        let firstRecords = try #require(tracks.lines(5))
        #expect(!input.wasClosedBySafetyNet, "the first playlist's records came while standard input was open")
        #expect(firstRecords.allSatisfy { $0.contains(first) })
        try tracks.write(second)
        let secondRecords = try #require(tracks.lines(7))
        #expect(!input.wasClosedBySafetyNet)
        input.close(safetyNet: false)
        let (rest, stderr, status) = try tracks.finish()
        #expect(status == 0, "\(stderr)")
        #expect(rest.isEmpty)

        // Exactly what the same input all at once prints, in the same order.
        let batch = try library.tracks(["--no-cache"], stdin: first + "\n" + second + "\n")
        #expect(batch.status == 0)
        #expect(batch.stdoutLines == firstRecords + secondRecords)
    }

    @Test func aBadLineStillFailsNamingItAfterTheLinesBeforeIt() throws {
        let library = try Library()
        let result = try library.tracks(
            // Not a URI, so not a name either (a line of plain text names a playlist).
            ["--no-cache"], stdin: generated(3) + "\n\nspotify:playlist:not-one\n" + generated(4) + "\n")
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("spotify-tracks: standard input: line 3: "), "\(result.stderr)")
        #expect(result.stdoutLines.count == 3, "the playlist before it, as a one-at-a-time run prints it")
    }

    /// spotify-playlists' first page of records reaches the pipe while a later page is still held
    /// by fake-spotify (a 20 s delay fault on the requests after the first).
    @Test func spotifyPlaylistsHandsEachPageOnAsItComes() throws {
        let library = try Library(["--extra-playlists", "120"])
        try library.fault([
            ("kind", "delay"), ("delay_ms", "20000"), ("at", "2+3+4"), ("path_prefix", "/v1/me/playlists"),
        ])
        let playlists = try Running("spotify-playlists", [], environment: library.fake.environment())
        let firstPage = try #require(playlists.lines(50))
        #expect(playlists.process.isRunning, "the first page came while the later ones were still on their way")
        #expect(try firstPage.allSatisfy { try JSONValue.parse($0)["type"] == "playlist" })
        playlists.process.terminate()
        _ = try playlists.finish()
    }
}
