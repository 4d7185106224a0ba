import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// The least-change planner: whatever the input, applying the plan gives the
/// wanted list, entries that stay keep their identity (their date added), and the moves are the
/// fewest there can be.
@Suite(.tags(.small)) struct PlaylistEditPlanTests {
    /// An entry with an identity, as a playlist entry carries its date added.
    struct Entry: Equatable {
        var uri: String?
        var serial: Int
    }

    static func entries(_ uris: [String?]) -> [Entry] {
        uris.enumerated().map { Entry(uri: $0.element, serial: $0.offset) }
    }

    /// Applies the plan and checks what every plan must hold; returns the entries after.
    @discardableResult
    static func check(_ current: [String?], _ wanted: [String], sourceLocation: SourceLocation = #_sourceLocation)
        -> (PlaylistEditPlan, [Entry])
    {
        let plan = PlaylistEditPlan(from: current, to: wanted)
        var fresh = 1_000_000
        let after = plan.applied(to: entries(current), uri: \.uri) { uri in
            fresh += 1
            return Entry(uri: uri, serial: fresh)
        }
        #expect(after.map(\.uri) == plan.result, sourceLocation: sourceLocation)
        #expect(after.compactMap(\.uri) == wanted, sourceLocation: sourceLocation)
        #expect(after.count { $0.serial < 1_000_000 } == plan.keptEntries, sourceLocation: sourceLocation)
        #expect(
            plan.keptEntries + plan.newEntries + plan.readdedEntries == after.count, sourceLocation: sourceLocation)
        #expect(
            plan.keptEntries + plan.removedEntries + plan.readdedEntries == current.count,
            sourceLocation: sourceLocation)
        for step in plan.steps {
            switch step {
            case .remove(let uris): #expect(uris.count <= 100 && !uris.isEmpty, sourceLocation: sourceLocation)
            case .insert(let uris, _): #expect(uris.count <= 100 && !uris.isEmpty, sourceLocation: sourceLocation)
            case .move(_, _, let length): #expect(length >= 1, sourceLocation: sourceLocation)
            case .replace: Issue.record("a least-change plan never replaces", sourceLocation: sourceLocation)
            }
        }
        return (plan, after)
    }

    /// The longest increasing subsequence's length, the slow sure way.
    static func lisLength(_ values: [Int]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) }
        }
        return best.max() ?? 0
    }

    @Test func nothingToDoIsAnEmptyPlan() {
        let (plan, _) = Self.check(["a", "b", "c"], ["a", "b", "c"])
        #expect(plan.isEmpty)
        #expect(plan.keptEntries == 3)
    }

    @Test func aFilterOnlyRemoves() {
        let (plan, after) = Self.check(["a", "b", "c", "d"], ["a", "c"])
        #expect(plan.steps == [.remove(uris: ["b", "d"])])
        #expect(after.map(\.serial) == [0, 2], "the entries that stay are the same entries")
    }

    @Test func dedupeRemovesTheDuplicatedSongAndAddsOneBackWhereItWas() {
        let (plan, after) = Self.check(["a", "b", "a", "c", "b"], ["a", "b", "c"])
        #expect(plan.steps == [.remove(uris: ["a", "b"]), .insert(uris: ["a", "b"], position: 0)])
        #expect(plan.readdedEntries == 2)
        #expect(plan.removedEntries == 2)
        #expect(after.last?.serial == 3, "c keeps its date")
    }

    @Test func aMoveToTheFrontIsOneRequest() {
        let (plan, _) = Self.check(["b", "c", "d", "a"], ["a", "b", "c", "d"])
        #expect(plan.steps == [.move(start: 3, insertBefore: 0, length: 1)])
        #expect(plan.movedEntries == 1)
    }

    @Test func aRunMovesAsOneRange() {
        let (plan, _) = Self.check(["d", "e", "a", "b", "c"], ["a", "b", "c", "d", "e"])
        #expect(plan.moveRequests == 1)
        #expect(plan.movedEntries == 2)
    }

    @Test func reversingPutsAllButOneInPlaceInFewerMoves() {
        let current = (0..<20).map { "t\($0)" }
        let (plan, _) = Self.check(current, current.reversed())
        #expect(plan.movedEntries == 19)
        #expect(plan.moveRequests <= 17, "blocks, not 19 single moves: \(plan.moveRequests)")
    }

    @Test func pinnedEntriesStayAfterTheirNeighbour() {
        let (plan, after) = Self.check([nil, "a", nil, "b", "c"], ["c", "a", "b"])
        #expect(plan.pinnedEntries == 2)
        #expect(after.map(\.uri) == [nil, "c", "a", nil, "b"])
    }

    @Test func pinnedEntriesAfterARemovedOneFollowTheNearestKeptOne() {
        Self.check(["a", "x", nil, "b"], ["b", "a"])
        Self.check(["x", nil, "a"], ["a", "new"])
    }

    /// Dedupe: local files and unavailable entries whose neighbouring
    /// song is removed and added back (a song kept fewer times) stay after it, not at the top.
    @Test func pinnedEntriesFollowASongAddedBackNotTheTop() {
        let (_, after) = Self.check(
            ["t1", nil, "t2", "t1", nil, "t3", "t2", "e1", "e1", nil], ["t1", "t2", "t3", "e1"])
        #expect(after.map(\.uri) == ["t1", nil, "t2", nil, "t3", "e1", nil])
        #expect(after.filter { $0.uri == nil }.map(\.serial) == [1, 4, 9], "the pinned entries, in their order")
    }

    @Test func insertsLandWhereTheWantedListHasThem() {
        let (plan, after) = Self.check(["a", "b"], ["n1", "a", "n2", "n3", "b", "n4"])
        #expect(
            plan.steps == [
                .insert(uris: ["n1"], position: 0), .insert(uris: ["n2", "n3"], position: 2),
                .insert(uris: ["n4"], position: 5),
            ])
        #expect(after.map(\.serial).prefix(2) == [1_000_001, 0])
    }

    @Test func longInsertsGoInBatchesOf100() {
        let (plan, _) = Self.check([], (0..<250).map { "n\($0)" })
        #expect(plan.steps.count == 3)
    }

    /// Random playlists against random wanted lists: sorts, filters, dedupes, shuffles, inserts,
    /// and pinned entries, checked against the slow LIS for the fewest moves.
    @Test func randomPlansAreRightAndMoveTheFewest() {
        var random = SplitMix64(seed: 24)
        for round in 0..<400 {
            let size = Int(random.next() % 60)
            let alphabet = 1 + Int(random.next() % 40)
            let onlyMoves = round % 5 == 0 || round % 5 == 3
            let current: [String?] = (0..<size).map { _ in
                !onlyMoves && random.next() % 10 == 0 ? nil : "u\(random.next() % UInt64(alphabet))"
            }
            var wanted = current.compactMap { $0 }
            switch round % 5 {
            case 0: wanted.shuffle(using: &random)
            case 1: wanted = wanted.filter { _ in random.next() % 3 != 0 }
            case 2: wanted = wanted.uniqued()
            case 3: wanted.sort()
            default:
                wanted.shuffle(using: &random)
                for _ in 0..<Int(random.next() % 5) {
                    wanted.insert("n\(random.next() % 7)", at: Int(random.next() % UInt64(wanted.count + 1)))
                }
            }
            let (plan, _) = Self.check(current, wanted)
            if onlyMoves {
                // Only moves: the moved entries are n minus the longest increasing subsequence.
                var rank: [String: [Int]] = [:]
                for (index, uri) in current.enumerated() where uri != nil { rank[uri!, default: []].append(index) }
                var used: [String: Int] = [:]
                let ranks = wanted.map { uri -> Int in
                    defer { used[uri, default: 0] += 1 }
                    return rank[uri]![used[uri, default: 0]]
                }
                #expect(plan.movedEntries <= wanted.count - Self.lisLength(ranks), "round \(round)")
                #expect(plan.removedEntries == 0 && plan.newEntries == 0)
            }
        }
    }
}
