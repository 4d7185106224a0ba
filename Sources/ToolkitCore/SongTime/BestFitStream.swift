// Best fit over inputs of any size: what `songcount --best-fit` keeps while it reads (a
// histogram of durations, not the songs), the choice, and the rule that picks the songs on a
// second read of the input.

extension BestFit {
    /// What the choice needs of the songs, gathered one duration at a time in bounded memory: the
    /// durations of the first `tableSongs` songs (for the exact table), and a count of songs by
    /// duration for all of them (at most `DurationHistogram.limit` counters, whatever the count).
    package struct Input: Sendable {
        /// Songs added, durations ≤ 0 included (they are never picked, but they have a place).
        package private(set) var count = 0
        /// The total of the positive durations (saturating: see `overflowed`).
        package private(set) var totalMs = 0
        /// The total passed `Int.max`.
        var overflowed = false
        /// Songs with a positive duration.
        private(set) var positive = 0
        var prefix: [Int] = []
        var histogram = DurationHistogram()

        package init() {}

        package mutating func add(_ durationMs: Int) {
            count += 1
            if prefix.count < tableSongs { prefix.append(durationMs) }
            guard durationMs > 0 else { return }
            positive += 1
            let (sum, overflow) = totalMs.addingReportingOverflow(durationMs)
            overflowed = overflowed || overflow
            totalMs = overflow ? Int.max : sum
            histogram.add(durationMs)
        }
    }

    /// What was chosen: how many songs, their exact total, and how to tell them on a second read.
    package struct Pick: Sendable, Equatable {
        package enum Selection: Sendable, Equatable {
            /// Every song with a positive duration: together they fall short of the target (or just reach it).
            case all
            /// These songs, by their place among all songs added (sorted).
            case places([Int])
            /// By duration: every song of a duration in `low + 1 ... high`, and for the durations in
            /// `counts`, that many of them, the earliest.
            case byDuration(low: Int, high: Int, counts: [Int: Int])
        }
        package var selection: Selection
        package var songs: Int
        package var totalMs: Int
        package var targetMs: Int

        /// "12 songs, 15:00.4, 0.4 s over" (or "under", or "exactly").
        package var summary: String {
            Result(indices: [], totalMs: totalMs, targetMs: targetMs).summary(songs: songs)
        }

        /// How far the songs fall short of the target when they are every song and still under it.
        package var shortByMs: Int? {
            selection == .all && totalMs < targetMs ? targetMs.saturatingMinus(totalMs) : nil
        }

        /// The filter for the second read: songs fed in the order they were added.
        package var filter: Filter { Filter(selection) }
    }

    /// Tells the chosen songs on a second read: feed every song's duration in order, as added.
    package struct Filter: Sendable {
        let selection: Pick.Selection
        var place = 0
        var next = 0
        var taken: [Int: Int] = [:]

        init(_ selection: Pick.Selection) { self.selection = selection }

        package mutating func takes(_ durationMs: Int) -> Bool {
            defer { place += 1 }
            guard durationMs > 0 else { return false }
            switch selection {
            case .all: return true
            case .places(let places):
                guard next < places.count, places[next] == place else { return false }
                next += 1
                return true
            case .byDuration(let low, let high, let counts):
                if let quota = counts[durationMs] {
                    let used = taken[durationMs, default: 0]
                    guard used < quota else { return false }
                    taken[durationMs] = used + 1
                    return true
                }
                return durationMs > low && durationMs <= high
            }
        }
    }

