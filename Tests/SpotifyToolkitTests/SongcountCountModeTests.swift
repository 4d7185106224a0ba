import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// songcount's count mode over hand-made listening logs, through the built binary.
@Suite(.tags(.medium)) struct SongcountCountModeTests {
    func poll(_ progress: Int, playing: Bool = true, type: String = "track", extra: String = #""id":"a","#) -> String {
        #"{"type":"now_playing",\#(extra)"name":"A","artists":[{"id":null,"name":"X"}],"duration_ms":180000,"is_playing":\#(playing),"progress_ms":\#(progress),"currently_playing_type":"\#(type)"}"#
    }

    @Test func furthestProgressCounts() async throws {
        let log = [poll(0), poll(170_000), poll(100_000)].joined(separator: "\n")
        let result = try await InProcess.run("songcount", ["--label"], stdin: log)
        #expect(result.status == 0)
        #expect(result.stdout == "1 song\n")
    }

    @Test func recordsWithoutIdOrURIAreToldApartByNameArtistsAndDuration() async throws {
        let log = [poll(10_000, extra: ""), poll(60_000, extra: ""), poll(100_000, extra: "")].joined(separator: "\n")
        let result = try await InProcess.run("songcount", [], stdin: log)
        #expect(result.status == 0)
        let record = try JSONValue.parse(result.stdout)
        #expect(record["track_count"] == 1)
        #expect(record["listened_ms"] == 90_000)
        #expect(record["songs"] == .double(0.5))
        #expect(record["label"] == "0.5 songs")
    }

    @Test func episodesAndAdsAreSkippedAndCountedOnStderr() async throws {
        let log = [
            poll(10_000), poll(100_000),
            #"{"type":"now_playing","is_playing":true,"progress_ms":4021,"currently_playing_type":"ad","observed_at":"2026-11-22T10:00:00Z"}"#,
            poll(50_000, type: "episode", extra: #""id":"e","#),
            #"{"type":"episode","id":"e2","duration_ms":3056274}"#,
        ].joined(separator: "\n")
        let result = try await InProcess.run("songcount", [], stdin: log)
        #expect(result.status == 0)
        #expect(try JSONValue.parse(result.stdout)["listened_ms"] == 90_000)
        #expect(
            result.stderr
                == "songcount: skipped 3 records that are not songs (episodes, ads, other objects) (line 3, line 4, line 5)\n"
        )
        // Fit mode skips them too.
        let fit = try await InProcess.run("songcount", ["--target", "10m"], stdin: log)
        #expect(try JSONValue.parse(fit.stdout)["track_count"] == 2)
        #expect(fit.stderr.contains("skipped 3 records that are not songs"))
    }

    @Test(arguments: [
        "",
        #"{"type":"now_playing","id":"a","duration_ms":180000,"is_playing":false,"progress_ms":5000}"#,
        #"{"type":"episode","id":"e","duration_ms":1000}"#,
    ])
    func nothingHeardIsNoRecordAndExit1(input: String) async throws {
        let result = try await InProcess.run("songcount", [], stdin: input)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasSuffix("songcount: nothing heard: the input has no song that was playing\n"))
    }

    @Test func songsAgreeWithTheLabel() async throws {
        // 0.4951 of a song: the label says less than 1 song, so the number must not read 0.5.
        let log = [poll(0), poll(89_118)].joined(separator: "\n")
        let result = try await InProcess.run("songcount", [], stdin: log)
        let record = try JSONValue.parse(result.stdout)
        #expect(record["label"] == "less than 1 song")
        #expect(record["songs"] == .double(0.49))
    }

    @Test func oneTrackIsSingular() async throws {
        let result = try await InProcess.run(
            "songcount", ["--target", "10m"], stdin: #"{"id":"a","duration_ms":180000}"#)
        #expect(result.stderr == "songcount: input ran out 7:00 short of 10:00 (1 track, 3:00)\n")
        let human = try await InProcess.run(
            "songcount", [], stdin: #"{"id":"a","duration_ms":180000}"#, environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"]
        )
        #expect(human.stdout == "You got through 1 song (1 track, 3:00)\n")
    }
}
