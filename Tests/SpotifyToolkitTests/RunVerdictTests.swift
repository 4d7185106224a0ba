import Foundation
import Testing

@testable import ToolkitCore
@testable import Tools

/// What a finished `routine-link run` pipeline means for its session, decided without processes.
@Suite struct RunVerdictTests {
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
        #expect(outcome(watch: 77, count: 1).verdict == .watchFailed(status: 77))
        #expect(outcome(watch: 130, count: 1).verdict == .nothingHeard, "SIGINT is the watch stopping as asked")
    }

    @Test func songcountFailingOrHearingNothing() {
        #expect(outcome(watch: 0, count: 65).verdict == .countFailed(status: 65))
        #expect(outcome(watch: 0, count: 0, output: "not json").verdict == .countFailed(status: 0))
        #expect(outcome(watch: 0, count: 1).verdict == .nothingHeard)
    }
}
