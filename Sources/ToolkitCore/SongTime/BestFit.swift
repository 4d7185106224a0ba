// Best fit: the songs, in input order, whose total comes closest to a target
// (`songcount --target 15m --best-fit`).

/// Picks a subsequence of songs whose total duration is closest to a target.
///
/// Rules, in order: the smallest distance |total − target|; then the fewest songs; then the
/// earliest songs (the picked positions compared in order, lexicographically: {0, 5} before
/// {1, 2}). The picked songs keep their input order. Durations ≤ 0 are never picked (they
/// cannot bring the total closer, and fewer songs win), nor is a song longer than any useful
/// total (see below).
///
/// Algorithm: subset sum by dynamic programming over durations rounded to a grid of `gridMs`.
/// - Only totals below `min(target + longest, 2 × target)` can win: a total of 2 × target or
///   more is no closer than no songs at all, and a total over target that still exceeds it
///   after dropping its shortest song loses to that smaller set. That bounds the table.
/// - The grid is 1 ms (exact) when songs × cells stays within a work budget (`workBudget`),
///   and otherwise the smallest step that fits it (about 100 ms for 10,000 songs and 15
///   minutes): each song's rounding error is at most half a step.
/// - Rows run from the last song to the first: `fewest[i][s]` is the fewest songs among
///   songs i... whose grid total is exactly s. Reading forward, taking song i whenever a
///   fewest set for the rest exists with it gives the fewest set that is also earliest.
///   Only every √n-th row is kept; a block of rows is recomputed from its checkpoint when
///   the forward walk reaches it, so memory is O(√n × cells) and the work two passes.
/// - A few grid totals closest to the target are reconstructed and compared by their exact
///   millisecond totals under the rules above. On the 1 ms grid that is exact.
///
/// Pure, no I/O. Total arithmetic saturates; huge durations (near `Int.max`) are safe.
package enum BestFit {
    /// What was picked: positions into the input, in order, and their exact total.
    package struct Result: Sendable, Equatable {
        package var indices: [Int]
        var totalMs: Int
        package var targetMs: Int

        package init(indices: [Int], totalMs: Int, targetMs: Int) {
            self.indices = indices
            self.totalMs = totalMs
            self.targetMs = targetMs
        }

        /// total − target (negative: under); saturating.
        var differenceMs: Int {
            let (value, overflow) = totalMs.subtractingReportingOverflow(targetMs)
            return overflow ? (totalMs > targetMs ? Int.max : Int.min) : value
        }

        /// "12 songs, 15:00.4, 0.4 s over" (or "under", or "exactly").
        package var summary: String { summary(songs: indices.count) }

        func summary(songs: Int) -> String {
            let difference = differenceMs
            let distance: String
            if difference == 0 {
                distance = "exactly"
            } else {
                let magnitude = difference == Int.min ? Int.max : abs(difference)
                distance = "\(formatSeconds(magnitude)) s \(difference > 0 ? "over" : "under")"
            }
            return "\(plural(songs, "song")), \(formatClockTenths(totalMs)), \(distance)"
        }
    }

    /// Cell updates allowed per pass (songs × grid cells).
    static let workBudget = 120_000_000
    /// Bytes the kept rows may take.
    static let memoryBudget = 64 << 20

    /// The best fit of `durations` (milliseconds, in input order) to `targetMs`, as `choose` picks
    /// it for songs read one at a time. `gridMs`: force the table's grid step (tests).
    package static func choose(durations: [Int], targetMs: Int, gridMs: Int? = nil) -> Result {
        var input = Input()
        for duration in durations { input.add(duration) }
        var filter = choose(input, targetMs: targetMs, gridMs: gridMs).filter
        let indices = durations.indices.filter { filter.takes(durations[$0]) }
        var total = 0
        for index in indices { total = total.saturatingPlus(durations[index]) }
        return Result(indices: indices, totalMs: total, targetMs: targetMs)
    }

    /// The table's best fit of `durations` (milliseconds, in input order) to `targetMs`.
    /// `gridMs`: force a grid step (tests); nil chooses one as described above.
    static func table(durations: [Int], targetMs: Int, gridMs: Int? = nil) -> Result {
        let none = Result(indices: [], totalMs: 0, targetMs: targetMs)
        guard targetMs > 0 else { return none }
        // Totals from `limit` up are never better than the empty set or a subset of themselves.
        let candidates = durations.indices.filter { durations[$0] > 0 && durations[$0] < targetMs.saturatingTimes2 }
        guard let longest = candidates.map({ durations[$0] }).max() else { return none }
        let limit = min(targetMs.saturatingTimes2, targetMs.saturatingPlus(longest))
        let allSongs = candidates.filter { durations[$0] < limit }
        guard !allSongs.isEmpty else { return none }

        // The table takes the earliest songs only (earlier ones win ties anyway), so its grid stays
        // fine enough for songs not to round to nothing; `refined` then works with all of them.
        let songs = Array(allSongs.prefix(tableSongs))
        let rowsKept = Checkpoints.rowsKept(songs: songs.count)
        let maxCells = max(16, min(workBudget / songs.count, memoryBudget / (4 * rowsKept)))
        let grid = max(1, gridMs ?? (limit / maxCells + (limit % maxCells == 0 ? 0 : 1)))
        let cells = limit / grid + 2  // grid totals 0...limit/grid+1 (rounding up may pass limit)
        let weights = songs.map { rounded(durations[$0], grid: grid) }

        var table = Checkpoints(weights: weights, cells: cells)
        let first = table.firstRow()

        // Grid totals nearest the target, to reconstruct and judge exactly.
        let targetCell = Double(targetMs) / Double(grid)
        var reachable: [(distance: Double, cell: Int)] = []
        for cell in 0..<cells where first[cell] < Checkpoints.unreachable {
            reachable.append((abs(Double(cell) - targetCell), cell))
        }
        reachable.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.cell < $1.cell }
        let keep = grid == 1 ? 2 : 12
        let chosenCells = reachable.prefix(keep).map(\.cell)
        let picks = table.reconstruct(cells: chosenCells, counts: chosenCells.map { Int(first[$0]) })

        var best = none
        for pick in picks {
            let indices = pick.map { songs[$0] }
            var total = 0
            for index in indices { total = total.saturatingPlus(durations[index]) }
            let result = Result(indices: indices, totalMs: total, targetMs: targetMs)
            if isBetter(result, than: best) { best = result }
        }
        // On a coarse grid each song's rounding adds up: the last seconds are fitted exactly by
        // moves over every song (10,000 songs at 10 h ended 42.7 s off; a million at 24 h
        // picked nothing).
        return grid == 1 && songs.count == allSongs.count
            ? best : refined(best, durations: durations, songs: allSongs, targetMs: targetMs)
    }

    /// Songs the table takes at most (the earliest); the rest only enter through `refined`.
    static let tableSongs = 20_000
    /// Moves `refined` makes at most.
    static let maxMoves = 256

    /// `start` improved by single moves, each the one that brings the total closest to the target:
    /// add a song, drop one, or swap one picked for one not picked (found by binary search over
    /// the unpicked songs sorted by duration). Stops when no move gets closer. Exact milliseconds.
    static func refined(_ start: Result, durations: [Int], songs: [Int], targetMs: Int) -> Result {
        var picked = Set(start.indices)
        var total = start.totalMs
        // The songs not picked, by duration (then position): a sorted array, kept sorted.
        var pool = songs.filter { !picked.contains($0) }.map { (durations[$0], $0) }.sorted { $0 < $1 }
        func nearest(to wanted: Int) -> Int? {
            guard !pool.isEmpty else { return nil }
            var low = 0
            var high = pool.count
            while low < high {
                let middle = (low + high) / 2
                if pool[middle].0 < wanted { low = middle + 1 } else { high = middle }
            }
            let below = low > 0 ? low - 1 : nil
            let above = low < pool.count ? low : nil
            switch (below, above) {
            case (let b?, let a?): return wanted - pool[b].0 <= pool[a].0 - wanted ? b : a
            case (let b?, nil): return b
            case (nil, let a?): return a
            default: return nil
            }
        }
        func distance(_ value: Int) -> UInt { value.subtractingReportingOverflow(targetMs).partialValue.magnitude }
        for _ in 0..<maxMoves {
            let now = distance(total)
            guard now > 0 else { break }
            var bestMove: (distance: UInt, drop: Int?, add: Int?)? = nil
            func consider(_ newTotal: Int, drop: Int?, add: Int?) {
                let d = distance(newTotal)
                if d < now && d < (bestMove?.distance ?? UInt.max) { bestMove = (d, drop, add) }
            }
            // Add one: the unpicked song nearest the shortfall.
            if let b = nearest(to: targetMs.saturatingMinus(total)) {
                consider(total.saturatingPlus(pool[b].0), drop: nil, add: b)
            }
            for a in picked {
                let without = total.saturatingMinus(durations[a])
                consider(without, drop: a, add: nil)
                if let b = nearest(to: targetMs.saturatingMinus(without)) {
                    consider(without.saturatingPlus(pool[b].0), drop: a, add: b)
                }
            }
            guard let move = bestMove else { break }
            if let b = move.add {
                let (duration, index) = pool.remove(at: b)
                picked.insert(index)
                total = total.saturatingPlus(duration)
            }
            if let a = move.drop {
                picked.remove(a)
                total = total.saturatingMinus(durations[a])
                let entry = (durations[a], a)
                let at = pool.firstIndex { $0 > entry } ?? pool.count
                pool.insert(entry, at: at)
            }
        }
        let result = Result(indices: picked.sorted(), totalMs: total, targetMs: targetMs)
        return isBetter(result, than: start) ? result : start
    }

    /// The rules: closer, then fewer, then earlier.
    static func isBetter(_ a: Result, than b: Result) -> Bool {
        let da = a.differenceMs.magnitude
        let db = b.differenceMs.magnitude
        if da != db { return da < db }
        if a.indices.count != b.indices.count { return a.indices.count < b.indices.count }
        return a.indices.lexicographicallyPrecedes(b.indices)
    }

    /// `value` ÷ `grid`, rounded to nearest (halves up), without overflow.
    static func rounded(_ value: Int, grid: Int) -> Int {
        value / grid + (value % grid >= grid - grid / 2 ? 1 : 0)
    }

    /// The backward table `fewest[i][cell]`, kept at every `block`-th row, and the forward walk.
    struct Checkpoints {
        /// Far above any count, and still room for `+ 1` (so the update needs no branch).
        static let unreachable = UInt32(1 << 30)
        let weights: [Int]
        let cells: Int
        let block: Int
        /// Row `k × block` (and row 0 last), each `cells` long.
        var kept: [Int: [UInt32]] = [:]

        static func rowsKept(songs: Int) -> Int {
            let block = blockSize(songs)
            return songs / block + 2 + block
        }

        static func blockSize(_ songs: Int) -> Int {
            var block = 1
            while block * block < songs { block += 1 }
            return block
        }

        init(weights: [Int], cells: Int) {
            self.weights = weights
            self.cells = cells
            self.block = Self.blockSize(weights.count)
        }

        /// Row `i` from row `i + 1`, in place: take song i or not.
        static func step(_ row: inout [UInt32], weight: Int) {
            guard weight > 0 else { return }  // a song rounded to 0 never makes a set smaller
            let count = row.count
            guard weight < count else { return }
            row.withUnsafeMutableBufferPointer { cells in
                var cell = count - 1
                while cell >= weight {
                    cells[cell] = min(cells[cell], cells[cell - weight] + 1)
                    cell -= 1
                }
            }
        }

        /// Runs the backward pass, keeping checkpoints; returns row 0.
        mutating func firstRow() -> [UInt32] {
            var row = [UInt32](repeating: Self.unreachable, count: cells)
            row[0] = 0
            let n = weights.count
            kept[n] = row
            for i in stride(from: n - 1, through: 0, by: -1) {
                Self.step(&row, weight: weights[i])
                if i % block == 0 { kept[i] = row }
            }
            return row
        }

        /// For each (cell, fewest count) of row 0, the fewest, earliest song positions (into
        /// `weights`) with exactly that grid total.
        func reconstruct(cells targets: [Int], counts: [Int]) -> [[Int]] {
            var remaining = targets
            var needed = counts
            var picks = [[Int]](repeating: [], count: targets.count)
            let n = weights.count
            var start = 0
            while start < n {
                let end = min(start + block, n)
                // Rows start+1 ... end, from the checkpoint at `end` (kept: end is a multiple of block, or n).
                var rows = [[UInt32]](repeating: [], count: end - start)
                var row = kept[end] ?? []
                rows[end - start - 1] = row
                for i in stride(from: end - 1, to: start, by: -1) {
                    Self.step(&row, weight: weights[i])
                    rows[i - start - 1] = row
                }
                for i in start..<end {
                    let next = rows[i - start]  // row i + 1
                    let weight = weights[i]
                    for k in targets.indices where needed[k] > 0 && weight > 0 && remaining[k] >= weight {
                        if Int(next[remaining[k] - weight]) == needed[k] - 1 {
                            picks[k].append(i)
                            remaining[k] -= weight
                            needed[k] -= 1
                        }
                    }
                }
                start = end
            }
            return picks
        }
    }
}

extension Int {
    fileprivate var saturatingTimes2: Int { saturatingPlus(self) }

    func saturatingMinus(_ other: Int) -> Int {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? Int.min : Int.max) : value
    }

    func saturatingPlus(_ other: Int) -> Int {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? Int.max : Int.min) : value
    }
}

/// Seconds with one decimal, rounded to nearest: 400 → "0.4", 12_340 → "12.3"; below a tenth,
/// milliseconds: 40 → "0.040".
func formatSeconds(_ milliseconds: Int) -> String {
    if milliseconds < 100 { return milliseconds < 10 ? "0.00\(milliseconds)" : "0.0\(milliseconds)" }
    let tenths = milliseconds / 100 + (milliseconds % 100 >= 50 ? 1 : 0)
    return "\(tenths / 10).\(tenths % 10)"
}

/// A clock with tenths of a second, rounded down: 900_400 → "15:00.4".
func formatClockTenths(_ milliseconds: Int) -> String {
    let tenth = max(0, milliseconds) % 1000 / 100
    return formatClock(milliseconds: milliseconds) + ".\(tenth)"
}
