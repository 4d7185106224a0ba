import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct SongFitTests {
    @Test func fourTracksOf200sDoNotFill15Minutes() {
        var fit = SongFit(targetMs: 900_000)
        for _ in 1...4 {
            let filled = fit.add(durationMs: 200_000)
            #expect(!filled)
        }
        #expect(!fit.isFilled)
        #expect(fit.trackCount == 4)
        #expect(fit.totalDurationMs == 800_000)
        #expect(fit.shortByMs == 100_000)
    }

    @Test func fifteenMinutesOf200sTracksIs4AndAHalfSongs() throws {
        var fit = SongFit(targetMs: try parseDuration("15m"))
        let durations = [200_000, 200_000, 200_000, 200_000, 200_000, 200_000]
        var consumed = 0
        for duration in durations {
            consumed += 1
            if fit.add(durationMs: duration) { break }
        }
        #expect(consumed == 5)
        #expect(fit.isFilled)
        #expect(fit.trackCount == 5)
        #expect(fit.totalDurationMs == 1_000_000)
        #expect(fit.shortByMs == nil)
        #expect(fit.songs == 4.5)
        #expect(songLabel(fit.songs) == "4.5 songs")
    }

    @Test func averageNot200sEach() {
        // 150 + 250 + 180 + 220 + 200 = 1000 s over 5 tracks: average 200 s.
        var fit = SongFit(targetMs: 900_000)
        for seconds in [150, 250, 180, 220] {
            let filled = fit.add(durationMs: seconds * 1000)
            #expect(!filled)
        }
        let filled = fit.add(durationMs: 200_000)
        #expect(filled)
        #expect(fit.songs == 4.5)
        #expect(songLabel(fit.songs) == "4.5 songs")
    }

    @Test func exactFill() {
        var fit = SongFit(targetMs: 600_000)
        let first = fit.add(durationMs: 300_000)
        #expect(!first)
        let second = fit.add(durationMs: 300_000)
        #expect(second)
        #expect(fit.isFilled)
        #expect(fit.trackCount == 2)
        #expect(fit.songs == 2.0)
        #expect(fit.shortByMs == nil)
    }

    @Test func inputRunsOut() {
        var fit = SongFit(targetMs: 900_000)
        fit.add(durationMs: 240_000)
        fit.add(durationMs: 120_000)
        #expect(!fit.isFilled)
        #expect(fit.shortByMs == 540_000)
        #expect(fit.songs == 2.0, "the songs the input holds, not 900 s ÷ 180 s")
    }

    @Test func noTracks() {
        let fit = SongFit(targetMs: 900_000)
        #expect(fit.trackCount == 0)
        #expect(fit.songs == 0)
        #expect(fit.shortByMs == 900_000)
        #expect(!fit.isFilled)
    }

    @Test func addingAfterFilledIsIgnored() {
        var fit = SongFit(targetMs: 100_000)
        let first = fit.add(durationMs: 150_000)
        #expect(first)
        let second = fit.add(durationMs: 999_000)
        #expect(second)
        #expect(fit.trackCount == 1)
        #expect(fit.totalDurationMs == 150_000)
    }

    @Test func nonPositiveDurationsAreIgnored() {
        var fit = SongFit(targetMs: 100_000)
        let zero = fit.add(durationMs: 0)
        #expect(!zero)
        let negative = fit.add(durationMs: -5)
        #expect(!negative)
        #expect(fit.trackCount == 0)
        #expect(fit.songs == 0)
    }

    @Test func hugeDurationsDoNotTrap() {
        var fit = SongFit(targetMs: Int.max)
        fit.add(durationMs: Int.max - 1)
        fit.add(durationMs: Int.max - 1)
        #expect(fit.isFilled)
    }
}
