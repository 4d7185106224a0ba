import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The count of a whole log, as songcount reports it at the end.
func countSongs(_ observations: [SongObservation]) -> SongCountResult {
    var counter = SongCounter()
    for observation in observations { counter.add(observation) }
    return counter.result
}

@Suite(.tags(.small)) struct SongCounterTests {
    private func count(_ observations: [SongObservation]) -> SongCountResult { countSongs(observations) }

    @Test func emptyInput() {
        #expect(SongCounter().result == SongCountResult(trackCount: 0, songs: 0, listenedMs: 0, totalDurationMs: 0))
    }

    @Test(arguments: [1, 2, 3, 7])
    func plainTrackListCountsEveryTrack(n: Int) {
        let result = count((0..<n).map { SongObservation(key: "t\($0)", durationMs: 200_000) })
        #expect(result.trackCount == n)
        #expect(result.songs == Double(n))
        #expect(result.listenedMs == n * 200_000)
        #expect(result.totalDurationMs == n * 200_000)
    }

    @Test func repeatedObservationsOfOneSongCollapse() {
        let result = count([
            SongObservation(key: "a", durationMs: 200_000),
            SongObservation(key: "a", durationMs: 200_000),
            SongObservation(key: "a", durationMs: 200_000),
            SongObservation(key: "b", durationMs: 100_000),
            SongObservation(key: "b", durationMs: 100_000),
        ])
        #expect(result == SongCountResult(trackCount: 2, songs: 2, listenedMs: 300_000, totalDurationMs: 300_000))
    }

    @Test func songReturningAfterAnotherIsANewPlay() {
        let result = count([
            SongObservation(key: "a", durationMs: 200_000),
            SongObservation(key: "b", durationMs: 100_000),
            SongObservation(key: "a", durationMs: 200_000),
        ])
        #expect(result.trackCount == 3)
        #expect(result.songs == 3)
    }

    @Test func nilKeysAreEachTheirOwnPlay() {
        let result = count([
            SongObservation(key: nil, durationMs: 200_000),
            SongObservation(key: nil, durationMs: 200_000),
            SongObservation(key: nil, durationMs: 200_000),
        ])
        #expect(result.trackCount == 3)
        #expect(result.songs == 3)
    }

    @Test func listeningLogCountsPartialEdges() {
        // First song seen from 60 s of 240 s (0.75), two whole songs, last seen up to 30 s of 120 s (0.25).
        var log: [SongObservation] = []
        for progress in stride(from: 60_000, through: 235_000, by: 5_000) {
            log.append(SongObservation(key: "first", durationMs: 240_000, progressMs: progress))
        }
        for progress in stride(from: 0, through: 180_000, by: 5_000) {
            log.append(SongObservation(key: "middle1", durationMs: 180_000, progressMs: progress))
        }
        for progress in stride(from: 3_000, through: 200_000, by: 5_000) {
            log.append(SongObservation(key: "middle2", durationMs: 200_000, progressMs: progress))
        }
        for progress in stride(from: 0, through: 30_000, by: 5_000) {
            log.append(SongObservation(key: "last", durationMs: 120_000, progressMs: progress))
        }
        let result = count(log)
        #expect(result.trackCount == 4)
        #expect(result.songs == 3.0)
        #expect(result.listenedMs == 180_000 + 180_000 + 200_000 + 30_000)
        #expect(result.totalDurationMs == 240_000 + 180_000 + 200_000 + 120_000)
        #expect(songLabel(result.songs) == "3 songs")
    }

    @Test func singlePlayCountsTheObservedSpan() {
        let result = count([
            SongObservation(key: "a", durationMs: 120_000, progressMs: 30_000),
            SongObservation(key: "a", durationMs: 120_000, progressMs: 60_000),
            SongObservation(key: "a", durationMs: 120_000, progressMs: 90_000),
        ])
        #expect(result == SongCountResult(trackCount: 1, songs: 0.5, listenedMs: 60_000, totalDurationMs: 120_000))
    }

    @Test func singlePlayWithoutProgressIsWhole() {
        let result = count([SongObservation(key: "a", durationMs: 120_000)])
        #expect(result.songs == 1)
    }

    @Test func edgeWithoutProgressCountsWholeOnThatSide() {
        let result = count([
            SongObservation(key: "a", durationMs: 200_000),  // first: no progress → from the start
            SongObservation(key: "b", durationMs: 100_000, progressMs: 50_000),
        ])
        #expect(result.songs == 1.5)
        #expect(result.listenedMs == 250_000)
    }

    @Test func progressIsClampedIntoTheSong() {
        let beyond = count([
            SongObservation(key: "a", durationMs: 100_000, progressMs: 150_000),  // first: clamps to 100 s → 0
            SongObservation(key: "b", durationMs: 100_000),
            SongObservation(key: "c", durationMs: 100_000, progressMs: 500_000),  // last: clamps to 100 s → 1
        ])
        #expect(beyond.songs == 2.0)
        #expect(beyond.listenedMs == 200_000)

        let negative = count([
            SongObservation(key: "a", durationMs: 100_000, progressMs: -10_000),  // clamps to 0 → whole
            SongObservation(key: "b", durationMs: 100_000, progressMs: -10_000),  // clamps to 0 → nothing
        ])
        #expect(negative.songs == 1.0)

        // A short step back within one play never counts negative time.
        let backwards = count([
            SongObservation(key: "a", durationMs: 100_000, progressMs: 80_000),
            SongObservation(key: "a", durationMs: 100_000, progressMs: 60_000),
        ])
        #expect(backwards.songs == 0)
        #expect(backwards.listenedMs == 0)
        // A jump back by more than half the song is the song starting again: two plays.
        let restarted = count([
            SongObservation(key: "a", durationMs: 100_000, progressMs: 80_000),
            SongObservation(key: "a", durationMs: 100_000, progressMs: 20_000),
        ])
        #expect(restarted.trackCount == 2)
        #expect(abs(restarted.songs - 0.4) < 1e-9)
    }

    @Test func usesTheDurationOfThePlaysLastObservation() {
        let result = count([
            SongObservation(key: "a", durationMs: 100_000),
            SongObservation(key: "a", durationMs: 200_000),
            SongObservation(key: "b", durationMs: 100_000),
        ])
        #expect(result.totalDurationMs == 300_000)
    }

    @Test func resultIsAvailableMidStream() {
        var counter = SongCounter()
        counter.add(SongObservation(key: "a", durationMs: 100_000, progressMs: 50_000))
        #expect(counter.result.trackCount == 1)
        counter.add(SongObservation(key: "b", durationMs: 100_000, progressMs: 25_000))
        #expect(counter.result.songs == 0.75)
        counter.add(SongObservation(key: "c", durationMs: 100_000, progressMs: 10_000))
        #expect(counter.result.songs == 1.6)
        #expect(counter.result.trackCount == 3)
    }

    @Test func nonPositiveDurationsAreIgnored() {
        let result = count([
            SongObservation(key: "a", durationMs: 0),
            SongObservation(key: "b", durationMs: -1),
            SongObservation(key: "c", durationMs: 100_000),
        ])
        #expect(result.trackCount == 1)
        #expect(result.songs == 1)
    }
}

