import Foundation
import Testing

@testable import ToolkitCore
@testable import Tools

/// What a finished `routine-link run` pipeline means for its session, decided without processes.
@Suite(.tags(.small)) struct RunVerdictTests {
    typealias Outcome = ListeningPipeline.Outcome

    func outcome(watch: Int32, count: Int32, output: String = "", interrupted: Bool = false) -> Outcome {
        Outcome(
            watchStatus: watch, countStatus: count, countOutput: Data(output.utf8), countErrors: Data(),
            interrupted: interrupted)
    }

    let record =
        #"{"type":"song_count","track_count":2,"total_duration_ms":400000,"listened_ms":300000,"songs":1.5,"label":"1.5 songs"}"#

    @Test func aCountIsLoggedEvenWhenTheWatchWasInterrupted() {
        let logged = outcome(watch: 130, count: 0, output: record, interrupted: true).verdict
        guard case .log(let count, let interrupted) = logged else {
            Issue.record("not logged: \(logged)")
            return
        }
        #expect(count.songs == 1.5 && count.label == "1.5 songs" && count.listenedMs == 300_000)
        #expect(interrupted)
    }

    @Test func aFailedWatchIsNotACutShortSession() {
        #expect(outcome(watch: 77, count: 1).verdict == .watchFailed(status: 77, heard: nil))
        #expect(outcome(watch: 130, count: 1).verdict == .nothingHeard, "SIGINT is the watch stopping as asked")
    }

    /// A watch that died mid-run (404, a crash) while songcount still counted what came
    /// before was logged as a finished session, exit 0.
    @Test func aFailedWatchFailsTheRunEvenWithACount() {
        for status: Int32 in [1, 69, 77, 132, 134] {
            guard case .watchFailed(let got, let heard) = outcome(watch: status, count: 0, output: record).verdict
            else {
                Issue.record("status \(status) was not a failed watch")
                continue
            }
            #expect(got == status)
            #expect(heard?.label == "1.5 songs", "what was heard is kept to be printed")
        }
    }

    /// SIGHUP and SIGTERM stop the watch as SIGINT does; a third signal's SIGKILL is the
    /// user insisting.
    @Test func stopSignalsAreNotFailures() {
        for status: Int32 in [0, 129, 130, 143] {
            #expect(outcome(watch: status, count: 0, output: record).verdict == .log(summary, interrupted: false))
        }
        #expect(
            outcome(watch: 137, count: 0, output: record, interrupted: true).verdict == .log(summary, interrupted: true)
        )
        #expect(outcome(watch: 137, count: 0, output: record).verdict == .watchFailed(status: 137, heard: summary))
    }

    var summary: SongCountSummary {
        SongCountSummary(songs: 1.5, label: "1.5 songs", trackCount: 2, listenedMs: 300_000)
    }

    @Test func songcountFailingOrHearingNothing() {
        #expect(outcome(watch: 0, count: 65).verdict == .countFailed(status: 65))
        #expect(outcome(watch: 0, count: 0, output: "not json").verdict == .countUnreadable, "not exit 0")
        #expect(outcome(watch: 0, count: 1).verdict == .nothingHeard)
    }
}
