/// Range moves that put a permutation in order by moving blocks, not single items: Spotify's
/// reorder (`range_start`, `range_length`, `insert_before`) swaps two adjacent blocks in one
/// request, which is a transposition in the sense of sorting by transpositions. Pure: no I/O.
///
/// The plan works on the cycle graph of Bafna and Pevzner. The n + 1 gaps of the permutation
/// (before the first item, between two items, after the last) are mapped to one another by
/// `next(g)`: the gap just after the item whose rank is one less than the rank right after g. Sorted,
/// every gap maps to itself. A block move touches three gaps, and when those three lie on one cycle
/// in the right orientation and spacing it splits that cycle into three odd ones (a "2-move"),
/// raising the count of odd cycles by 2. As sorted has n + 1 odd cycles, a plan needs at least
/// (n + 1 − odd cycles) / 2 moves; that is the lower bound the plan is measured against.
///
/// Each step takes a 2-move when there is one: first one that also puts two items next to each
/// other for good (cheap to find on a shuffled list), else any, found in O(m log m) for a cycle of
/// m gaps with two monotonic stacks. When none exists (a reversal leaves such states), one move
/// puts the first item out of place where it belongs, with the run that follows it. A shuffled
/// list takes about the lower bound (n/2), a reversal about 3n/4; the caller keeps the
/// single-item plan when it is shorter, so nothing gets worse.
enum BlockMoves {
    /// One block move, as gaps `i < j < k`: the items between gaps i and j swap places with those
    /// between gaps j and k (positions `i..<j` and `j..<k`).
    struct Move: Equatable {
        var i: Int
        var j: Int
        var k: Int
    }

    /// The moves that sort `ranks` (a permutation of 0..<n), or nil when they would pass `limit`.
    static func plan(_ ranks: [Int], limit: Int) -> [Move]? {
        var state = State(ranks)
        var moves: [Move] = []
        while let move = state.nextMove() {
            guard moves.count < limit else { return nil }
            moves.append(move)
            state.apply(move)
        }
        return moves
    }

    /// The fewest block moves any plan can take for `ranks`: (n + 1 − odd cycles) / 2.
    static func lowerBound(_ ranks: [Int]) -> Int {
        var state = State(ranks)
        state.buildCycles()
        let odd = state.cycleStarts.indices.dropLast().count {
            (state.cycleStarts[$0 + 1] - state.cycleStarts[$0]) % 2 == 1
        }
        return (ranks.count + 1 - odd) / 2
    }

    struct State {
        var ranks: [Int]
        /// `position[r]`: where rank r is now.
        var position: [Int]
        /// The cycles, one after another (gaps in `next` order), and where each begins (plus the end).
        var cycles: [Int] = []
        var cycleStarts: [Int] = []
        /// Work a quick search may do in one step before the thorough one runs.
        var quickBudget: Int

        init(_ ranks: [Int]) {
            self.ranks = ranks
            position = [Int](repeating: 0, count: ranks.count)
            for (index, rank) in ranks.enumerated() { position[rank] = index }
            quickBudget = 4 * (ranks.count + 1)
        }

        /// The gap after the item of rank one less than the item after `gap` (the gap before the
        /// first item, for rank 0).
        func next(_ gap: Int) -> Int {
            let rank = gap < ranks.count ? ranks[gap] : ranks.count
            return rank == 0 ? 0 : position[rank - 1] + 1
        }

        mutating func buildCycles() {
            let gaps = ranks.count + 1
            cycles.removeAll(keepingCapacity: true)
            cycleStarts.removeAll(keepingCapacity: true)
            var seen = [Bool](repeating: false, count: gaps)
            for start in 0..<gaps where !seen[start] {
                cycleStarts.append(cycles.count)
                var gap = start
                while !seen[gap] {
                    seen[gap] = true
                    cycles.append(gap)
                    gap = next(gap)
                }
            }
            cycleStarts.append(cycles.count)
        }

        /// The next move, or nil when sorted.
        mutating func nextMove() -> Move? {
            buildCycles()
            let count = cycleStarts.count - 1
            if count == ranks.count + 1 { return nil }  // every gap its own cycle: sorted
            // Longest cycles first: they hold most of what is left to do.
            var lengths: [(length: Int, cycle: Int)] = []
            for cycle in 0..<count {
                let length = cycleStarts[cycle + 1] - cycleStarts[cycle]
                if length >= 3 { lengths.append((length, cycle)) }
            }
            lengths.sort { $0.length > $1.length }
            let order = lengths.map(\.cycle)
            var budget = quickBudget
            for cycle in order {
                let gaps = cycles[cycleStarts[cycle]..<cycleStarts[cycle + 1]]
                if let move = Self.quickTwoMove(Array(gaps), budget: &budget) { return move }
                if budget <= 0 { break }
            }
            for cycle in order {
                if let move = Self.twoMove(Array(cycles[cycleStarts[cycle]..<cycleStarts[cycle + 1]])) {
                    return move
                }
            }
            return firstInPlace()
        }

