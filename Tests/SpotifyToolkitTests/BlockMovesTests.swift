import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// The block-move planner: every plan reaches the wanted order exactly with every entry kept (its
/// date added), and it takes about half the requests of moving entries one by one.
@Suite(.tags(.small)) struct BlockMovesTests {
    /// Every permutation of 0..<n (Heap's algorithm).
    static func permutations(_ n: Int) -> [[Int]] {
        var result: [[Int]] = []
        var items = Array(0..<n)
        func generate(_ k: Int) {
            if k <= 1 {
                result.append(items)
                return
            }
            for i in 0..<k {
                generate(k - 1)
                items.swapAt(k % 2 == 0 ? i : 0, k - 1)
            }
        }
        generate(n)
        return result
    }

    /// The ranks of `current`'s entries in `wanted` (both orders of the same distinct URIs).
    static func ranks(_ current: [String], _ wanted: [String]) -> [Int] {
        var rank: [String: Int] = [:]
        for (index, uri) in wanted.enumerated() { rank[uri] = index }
        return current.map { rank[$0]! }
    }

    /// Sorts `ranks` by the moves, checking each one is a real swap of two non-empty blocks.
    static func sorted(_ ranks: [Int], by moves: [BlockMoves.Move], sourceLocation: SourceLocation = #_sourceLocation)
        -> [Int]
    {
        var list = ranks
        for move in moves {
            #expect(
                0 <= move.i && move.i < move.j && move.j < move.k && move.k <= ranks.count, "\(move)",
                sourceLocation: sourceLocation)
            list = Array(list[..<move.i] + list[move.j..<move.k] + list[move.i..<move.j] + list[move.k...])
        }
        return list
    }

    @Test func everyPermutationUpToSevenReachesItsOrderWithEveryDateKept() {
        for n in 0...7 {
            let current = (0..<n).map { "t\($0)" }
            for permutation in Self.permutations(n) {
                let wanted = permutation.map { current[$0] }
                let (plan, after) = PlaylistEditPlanTests.check(current, wanted)
                #expect(after.map(\.serial) == permutation, "every entry is the one it was: \(permutation)")
                let ranks = Self.ranks(current, wanted)
                let single = PlaylistEditPlan.singleMoves(ranks).count
                #expect(plan.moveRequests <= single, "never more than one by one: \(permutation)")
                #expect(plan.moveRequests >= BlockMoves.lowerBound(ranks), "\(permutation)")
                #expect(plan.movedEntries == n - PlaylistEditPlanTests.lisLength(ranks.map { $0 }))
            }
        }
    }

    @Test func everyPermutationUpToSixWithLocalFilesKeepsThemAfterTheirNeighbour() {
        for n in 1...6 {
            let current: [String?] = (0..<n).map { "t\($0)" } + [nil]
            for permutation in Self.permutations(n) {
                var holes: [String?] = current
                holes.insert(nil, at: permutation[0])  // a second local file somewhere
                let wanted = permutation.map { "t\($0)" }
                PlaylistEditPlanTests.check(holes, wanted)
            }
        }
    }

    @Test func thePlannerAloneSortsEveryPermutationUpToSeven() {
        for n in 0...7 {
            for permutation in Self.permutations(n) {
                let moves = BlockMoves.plan(permutation, limit: n + 1)
                #expect(moves != nil, "\(permutation)")
                #expect(Self.sorted(permutation, by: moves ?? []) == Array(0..<n), "\(permutation)")
            }
        }
    }

    /// Shuffled lists come within a few moves of the lower bound, about half of one by one.
    @Test(arguments: [(60, 1), (500, 2), (1_000, 3)])
    func shuffledListsTakeAboutHalf(count: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let current = (0..<count).map { "spotify:track:\($0)" }
        let wanted = current.shuffled(using: &random)
        let (plan, after) = PlaylistEditPlanTests.check(current.map { $0 }, wanted)
        #expect(after.map(\.uri) == wanted)
        let ranks = Self.ranks(current, wanted)
        let bound = BlockMoves.lowerBound(ranks)
        let single = PlaylistEditPlan.singleMoves(ranks).count
        #expect(plan.moveRequests >= bound)
        #expect(plan.moveRequests <= bound + bound / 50 + 5, "\(plan.moveRequests) moves, lower bound \(bound)")
        #expect(plan.moveRequests * 10 <= single * (count < 500 ? 7 : 6), "\(plan.moveRequests) against \(single)")
        let outOfOrder = count - PlaylistEditPlan.longestIncreasingSubsequence(ranks).count
        #expect(plan.movedEntries == outOfOrder, "n − LIS entries change place, however they move")
    }

    /// A reversal took n − 1 moves one by one; block moves take about 3n/4 (the fewest: n/2 + 1).
    @Test(arguments: [2, 3, 10, 51, 300])
    func aReversalTakesAboutThreeQuarters(count: Int) {
        let current = (0..<count).map { "t\($0)" }
        let (plan, after) = PlaylistEditPlanTests.check(current, current.reversed())
        #expect(after.map(\.serial) == Array((0..<count).reversed()))
        #expect(plan.moveRequests >= count / 2 + (count >= 3 ? 1 : 0))
        #expect(plan.moveRequests <= 3 * count / 4 + 2, "\(plan.moveRequests) moves")
        #expect(plan.movedEntries == count - 1)
    }

    /// Sorts that are nearly done stay cheap: one item out of place is one move, a run is one move.
    @Test func nearlySortedListsTakeTheFewest() {
        var random = SplitMix64(seed: 9)
        for _ in 0..<200 {
            let count = 2 + Int(random.next() % 40)
            var ranks = Array(0..<count)
            let from = Int(random.next() % UInt64(count))
            let length = 1 + Int(random.next() % UInt64(count - from))
            let block = Array(ranks[from..<from + length])
            ranks.removeSubrange(from..<from + length)
            ranks.insert(contentsOf: block, at: Int(random.next() % UInt64(ranks.count + 1)))
            let moves = BlockMoves.plan(ranks, limit: count)
            #expect(moves.map { $0.count <= 1 } == true, "\(ranks)")
            #expect(Self.sorted(ranks, by: moves ?? []) == Array(0..<count))
        }
    }

    /// Moves with duplicates, removals, inserts and pinned entries around them, at random.
    @Test func randomEditsAroundBlockMovesStayExact() {
        var random = SplitMix64(seed: 37)
        for round in 0..<300 {
            let size = Int(random.next() % 120)
            let current: [String?] = (0..<size).map { _ in
                random.next() % 12 == 0 ? nil : "u\(random.next() % UInt64(1 + size))"
            }
            var wanted = current.compactMap { $0 }.filter { _ in random.next() % 8 != 0 }
            wanted.shuffle(using: &random)
            if round % 3 == 0 { wanted.insert("new", at: Int(random.next() % UInt64(wanted.count + 1))) }
            PlaylistEditPlanTests.check(current, wanted)
        }
    }

    /// A move carried out in place is the same as taking the range out and putting it back.
    @Test func inPlaceMovesMatchTakingTheRangeOut() {
        let list: [String?] = (0..<10).map { "t\($0)" }
        for start in 0..<10 {
            for length in 1...(10 - start) {
                for insertBefore in 0...10 where !(start + 1..<start + length).contains(insertBefore) {
                    var moved = list
                    PlaylistEditPlan.apply(
                        .move(start: start, insertBefore: insertBefore, length: length), to: &moved, uri: { $0 },
                        make: { $0 })
                    var expected = list
                    let run = Array(expected[start..<start + length])
                    expected.removeSubrange(start..<start + length)
                    expected.insert(contentsOf: run, at: insertBefore > start ? insertBefore - length : insertBefore)
                    #expect(moved == expected, "\(start) \(length) \(insertBefore)")
                }
            }
        }
    }
}
