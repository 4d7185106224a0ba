import Testing

@testable import ToolkitCore

/// `BestFit`: the closest subsequence, against brute force over every subset.
@Suite(.tags(.small)) struct BestFitTests {
    /// Every subset, judged by the same rules: closest, then fewest, then earliest.
    static func bruteForce(_ durations: [Int], target: Int) -> BestFit.Result {
        var best = BestFit.Result(indices: [], totalMs: 0, targetMs: target)
        for mask in 0..<(1 << durations.count) {
            var indices: [Int] = []
            var total = 0
            for index in durations.indices where mask & (1 << index) != 0 {
                indices.append(index)
                total += durations[index]
            }
            let candidate = BestFit.Result(indices: indices, totalMs: total, targetMs: target)
            if BestFit.isBetter(candidate, than: best) { best = candidate }
        }
        return best
    }

    @Test func matchesBruteForceOnRandomSmallInputs() {
        var random = SplitMix64(seed: 19)
        for round in 0..<150 {
            let count = random.next(in: 0...16)
            let spread = [20, 3_000, 60_000][round % 3]
            let durations = (0..<count).map { _ in random.next(in: 0...spread) }
            let target = random.next(in: 1...max(1, spread * 4))
            let expected = Self.bruteForce(durations, target: target)
            let got = BestFit.choose(durations: durations, targetMs: target)
            #expect(got == expected, "round \(round): \(durations) → \(target)")
        }
    }

    @Test func realisticSongLengthsMatchBruteForce() {
        var random = SplitMix64(seed: 2026)
        for round in 0..<6 {
            let durations = (0..<14).map { _ in random.next(in: 120_000...420_000) }
            let target = random.next(in: 300_000...1_800_000)
            #expect(
                BestFit.choose(durations: durations, targetMs: target) == Self.bruteForce(durations, target: target),
                "round \(round)")
        }
    }

    @Test func tiesGoToFewerSongsThenEarlierOnes() {
        // 10 alone, or 4 + 6: one song wins.
        #expect(BestFit.choose(durations: [4, 6, 10], targetMs: 10).indices == [2])
        // Two single songs hit it: the earlier one.
        #expect(BestFit.choose(durations: [3, 10, 10], targetMs: 10).indices == [1])
        // 9 (1 under) and 11 (1 over) are as close: fewer songs, then earlier.
        #expect(BestFit.choose(durations: [11, 9], targetMs: 10).indices == [0])
        #expect(BestFit.choose(durations: [5, 4, 11], targetMs: 10).indices == [2])
        // {0, 3} before {1, 2}: earliest first position.
        #expect(BestFit.choose(durations: [5, 4, 6, 5], targetMs: 10).indices == [0, 3])
    }

    @Test func emptyInputAndNonPositiveTargetsPickNothing() {
        #expect(BestFit.choose(durations: [], targetMs: 900_000) == .init(indices: [], totalMs: 0, targetMs: 900_000))
        #expect(BestFit.choose(durations: [1000], targetMs: 0).indices == [])
        #expect(BestFit.choose(durations: [1000], targetMs: -5).indices == [])
    }

    @Test func aTargetLongerThanEverythingTakesEverySong() {
        let result = BestFit.choose(durations: [200_000, 0, 180_000, 240_000], targetMs: 3_600_000)
        #expect(result.indices == [0, 2, 3])
        #expect(result.totalMs == 620_000)
        #expect(result.summary == "3 songs, 10:20.0, 2980.0 s under")
    }

    @Test func aTargetShorterThanTheShortestSong() {
        // 1 s: a 1.5 s song is 0.5 s over, nothing is 1 s under.
        #expect(BestFit.choose(durations: [3_000, 1_500], targetMs: 1_000).indices == [1])
        // 1 s: a 2 s song is as far as nothing; fewer songs win.
        #expect(BestFit.choose(durations: [2_000], targetMs: 1_000).indices == [])
        #expect(BestFit.choose(durations: [5_000, 9_000], targetMs: 1_000).indices == [])
    }

    @Test func zeroAndNegativeDurationsAreNeverPicked() {
        #expect(BestFit.choose(durations: [0, 0, 10, 0], targetMs: 10).indices == [2])
        #expect(BestFit.choose(durations: [-10, 20, 0], targetMs: 10).indices == [])
    }

    @Test func hugeDurationsDoNotOverflow() {
        let huge = Int.max
        #expect(BestFit.choose(durations: [huge, huge, 240_000], targetMs: 900_000).indices == [2])
        let result = BestFit.choose(durations: [huge - 1, huge], targetMs: Int.max)
        #expect(result.indices == [0])
        #expect(result.differenceMs == -1)
        // A huge target with huge songs: no crash; the grid is years wide there, so either song
        // near the target will do (7 ms under or 3 ms over).
        let big = BestFit.choose(durations: [huge / 2, huge / 2 + 10, huge / 3], targetMs: huge / 2 + 7)
        #expect(big.indices.count == 1 && abs(big.differenceMs) <= 7)
    }

    @Test func manySongsLandWithinASecond() {
        var random = SplitMix64(seed: 7)
        let durations = (0..<2_000).map { _ in random.next(in: 90_000...420_000) }
        for target in [900_000, 1_500_000, 3_600_000] {
            let result = BestFit.choose(durations: durations, targetMs: target)
            #expect(abs(result.differenceMs) <= 1_000, "\(target): \(result.summary)")
            #expect(result.indices == result.indices.sorted())
            #expect(result.totalMs == result.indices.reduce(0) { $0 + durations[$1] })
        }
    }

    @Test func aCoarseGridIsCorrectedInExactMilliseconds() {
        // Forced 1 s grid: 4.4 + 5.4 rounds to 4 + 5 = 9 s, and 10.2 s to 10: both candidates are
        // judged exactly.
        let result = BestFit.choose(durations: [4_400, 5_400, 10_200], targetMs: 10_000, gridMs: 1_000)
        #expect(result.indices == [2])
    }

    @Test func summaries() {
        #expect(
            BestFit.Result(indices: Array(0..<12), totalMs: 900_400, targetMs: 900_000).summary
                == "12 songs, 15:00.4, 0.4 s over")
        #expect(
            BestFit.Result(indices: [0], totalMs: 899_960, targetMs: 900_000).summary
                == "1 song, 14:59.9, 0.040 s under")
        #expect(
            BestFit.Result(indices: [0, 1], totalMs: 900_000, targetMs: 900_000).summary == "2 songs, 15:00.0, exactly")
        #expect(BestFit.Result(indices: [], totalMs: 0, targetMs: 1_000).summary == "0 songs, 0:00.0, 1.0 s under")
    }

    /// Long targets on big inputs: the coarse table's rounding no longer adds up
    /// to tens of seconds, and a million songs no longer round to nothing (an empty answer).
    @Test(arguments: [(10_000, 10 * 3_600_000), (100_000, 100 * 3_600_000), (1_000_000, 24 * 3_600_000)])
    func longTargetsOnBigInputsLandWithinASecond(count: Int, targetMs: Int) {
        var random = SplitMix64(seed: UInt64(count))
        let durations = (0..<count).map { _ in 120_000 + Int(random.next() % 240_000) }
        let fit = BestFit.choose(durations: durations, targetMs: targetMs)
        #expect(!fit.indices.isEmpty)
        #expect(abs(fit.differenceMs) <= 1_000, "\(fit.summary)")
        #expect(fit.indices == fit.indices.sorted(), "input order kept")
        #expect(fit.totalMs == fit.indices.reduce(0) { $0 + durations[$1] })
    }

    /// 1000 h picked 630.5 h and 5000 h picked 29.9 h from 100,000 songs; fill and swap
    /// lands within a second (exactly, here), with the songs in input order.
    @Test(arguments: [1_000, 5_000])
    func thousandsOfHoursFromAHundredThousandSongsLandWithinASecond(hours: Int) {
        var random = SplitMix64(seed: 37)
        let durations = (0..<100_000).map { _ in random.next(in: 90_000...420_000) }
        let target = hours * 3_600_000
        let fit = BestFit.choose(durations: durations, targetMs: target)
        #expect(abs(fit.differenceMs) <= 1_000, "\(fit.summary)")
        #expect(fit.indices == fit.indices.sorted() && Set(fit.indices).count == fit.indices.count)
        #expect(fit.totalMs == fit.indices.reduce(0) { $0 + durations[$1] })
        // About the fewest songs: not many more than the longest songs alone would need.
        var longest = durations.sorted(by: >)
        var fewest = 0
        var total = 0
        while total < target {
            total += longest.removeFirst()
            fewest += 1
        }
        #expect(fit.indices.count <= fewest + 2, "\(fit.indices.count) songs; the longest need \(fewest)")
    }

    /// When the songs together fall short, every one of them is taken (not a few hundred).
    @Test func songsThatFallShortAreAllTaken() {
        var random = SplitMix64(seed: 5)
        let durations = (0..<30_000).map { _ in random.next(in: 90_000...420_000) } + [0, -5]
        let fit = BestFit.choose(durations: durations, targetMs: 5_000 * 3_600_000)
        #expect(fit.indices == Array(0..<30_000), "every song with a duration")
        #expect(fit.totalMs == durations.filter { $0 > 0 }.reduce(0, +))
        var input = BestFit.Input()
        for duration in durations { input.add(duration) }
        let pick = BestFit.choose(input, targetMs: 5_000 * 3_600_000)
        #expect(pick.selection == .all && pick.songs == 30_000)
        #expect(pick.shortByMs == 5_000 * 3_600_000 - fit.totalMs)
    }

    /// Read one song at a time, the choice keeps a count by duration, not the songs: its size does
    /// not grow with their number.
    @Test func whatIsKeptIsBoundedWhateverTheNumberOfSongs() {
        var random = SplitMix64(seed: 11)
        var input = BestFit.Input()
        for _ in 0..<1_000_000 { input.add(random.next(in: 60_000...600_000)) }
        input.add(3 * 3_600_000)  // a three-hour mix, past the histogram's array
        #expect(input.count == 1_000_001)
        #expect(input.prefix.count == BestFit.tableSongs)
        #expect(input.histogram.counts.count <= DurationHistogram.limit)
        #expect(input.histogram.long == [3 * 3_600_000: 1])
        let pick = BestFit.choose(input, targetMs: 20_000 * 3_600_000)
        #expect(pick.totalMs.distance(to: 20_000 * 3_600_000).magnitude <= 1_000, "\(pick.summary)")
        // The second read takes exactly the songs counted.
        var filter = pick.filter
        var again = SplitMix64(seed: 11)
        var taken = 0
        var total = 0
        for _ in 0..<1_000_000 {
            let duration = again.next(in: 60_000...600_000)
            if filter.takes(duration) {
                taken += 1
                total += duration
            }
        }
        if filter.takes(3 * 3_600_000) {
            taken += 1
            total += 3 * 3_600_000
        }
        #expect(taken == pick.songs && total == pick.totalMs)
    }
}

/// Lists of up to 25,000 songs, exact and streamed: minutes of CPU in a debug build on a loaded
/// machine, so out of the pure inner loop (`make test-small`).
@Suite(.tags(.medium)) struct BestFitStressTests {
    /// Small inputs keep the exact table's answer; streamed, the same songs are chosen.
    @Test func streamedChoicesMatchTheWholeList() {
        var random = SplitMix64(seed: 3)
        for round in 0..<12 {
            let count = [5, 200, 1_000, 25_000][round % 4]
            let durations = (0..<count).map { _ in random.next(in: 0...480_000) }
            let target = random.next(in: 60_000...(count * 200_000))
            let whole = BestFit.choose(durations: durations, targetMs: target)
            var input = BestFit.Input()
            for duration in durations { input.add(duration) }
            let pick = BestFit.choose(input, targetMs: target)
            var filter = pick.filter
            #expect(durations.indices.filter { filter.takes(durations[$0]) } == whole.indices, "round \(round)")
            #expect(pick.songs == whole.indices.count && pick.totalMs == whole.totalMs)
            if count >= 1_000 { #expect(abs(whole.differenceMs) <= 1_000, "round \(round): \(whole.summary)") }
        }
    }
}