    /// The best fit of the songs in `input` to `targetMs`. Every song when together they fall
    /// short; else the exact table where it is exact (up to `tableSongs` songs and a fine grid),
    /// and fill and swap, which is within a second of any target the songs can reach: the longest
    /// songs that fit, then the rest filled from the longest down, then one song taken out for
    /// two that close the gap exactly (or as near as there are). The closer wins, then the one
    /// with fewer songs; on a tie the table's (it also prefers the earliest songs).
    package static func choose(_ input: Input, targetMs: Int, gridMs: Int? = nil) -> Pick {
        guard targetMs > 0, input.positive > 0 else {
            return Pick(selection: .places([]), songs: 0, totalMs: 0, targetMs: targetMs)
        }
        if !input.overflowed && input.totalMs <= targetMs {
            return Pick(selection: .all, songs: input.positive, totalMs: input.totalMs, targetMs: targetMs)
        }
        let fill = fillAndSwap(input.histogram, targetMs: targetMs)
        // The table judges every song only when it holds them all; past that it is a second
        // opinion on the earliest, asked only when fill and swap missed.
        guard input.count <= tableSongs || fill.totalMs != targetMs else { return fill }
        let table = BestFit.table(durations: input.prefix, targetMs: targetMs, gridMs: gridMs)
        let tablePick = Pick(
            selection: .places(table.indices), songs: table.indices.count, totalMs: table.totalMs, targetMs: targetMs)
        let d1 = table.differenceMs.magnitude
        let d2 = fill.totalMs.subtractingReportingOverflow(targetMs).partialValue.magnitude
        if d2 < d1 || (d2 == d1 && fill.songs < tablePick.songs) { return fill }
        return tablePick
    }

    /// Fill and swap's first half: songs taken longest first while they fit. `counts`: how many are
    /// taken of each duration not wholly taken or left; `low + 1 ... high` are taken whole.
    struct GreedyFill {
        var counts: [Int: Int]
        var remaining: Int
        var songs: Int
        var low: Int
        var high: Int
    }

    static func greedyFill(_ histogram: DurationHistogram, targetMs: Int) -> GreedyFill {
        var counts: [Int: Int] = [:]  // durations not wholly taken or left: how many are taken
        var remaining = targetMs
        var songs = 0
        // Long songs (past the histogram's array) that fit, longest first.
        // (A song of twice the target or more is never closer than none: the table's rule too.)
        let useless = targetMs.saturatingPlus(targetMs)
        for (duration, count) in histogram.long.sorted(by: { $0.key > $1.key })
        where duration <= remaining && duration < useless {
            let taken = min(count, remaining / duration)
            counts[duration] = taken
            remaining -= taken * duration
            songs += taken
        }
        // Then every song of each duration from the longest that fits down, while all of them fit:
        // those are `low + 1 ... high`; the first duration that does not fit whole is `low`.
        let high = min(histogram.counts.count - 1, remaining)
        var low = 0
        var duration = high
        while duration > 0 {
            let count = histogram.count(duration)
            let taken = min(count, remaining / duration)
            remaining -= taken * duration
            songs += taken
            if taken < count {
                low = duration
                counts[duration] = taken
                break
            }
            duration -= 1
        }
        // The rest filled from the longest down: what is left is shorter than any song not taken.
        duration = low - 1
        while duration > 0 && remaining > 0 {
            let count = histogram.count(duration)
            if count > 0 && duration <= remaining {
                let taken = min(count, remaining / duration)
                counts[duration] = taken
                remaining -= taken * duration
                songs += taken
            }
            duration -= 1
        }
        return GreedyFill(counts: counts, remaining: remaining, songs: songs, low: low, high: high)
    }