        /// Gaps a, b, c met in this order around a cycle, in cyclically decreasing value: the
        /// orientation in which a move on them splits the cycle.
        static func decreasing(_ a: Int, _ b: Int, _ c: Int) -> Bool {
            (a > b && b > c) || (b > c && c > a) || (c > a && a > b)
        }

        static func move(_ a: Int, _ b: Int, _ c: Int) -> Move {
            let low = min(a, b, c)
            let high = max(a, b, c)
            return Move(i: low, j: a + b + c - low - high, k: high)
        }

        /// A 2-move whose first two gaps follow each other on the cycle (so it joins two items
        /// for good), looking at most `budget` triples.
        static func quickTwoMove(_ cycle: [Int], budget: inout Int) -> Move? {
            let m = cycle.count
            for p in 0..<m {
                let a = cycle[p]
                let b = cycle[(p + 1) % m]
                // The third gap an odd number of steps on: every arc odd (m odd) or two of three (m even).
                var r = p + 2
                while r < p + m {
                    budget -= 1
                    if budget <= 0 { return nil }
                    let c = cycle[r % m]
                    if decreasing(a, b, c) { return move(a, b, c) }
                    r += 2
                }
            }
            return nil
        }

        /// Any 2-move on the cycle, or nil: for each gap Q, the nearest gap P before it with a
        /// larger value and the nearest R after it with a smaller one, at each parity of distance;
        /// P, Q, R split the cycle when they fit in one turn with arcs of the right parities (all
        /// odd when m is odd, not both P→Q and Q→R even when m is even). O(m log m).
        /// How many entries of `stack`, from the bottom, `holds` is true for: it holds for a bottom
        /// part and for none above it. A binary search.
        static func bottomPart(of stack: [Int], where holds: (Int) -> Bool) -> Int {
            var low = 0
            var high = stack.count
            while low < high {
                let middle = (low + high) / 2
                if holds(stack[middle]) { low = middle + 1 } else { high = middle }
            }
            return low
        }

        static func twoMove(_ cycle: [Int]) -> Move? {
            let m = cycle.count
            guard m >= 3 else { return nil }
            // back[s][q]: the distance to the nearest larger gap before q at distance parity s (0: none).
            var back = [[Int]](repeating: [Int](repeating: 0, count: m), count: 2)
            var stacks: [[Int]] = [[], []]  // linear indices; values strictly decreasing bottom to top
            for t in 0..<(2 * m) {
                let value = cycle[t % m]
                if t >= m {
                    for s in 0...1 {
                        let stack = stacks[(t + s) % 2]
                        // The topmost entry above value: entries above value form the bottom part.
                        let low = bottomPart(of: stack) { cycle[$0 % m] > value }
                        if low > 0 {
                            let distance = t - stack[low - 1]
                            if distance <= m - 2 { back[s][t - m] = distance }
                        }
                    }
                }
                let own = t % 2
                while let top = stacks[own].last, cycle[top % m] <= value { stacks[own].removeLast() }
                stacks[own].append(t)
            }
            stacks = [[], []]  // now values strictly increasing bottom to top
            var forward = [[Int]](repeating: [Int](repeating: 0, count: m), count: 2)
            for t in stride(from: 2 * m - 1, through: 0, by: -1) {
                let value = cycle[t % m]
                if t < m {
                    for s in 0...1 {
                        let stack = stacks[(t + s) % 2]
                        let low = bottomPart(of: stack) { cycle[$0 % m] < value }
                        if low > 0 {
                            let distance = stack[low - 1] - t
                            if distance <= m - 2 { forward[s][t] = distance }
                        }
                    }
                }
                let own = t % 2
                while let top = stacks[own].last, cycle[top % m] >= value { stacks[own].removeLast() }
                stacks[own].append(t)
            }
            let pairs = m % 2 == 1 ? [(1, 1)] : [(1, 1), (1, 0), (0, 1)]
            for q in 0..<m {
                for (s1, s2) in pairs {
                    let d1 = back[s1][q]
                    let d2 = forward[s2][q]
                    if d1 > 0 && d2 > 0 && d1 + d2 <= m - 1 {
                        return move(cycle[(q - d1 + m) % m], cycle[q], cycle[(q + d2) % m])
                    }
                }
            }
            return nil
        }

        /// The first item out of place moved where it belongs, with the run of ranks that follows it.
        func firstInPlace() -> Move? {
            guard let first = ranks.indices.first(where: { ranks[$0] != $0 }) else { return nil }
            let from = position[first]
            var end = from + 1
            while end < ranks.count && ranks[end] == ranks[end - 1] + 1 { end += 1 }
            return Move(i: first, j: from, k: end)
        }

        /// Swaps the blocks `i..<j` and `j..<k` in place.
        mutating func apply(_ move: Move) {
            PlaylistEditPlan.rotate(&ranks, low: move.i, middle: move.j, high: move.k)
            for index in move.i..<move.k { position[ranks[index]] = index }
        }
    }
}
