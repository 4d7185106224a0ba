import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Runs `songcount` in process and checks stdout, stderr and exit status.
@Suite(.tags(.medium)) struct SongcountCommandTests {
    static let examplePlaylist = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/morning-playlist.jsonl").path

    func track(_ id: String, seconds: Int) -> String {
        #"{"id":"\#(id)","name":"Song \#(id)","type":"track","uri":"spotify:track:\#(id)","duration_ms":\#(seconds * 1000)}"#
    }

    @Test func fitModeWritesOneSongCountRecordWhenPiped() async throws {
        let input = (1...8).map { track("t\($0)", seconds: 200) }.joined(separator: "\n") + "\n"
        let result = try await InProcess.run("songcount", ["--target", "15m"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout
                == #"{"type":"song_count","target_ms":900000,"track_count":5,"total_duration_ms":1000000,"songs":4.5,"label":"4.5 songs"}"#
                + "\n")
    }

    @Test func shippedExamplePlaylist() async throws {
        let result = try await InProcess.run("songcount", ["--target", "15m", Self.examplePlaylist])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"type":"song_count","target_ms":900000,"track_count":5,"total_duration_ms":1067800,"songs":4.21,"label":"4 songs"}"#
                + "\n")
    }

    @Test func humanFormOnATerminalAndJSONWhenForced() async throws {
        let input = (1...8).map { track("t\($0)", seconds: 200) }.joined(separator: "\n")
        let human = try await InProcess.run(
            "songcount", ["-t", "15m"], stdin: input, environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(human.stdout == "4.5 songs (5 tracks, 16:40, fill 15:00)\n")
        let forced = try await InProcess.run(
            "songcount", ["-jt", "15m"], stdin: input, environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(forced.stdout.hasPrefix(#"{"type":"song_count""#))
    }

    @Test func labelOnly() async throws {
        let input = (1...8).map { track("t\($0)", seconds: 200) }.joined(separator: "\n")
        let result = try await InProcess.run("songcount", ["--target=15m", "--label"], stdin: input)
        #expect(result.stdout == "4.5 songs\n")
        #expect(result.status == 0)
    }

    @Test func selectPassesTheFillingRecordsThroughUnchanged() async throws {
        let lines = try String(contentsOfFile: Self.examplePlaylist, encoding: .utf8).split(separator: "\n").map(
            String.init)
        let result = try await InProcess.run("songcount", ["--target", "12:00", "--select", Self.examplePlaylist])
        #expect(result.status == 0)
        // 214 + 187.5 + 241.2 = 642.7 s < 720 s; the 4th fills it.
        #expect(result.stdoutLines == Array(lines.prefix(4)))
    }

    @Test func inputRunningOutIsReportedWithShortBy() async throws {
        let input = [track("a", seconds: 200), track("b", seconds: 200)].joined(separator: "\n")
        let result = try await InProcess.run("songcount", ["--target", "10m"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stderr == "songcount: input ran out 3:20 short of 10:00 (2 tracks, 6:40)\n")
        #expect(
            result.stdout
                == #"{"type":"song_count","target_ms":600000,"track_count":2,"total_duration_ms":400000,"songs":2,"label":"2 songs","short_by_ms":200000}"#
                + "\n")
    }

    @Test(arguments: [["--target", "15m"], ["--target", "15m", "--select"], ["--target", "15m", "--label"]])
    func anEmptyInputIsNoAnswer(options: [String]) async throws {
        for input in ["", "\n\n", #"{"type":"playlist","id":"x"}"# + "\n"] {
            let result = try await InProcess.run("songcount", options, stdin: input)
            #expect(result.status == 1, "\(options) \(input.debugDescription)")
            #expect(result.stdout == "", "no song_count record, no label")
            #expect(result.stderr.contains("no songs to fill 15:00"), "\(result.stderr)")
        }
    }

    @Test func aShortInputSaysWhatItHolds() async throws {
        let input = (0..<4).map { track("t\($0)", seconds: 225) }.joined(separator: "\n")
        let human = try await InProcess.run(
            "songcount", ["--target", "1:30:00"], stdin: input, environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(human.status == 0)
        #expect(human.stdout == "4 songs, 1:15:00 short of 1:30:00 (4 tracks, 15:00)\n", "\(human.stdout)")
        #expect(human.stderr == "", "the headline says it; no second note")
        let label = try await InProcess.run("songcount", ["--target", "1:30:00", "--label"], stdin: input)
        #expect(label.stdout == "4 songs\n")
        #expect(label.stderr.contains("input ran out 1:15:00 short of 1:30:00"))
    }

    @Test func countModeOverAListeningLog() async throws {
        func observation(_ id: String, duration: Int, progress: Int) -> String {
            #"{"type":"now_playing","is_playing":true,"progress_ms":\#(progress * 1000),"item":{"id":"\#(id)","type":"track","duration_ms":\#(duration * 1000)}}"#
        }
        let log = [
            observation("a", duration: 240, progress: 60), observation("a", duration: 240, progress: 200),
            observation("b", duration: 180, progress: 5), observation("c", duration: 200, progress: 1),
            observation("d", duration: 120, progress: 10), observation("d", duration: 120, progress: 30),
        ].joined(separator: "\n")
        let result = try await InProcess.run("songcount", [], stdin: log)
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"type":"song_count","track_count":4,"total_duration_ms":740000,"listened_ms":590000,"songs":3,"label":"3 songs"}"#
                + "\n")
        let human = try await InProcess.run(
            "songcount", [], stdin: log, environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(human.stdout == "You got through 3 songs (4 tracks, 9:50)\n")
    }

    @Test func playlistEntriesWithItemOrLegacyTrack() async throws {
        let input = """
            {"added_at":"2025-11-02T18:21:07Z","is_local":false,"item":{"id":"x","type":"track","track":true,"episode":false,"duration_ms":300000}}
            {"added_at":null,"track":{"id":"y","type":"track","duration_ms":300000}}
            {"added_at":null,"item":null}
            """
        let result = try await InProcess.run("songcount", [], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""track_count":2,"total_duration_ms":600000"#))
        #expect(result.stderr == "songcount: skipped 1 record without a usable duration_ms (line 3)\n")
    }

    @Test func crlfBOMAndBlankLinesAreAccepted() async throws {
        let input = "\u{FEFF}" + track("a", seconds: 100) + "\r\n\r\n" + track("b", seconds: 100) + "\r\n"
        let result = try await InProcess.run("songcount", ["--label"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdout == "2 songs\n")
    }

    @Test func aLineThatIsNotJSONIsAnErrorNamingItsLine() async throws {
        let input = [track("a", seconds: 100), track("b", seconds: 100), "{not json", track("c", seconds: 100)].joined(
            separator: "\n")
        let result = try await InProcess.run("songcount", [], stdin: input)
        #expect(result.status == 65)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("songcount: line 3: not JSON: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func errorsInNamedFilesNameTheFile() async throws {
        let dir = try TemporaryDirectory()
        let good = try dir.file("good.jsonl", contents: track("a", seconds: 100) + "\n")
        let bad = try dir.file("bad.jsonl", contents: track("b", seconds: 100) + "\n[1,2]\n")
        let result = try await InProcess.run("songcount", [good, bad])
        #expect(result.status == 65)
        #expect(result.stderr == "songcount: \(bad): line 2: not a JSON object (found an array)\n")
    }

    @Test func selectKeepsWhatItWroteBeforeABadLine() async throws {
        let input = [track("a", seconds: 100), "oops", track("c", seconds: 100)].joined(separator: "\n")
        let result = try await InProcess.run("songcount", ["--select", "--target", "1h"], stdin: input)
        #expect(result.status == 65)
        #expect(result.stdout == track("a", seconds: 100) + "\n")
    }

    @Test func missingFileIsExit66() async throws {
        let result = try await InProcess.run("songcount", ["/nonexistent/tracks.jsonl"])
        #expect(result.status == 66)
        #expect(result.stderr == "songcount: cannot open '/nonexistent/tracks.jsonl': No such file or directory\n")
    }

    @Test func badDurationIsAUsageErrorShowingTheAcceptedForms() async throws {
        let result = try await InProcess.run("songcount", ["--target", "fifteen"], stdin: "")
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(
            result.stderr.hasPrefix(
                "songcount: invalid duration 'fifteen': use 900 (a bare number is seconds), 45s, 15m, 90min, 1.5h, '1h 30m', 1h30m, 15:00 (m:ss), 1:30:00 (h:mm:ss) or PT15M\n"
            )
        )
        #expect(result.stderr.hasSuffix("Try 'songcount --help' for more information.\n"))
    }

    /// Issue 39: the brief's own `songcount --target 900` counts the songs of 15 minutes; a bare
    /// number is seconds, and one under a minute (`--target 15`, likely minutes meant) goes on
    /// with a note on stderr saying how it was read and how to write minutes.
    @Test func aBareNumberIsSecondsWithANoteUnderAMinute() async throws {
        let input = (1...8).map { track("t\($0)", seconds: 200) }.joined(separator: "\n") + "\n"
        let bare = try await InProcess.run("songcount", ["--target", "900"], stdin: input)
        let minutes = try await InProcess.run("songcount", ["--target", "15m"], stdin: input)
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stderr == "")
        #expect(bare.stdout == minutes.stdout)
        #expect(bare.stdout.contains(#""target_ms":900000"#), "\(bare.stdout)")

        let small = try await InProcess.run("songcount", ["--target", "15"], stdin: input)
        #expect(small.status == 0, "\(small.stderr)")
        #expect(small.stdout.contains(#""target_ms":15000"#), "\(small.stdout)")
        #expect(
            small.stderr
                == "songcount: --target 15 is 15 seconds (a bare number is seconds); for 15 minutes write --target 15m\n"
        )
    }

    @Test(arguments: [
        (["--bogus"], "songcount: unknown option '--bogus'"),
        (["--targt", "5m"], "songcount: unknown option '--targt'; did you mean '--target'?"),
        (["--target"], "songcount: option '--target' needs a value (DURATION)"),
        (["--label=yes"], "songcount: option '--label' does not take a value"),
        (["--select"], "songcount: --select needs --target"),
        (["-x"], "songcount: unknown option '-x'"),
        (["-target", "15m"], "songcount: unknown option '-target'; did you mean '--target'?"),
    ])
    func usageErrors(arguments: [String], firstLine: String) async throws {
        let result = try await InProcess.run("songcount", arguments, stdin: "")
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.stderr.contains("Usage: songcount [OPTIONS] [FILE...]"))
    }

    @Test func helpAndVersion() async throws {
        let help = try await InProcess.run("songcount", ["--help"])
        #expect(help.status == 0)
        #expect(help.stderr == "")
        #expect(help.stdout.hasPrefix("songcount: count time in songs"))
        #expect(help.stdout.contains("-t, --target DURATION"))
        let helpWins = try await InProcess.run("songcount", ["--bogus", "-h"])
        #expect(helpWins.status == 0)
        let version = try await InProcess.run("songcount", ["--version"])
        #expect(version.stdout.hasPrefix("songcount "))
        #expect(version.status == 0)
    }

    @Test func aLineOverTheLimitIsADataErrorNotACrash() async throws {
        let long = #"{"name":""# + String(repeating: "x", count: 17 << 20) + #""}"#
        let result = try await InProcess.run("songcount", [], stdin: track("a", seconds: 1) + "\n" + long + "\n")
        #expect(result.status == 65)
        #expect(result.stderr == "songcount: line 2: longer than the 16 MiB line limit\n")
    }
}