    /// Fill and swap over the counts by duration (see `choose`).
    static func fillAndSwap(_ histogram: DurationHistogram, targetMs: Int) -> Pick {
        let greedy = greedyFill(histogram, targetMs: targetMs)
        var counts = greedy.counts
        let (remaining, low, high) = (greedy.remaining, greedy.low, greedy.high)
        var pick = Pick(
            selection: .byDuration(low: low, high: high, counts: counts), songs: greedy.songs,
            totalMs: targetMs - remaining, targetMs: targetMs)
        guard remaining > 0 else { return pick }

        func taken(_ duration: Int) -> Int {
            if let taken = counts[duration] { return taken }
            return duration > low && duration <= high ? histogram.count(duration) : 0
        }
        func left(_ duration: Int) -> Int { histogram.count(duration) - taken(duration) }
        // The best change so far: (distance, songs added, durations out, durations in).
        var best = (distance: remaining, added: 0, out: [Int](), into: [Int]())
        func consider(_ total: Int, out: [Int], into: [Int]) {
            let distance = total.subtractingReportingOverflow(targetMs).partialValue.magnitude
            let added = into.count - out.count
            if distance < UInt(best.distance) || (distance == UInt(best.distance) && added < best.added) {
                best = (Int(distance), added, out, into)
            }
        }
        let total = targetMs - remaining
        // One more song: the shortest not taken (it is longer than what is left).
        if remaining < histogram.counts.count - 1,
            let shortest = (remaining + 1..<histogram.counts.count).first(where: { left($0) > 0 })
        {
            consider(total + shortest, out: [], into: [shortest])
        }
        // One of the shortest songs taken out, for one or two that are not.
        var outs: [Int] = counts.filter { $0.value > 0 }.map(\.key).sorted()
        if outs.count < candidatesOut {
            var duration = low + 1
            while outs.count < candidatesOut && duration <= high {
                if histogram.count(duration) > 0 { outs.append(duration) }
                duration += 1
            }
        }
        for out in outs.prefix(candidatesOut) {
            if best.distance == 0 { break }
            guard remaining < histogram.counts.count else { break }  // no two songs are that long
            let wanted = remaining + out
            if wanted < histogram.counts.count && left(wanted) > 0 {
                consider(total - out + wanted, out: [out], into: [wanted])
                continue
            }
            // Two songs not taken whose sum comes closest to `wanted` (the song taken out counts
            // as not taken): two pointers over the durations.
            func free(_ duration: Int) -> Int { left(duration) + (duration == out ? 1 : 0) }
            var a = 1
            var b = min(wanted - 1, histogram.counts.count - 1)
            while a <= b {
                if free(a) == 0 {
                    a += 1
                    continue
                }
                if free(b) == 0 || (a == b && free(a) < 2) {
                    b -= 1
                    continue
                }
                let sum = a + b
                consider(total - out + sum, out: [out], into: [a, b])
                if sum == wanted { break }
                if sum < wanted { a += 1 } else { b -= 1 }
            }
        }
        guard !best.into.isEmpty else { return pick }
        for duration in best.out { counts[duration] = taken(duration) - 1 }
        for duration in best.into { counts[duration] = taken(duration) + 1 }
        pick.selection = .byDuration(low: low, high: high, counts: counts)
        pick.songs += best.added
        pick.totalMs = total - best.out.reduce(0, +) + best.into.reduce(0, +)
        return pick
    }

    /// Songs taken out that fill and swap tries to trade, the shortest taken first.
    static let candidatesOut = 8
}

/// How many songs have each duration, in milliseconds: an array up to `limit`, so its memory is
/// bounded whatever the number of songs, and the rare longer songs by value.
struct DurationHistogram: Sendable {
    /// Durations below this are counted in the array (about 35 minutes: 8 MiB at most).
    static let limit = 1 << 21
    var counts: [UInt32] = [0]
    var long: [Int: Int] = [:]

    mutating func add(_ duration: Int) {
        guard duration < Self.limit else {
            long[duration, default: 0] += 1
            return
        }
        if duration >= counts.count {
            // Grown in steps, up to the longest song seen.
            let size = min(Self.limit, max(duration + 1, counts.count * 2))
            counts.append(contentsOf: repeatElement(0, count: size - counts.count))
        }
        if counts[duration] < UInt32.max { counts[duration] += 1 }
    }

    func count(_ duration: Int) -> Int {
        duration >= 0 && duration < counts.count ? Int(counts[duration]) : long[duration] ?? 0
    }
}