extension SongCounterTests {
    @Test func aSongThatStartsAgainIsANewPlay() {
        var counter = SongCounter()
        // Repeat-one: A heard from 90 s to the end, then again from the start up to 90 s.
        for progress in [90_000, 10_000, 90_000] {
            counter.add(SongObservation(key: "A", durationMs: 100_000, progressMs: progress))
        }
        let result = counter.result
        #expect(result.trackCount == 2)
        #expect(abs(result.songs - 1.0) < 1e-9)  // 0.1 of the first play + 0.9 of the second
        // A short seek back stays in the same play.
        var seek = SongCounter()
        for progress in [10_000, 60_000, 40_000, 80_000] {
            seek.add(SongObservation(key: "B", durationMs: 100_000, progressMs: progress))
        }
        #expect(seek.result.trackCount == 1)
        #expect(abs(seek.result.songs - 0.7) < 1e-9)
    }
}

/// Count mode over real listening logs: furthest progress, paused observations.
@Suite(.tags(.small)) struct SongCounterListeningLogTests {
    private func count(_ observations: [SongObservation]) -> SongCountResult { countSongs(observations) }

    @Test func aPlayIsHeardUpToItsFurthestProgress() {
        // 0 → 170 s, then a poll at 100 s (a short seek back) of a 180 s song: about 1 song, not 0.5.
        let result = count(
            [0, 170_000, 100_000].map { SongObservation(key: "a", durationMs: 180_000, progressMs: $0) })
        #expect(result.trackCount == 1)
        #expect(abs(result.songs - 170.0 / 180.0) < 1e-9)
        #expect(songLabel(result.songs) == "1 song")
        // The last play of a longer log too.
        let log = count([
            SongObservation(key: "x", durationMs: 100_000, progressMs: 90_000),
            SongObservation(key: "a", durationMs: 180_000, progressMs: 10_000),
            SongObservation(key: "a", durationMs: 180_000, progressMs: 170_000),
            SongObservation(key: "a", durationMs: 180_000, progressMs: 100_000),
        ])
        #expect(abs(log.songs - (0.1 + 170.0 / 180.0)) < 1e-9)
    }

    @Test func pausedObservationsAddNothingOnTheirOwn() {
        let onlyPaused = count([
            SongObservation(key: "a", durationMs: 180_000, progressMs: 10_000, isPlaying: false),
            SongObservation(key: "a", durationMs: 180_000, progressMs: 10_000, isPlaying: false),
        ])
        #expect(onlyPaused.trackCount == 0)
        #expect(onlyPaused.songs == 0)

        // A paused song between two playing ones is not a play; the pause point of a playing song still counts.
        let result = count([
            SongObservation(key: "a", durationMs: 100_000, progressMs: 0),
            SongObservation(key: "a", durationMs: 100_000, progressMs: 50_000, isPlaying: false),
            SongObservation(key: "b", durationMs: 100_000, progressMs: 30_000, isPlaying: false),
        ])
        #expect(result.trackCount == 1)
        #expect(result.songs == 0.5)
    }

    @Test func extremeProgressValuesDoNotTrap() {
        let result = count([
            SongObservation(key: "a", durationMs: 100_000, progressMs: Int.max),
            SongObservation(key: "a", durationMs: 100_000, progressMs: Int.min),
            SongObservation(key: "a", durationMs: Int.max, progressMs: Int.max),
            SongObservation(key: "a", durationMs: Int.max, progressMs: Int.min),
        ])
        #expect(result.trackCount >= 1)
        #expect(result.songs.isFinite)
    }
}
