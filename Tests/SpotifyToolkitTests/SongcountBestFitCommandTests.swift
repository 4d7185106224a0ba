import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// `songcount --target D --best-fit`, run in process.
@Suite(.tags(.medium)) struct SongcountBestFitCommandTests {
    func track(_ id: String, ms: Int) -> String {
        #"{"id":"\#(id)","name":"Song \#(id)","type":"track","uri":"spotify:track:\#(id)","duration_ms":\#(ms)}"#
    }

    @Test func picksTheClosestSongsInInputOrderAndSummarisesOnStderr() async throws {
        // 15:00 = 900 s: 300 + 250 + 350.4 = 900.4 s (0.4 s over) is the closest; the first songs
        // (--select) would take 400 + 300 + 250 = 950 s.
        let lines = [
            track("a", ms: 400_000), track("b", ms: 300_000), track("c", ms: 250_000), track("d", ms: 350_400),
        ]
        let result = try await InProcess.run(
            "songcount", ["--target", "15m", "--best-fit"], stdin: lines.joined(separator: "\r\n") + "\r\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == [lines[1], lines[2], lines[3]], "byte for byte, CRLF made LF")
        #expect(result.stderr == "songcount: 3 songs, 15:00.4, 0.4 s over\n")
    }

    @Test func underAndExactly() async throws {
        let under = try await InProcess.run(
            "songcount", ["-t", "10:00", "-b"],
            stdin: [track("a", ms: 599_000), track("b", ms: 700_000)].joined(separator: "\n"))
        #expect(under.stdoutLines.count == 1 && under.stdoutLines[0].contains(#""id":"a""#))
        #expect(under.stderr == "songcount: 1 song, 9:59.0, 1.0 s under\n")
        let exact = try await InProcess.run(
            "songcount", ["--target=90s", "--best-fit"],
            stdin: track("x", ms: 30_000) + "\n" + track("y", ms: 60_000) + "\n")
        #expect(exact.stdoutLines.count == 2)
        #expect(exact.stderr == "songcount: 2 songs, 1:30.0, exactly\n")
    }

    @Test func skippedRecordsAreCountedAndNeverPicked() async throws {
        let input = [
            track("a", ms: 60_000), #"{"type":"episode","duration_ms":60000}"#, #"{"name":"no duration"}"#,
        ].joined(separator: "\n")
        let result = try await InProcess.run("songcount", ["-t", "2m", "--best-fit"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdoutLines == [track("a", ms: 60_000)])
        #expect(result.stderr.contains("skipped 1 record that is not a song"))
        #expect(result.stderr.contains("skipped 1 record without a usable duration_ms (line 3)"))
        #expect(result.stderr.hasSuffix("songcount: 1 song, 1:00.0, 60.0 s under\n"))
    }

    @Test func noSongsIsExitOneWithANote() async throws {
        for input in ["", "\n\n", #"{"type":"episode","duration_ms":1000}"# + "\n"] {
            let result = try await InProcess.run("songcount", ["--target", "15m", "--best-fit"], stdin: input)
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(result.stderr.contains("songcount: no songs to choose from"), "\(result.stderr)")
        }
    }

    @Test func badLinesNameTheLine() async throws {
        let result = try await InProcess.run(
            "songcount", ["--target", "15m", "--best-fit"], stdin: track("a", ms: 1000) + "\nnot json\n")
        #expect(result.status == 65)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("songcount: line 2: "), "\(result.stderr)")
    }

    @Test(arguments: [
        (["--best-fit"], "--best-fit needs --target"),
        (["--best-fit", "--target", "1m", "--select"], "--best-fit and --select cannot be used together"),
        (["--best-fit", "--target", "1m", "--label"], "cannot be used with --label"),
        // --json is allowed now: the chosen records even on a terminal (CopySlipsCommandTests).
        (["--best-fit", "--target", "0s"], "--target must be longer than zero"),
    ])
    func conflictsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await InProcess.run("songcount", arguments, stdin: track("a", ms: 1000))
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func tenThousandSongsComeWithinASecond() async throws {
        var random = SplitMix64(seed: 10_000)
        let input = (0..<10_000).map { track("t\($0)", ms: random.next(in: 60_000...480_000)) }.joined(separator: "\n")
        let result = try await InProcess.run("songcount", ["--target", "15m", "--best-fit"], stdin: input)
        #expect(result.status == 0)
        let chosen = try records(result)
        let total = chosen.compactMap { $0["duration_ms"]?.intValue }.reduce(0, +)
        #expect(abs(total - 900_000) <= 1_000, "\(result.stderr)")
        let positions = chosen.compactMap { $0["id"]?.stringValue.flatMap { Int($0.dropFirst()) } }
        #expect(positions == positions.sorted(), "input order")
    }

    /// Songs that fall short of the target are every one taken, and it says so.
    @Test func songsThatFallShortAreEveryOneTakenAndSaidSo() async throws {
        let lines = [track("a", ms: 200_000), track("b", ms: 250_000), track("c", ms: 150_000)]
        let result = try await InProcess.run(
            "songcount", ["--target", "1h", "--best-fit"], stdin: lines.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == lines)
        #expect(
            result.stderr
                == """
                songcount: the songs run out 50:00 short of 1:00:00: all 3 songs taken (10:00)
                songcount: 3 songs, 10:00.0, 3000.0 s under

                """)
    }

    /// A named FILE is read again for the songs chosen, not copied to TMPDIR first: with no
    /// temporary directory to copy to, a file still works, and a pipe cannot.
    @Test func aFileIsReadTwiceNotCopied() async throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 4)
        let lines = (0..<500).map { track("t\($0)", ms: random.next(in: 90_000...420_000)) }
        let file = try directory.file("tracks.jsonl", contents: lines.joined(separator: "\n") + "\n")
        let nowhere = ["TMPDIR": directory.path + "/missing"]
        let fromFile = try await InProcess.run(
            "songcount", ["--target", "10h", "--best-fit", file], environment: nowhere)
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let total = try fromFile.stdoutLines.reduce(0) { $0 + (try JSONValue.parse($1)["duration_ms"]?.intValue ?? 0) }
        #expect(abs(total - 36_000_000) <= 1_000, "\(fromFile.stderr)")
        #expect(fromFile.stdoutLines.allSatisfy(lines.contains))
        let fromPipe = try await InProcess.run(
            "songcount", ["--target", "10h", "--best-fit"], stdin: lines.joined(separator: "\n"), environment: nowhere)
        #expect(fromPipe.status == 74, "\(fromPipe.stderr)")
        #expect(fromPipe.stdoutLines == [])
        // The same songs, read from the pipe's copy.
        let copied = try await InProcess.run(
            "songcount", ["--target", "10h", "--best-fit"], stdin: lines.joined(separator: "\n"))
        #expect(copied.stdoutLines == fromFile.stdoutLines)
    }
}
