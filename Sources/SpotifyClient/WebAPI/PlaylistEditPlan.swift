/// The least change that turns a playlist's entries into a wanted list of URIs, as Web API
/// requests, so that every entry that stays keeps its `added_at` and `added_by`. Pure: no I/O.
///
/// The Web API offers three edits, and the plan uses them in this order:
/// 1. `DELETE` by URI, which removes **every** occurrence: a URI the wanted list has fewer of
///    than the playlist (dedupe) is removed whole and its wanted occurrences added back, and only
///    those lose their dates.
/// 2. Range moves (`PUT` with `range_start`, `insert_before`, `range_length`) put the entries that
///    stay into the wanted order. A range move swaps two adjacent blocks, so the plan moves blocks
///    (`BlockMoves`): about n/2 requests for a shuffled list, near the fewest any plan can take,
///    where moving each entry off one longest increasing subsequence takes n minus its length
///    (that plan is kept when it is shorter, as for a few entries out of place).
/// 3. `POST` with `position` inserts what is new, in batches of at most 100, in ascending position,
///    so each lands where the wanted list has it.
///
/// Entries that cannot be written back (a local file, an item Spotify no longer makes available:
/// `nil` here) cannot be removed by URI or added again: they are "pinned". They stay, after the
/// entry that preceded them (the nearest one that stays), or first when none does.
package struct PlaylistEditPlan: Sendable, Equatable {
    package enum Step: Sendable, Equatable {
        /// `DELETE` every occurrence of these URIs (at most 100).
        case remove(uris: [String])
        /// `PUT` a range move: the `length` entries from `start` go before the entry now at
        /// `insertBefore` (positions in the playlist before the move).
        case move(start: Int, insertBefore: Int, length: Int)
        /// `POST` these URIs (at most 100) at `position`.
        case insert(uris: [String], position: Int)
        /// `PUT` these URIs (at most 100) as the whole playlist: every entry gets a new date.
        case replace(uris: [String])
    }

    package var steps: [Step] = []
    /// What the playlist will hold, in order (nil: a pinned entry).
    package var result: [String?] = []
    package var entriesBefore = 0
    /// Entries that stay where they are or move, keeping their dates (pinned ones included).
    package var keptEntries = 0
    /// Entries that leave for good.
    package var removedEntries = 0
    /// Entries removed with their URI and added back (a URI the wanted list has fewer of).
    package var readdedEntries = 0
    /// Entries the playlist did not have.
    package var newEntries = 0
    /// Entries out of order that the range moves put in place: n minus the longest increasing
    /// subsequence (the entries whose place relative to the others changes).
    package var movedEntries = 0
    /// Entries that could not be removed or written back, and stay.
    package var pinnedEntries = 0

    package static let batchSize = 100

    /// The plan that writes `wanted` afresh (`--reset-dates`): the first 100 replace everything,
    /// the rest are appended. Every entry gets today's date and the pinned ones are dropped.
    package static func rewrite(from current: [String?], to wanted: [String]) -> PlaylistEditPlan {
        var plan = PlaylistEditPlan(from: [], to: [])
        plan.entriesBefore = current.count
        plan.result = wanted
        plan.removedEntries = current.count
        plan.newEntries = wanted.count
        let first = Array(wanted.prefix(batchSize))
        plan.steps = [.replace(uris: first)]
        var position = first.count
        for batch in Array(wanted.dropFirst(batchSize)).chunked(batchSize) {
            plan.steps.append(.insert(uris: Array(batch), position: position))
            position += batch.count
        }
        return plan
    }

    package var isEmpty: Bool { steps.isEmpty }
    package var moveRequests: Int { steps.count { if case .move = $0 { true } else { false } } }

    /// The plan from `current` (the playlist's entries; nil for one that cannot be written back)
    /// to `wanted`.
    package init(from current: [String?], to wanted: [String]) {
        entriesBefore = current.count
        var currentCount: [String: Int] = [:]
        for case let uri? in current { currentCount[uri, default: 0] += 1 }
        var wantedCount: [String: Int] = [:]
        for uri in wanted { wantedCount[uri, default: 0] += 1 }
        // A URI with fewer wanted occurrences than the playlist has is removed whole.
        let removedURIs = Set(currentCount.keys.filter { wantedCount[$0, default: 0] < currentCount[$0]! })

        // Which current entry each wanted one is: the k-th occurrence of a kept URI is its k-th
        // occurrence in the playlist; the rest are new.
        var occurrences: [String: [Int]] = [:]
        for (index, uri) in current.enumerated() {
            if let uri, !removedURIs.contains(uri) { occurrences[uri, default: []].append(index) }
        }
        var used: [String: Int] = [:]
        var wantedSlots: [Slot] = []
        wantedSlots.reserveCapacity(wanted.count)
        for uri in wanted {
            let next = used[uri, default: 0]
            if let list = occurrences[uri], next < list.count {
                wantedSlots.append(.kept(list[next]))
                used[uri] = next + 1
            } else {
                wantedSlots.append(.new(uri))
                if removedURIs.contains(uri) { readdedEntries += 1 } else { newEntries += 1 }
            }
        }

        let (leadingPinned, pinnedAfter) = Self.pinnedPlaces(
            current, removedURIs: removedURIs, wantedCount: wantedCount)
        pinnedEntries = current.count { $0 == nil }
        var slots: [Slot] = leadingPinned.map(Slot.kept)
        var readdedSeen: [String: Int] = [:]
        for slot in wantedSlots {
            slots.append(slot)
            switch slot {
            case .kept(let index):
                slots += (pinnedAfter[.kept(index)] ?? []).map(Slot.kept)
            case .new(let uri) where removedURIs.contains(uri):
                let seen = readdedSeen[uri, default: 0]
                readdedSeen[uri] = seen + 1
                slots += (pinnedAfter[.readded(uri, seen)] ?? []).map(Slot.kept)
            case .new:
                break
            }
        }
        result = slots.map { slot in
            switch slot {
            case .kept(let index): current[index]
            case .new(let uri): uri
            }
        }
        keptEntries = slots.count { if case .kept = $0 { true } else { false } }
        removedEntries = current.count { $0.map(removedURIs.contains) ?? false } - readdedEntries

        // 1. Removes, in the order the URIs first appear.
        var seen = Set<String>()
        let removals = current.compactMap { uri -> String? in
            guard let uri, removedURIs.contains(uri), seen.insert(uri).inserted else { return nil }
            return uri
        }
        steps += removals.chunked(Self.batchSize).map { .remove(uris: $0) }

        // 2. Moves, on the entries that stay (current indices, in playlist order).
        let order = current.indices.filter { current[$0].map { !removedURIs.contains($0) } ?? true }
        let wantedOrder = slots.compactMap { slot -> Int? in
            if case .kept(let index) = slot { index } else { nil }
        }
        steps += Self.moves(from: order, to: wantedOrder, moved: &movedEntries)

        // 3. Inserts, ascending: everything before each one is already where it will be.
        steps += Self.inserts(slots)
    }

    /// Where each wanted entry comes from: the current entry at an index, or a URI added.
    private enum Slot: Equatable {
        case kept(Int)
        case new(String)
    }

    /// What a pinned entry follows: an entry that stays, or the k-th occurrence of a URI removed
    /// and added back.
    private enum Anchor: Hashable {
        case kept(Int)
        case readded(String, Int)
    }

    /// Pinned entries follow the nearest earlier entry that stays (their anchor), or lead. A song
    /// removed and added back stays too, as its k-th occurrence stands for its k-th one added
    /// back: pinned entries after it must not fall back to the top.
    private static func pinnedPlaces(
        _ current: [String?], removedURIs: Set<String>, wantedCount: [String: Int]
    ) -> (leading: [Int], after: [Anchor: [Int]]) {
        var pinnedAfter: [Anchor: [Int]] = [:]
        var leadingPinned: [Int] = []
        var anchor: Anchor?
        var removedSeen: [String: Int] = [:]
        for (index, uri) in current.enumerated() {
            if let uri {
                if !removedURIs.contains(uri) {
                    anchor = .kept(index)
                } else {
                    let seen = removedSeen[uri, default: 0]
                    removedSeen[uri] = seen + 1
                    if seen < wantedCount[uri, default: 0] { anchor = .readded(uri, seen) }
                }
            } else if let anchor {
                pinnedAfter[anchor, default: []].append(index)
            } else {
                leadingPinned.append(index)
            }
        }
        return (leadingPinned, pinnedAfter)
    }

    /// The insert steps that put the new slots in place, in batches, ascending.
    private static func inserts(_ slots: [Slot]) -> [Step] {
        var steps: [Step] = []
        var position = 0
        var pending: (position: Int, uris: [String])?
        for slot in slots {
            if case .new(let uri) = slot {
                if pending == nil || pending!.uris.count == batchSize {
                    if let batch = pending { steps.append(.insert(uris: batch.uris, position: batch.position)) }
                    pending = (position, [])
                }
                pending!.uris.append(uri)
            } else if let batch = pending {
                steps.append(.insert(uris: batch.uris, position: batch.position))
                pending = nil
            }
            position += 1
        }
        if let batch = pending { steps.append(.insert(uris: batch.uris, position: batch.position)) }
        return steps
    }

    /// Range moves that turn `order` into `wanted` (the same elements, each a current index):
    /// block moves (`BlockMoves`), or the single-item plan off one longest increasing subsequence
    /// when that one is shorter. `moved` gains the entries out of order: n minus the longest
    /// increasing subsequence, which is how many change place relative to the others.
    static func moves(from order: [Int], to wanted: [Int], moved: inout Int) -> [Step] {
        guard !order.isEmpty else { return [] }
        var rankOf = [Int](repeating: 0, count: (order.max() ?? 0) + 1)
        for (rank, element) in wanted.enumerated() { rankOf[element] = rank }
        let ranks = order.map { rankOf[$0] }
        let outOfOrder = ranks.count - longestIncreasingSubsequence(ranks).count
        moved += outOfOrder
        guard outOfOrder > 0 else { return [] }
        let single = singleMoves(ranks)
        guard let blocks = BlockMoves.plan(ranks, limit: single.count) else { return single }
        return blocks.map { move in
            // The shorter block goes: the same result, less for Spotify to carry.
            move.j - move.i <= move.k - move.j
                ? .move(start: move.i, insertBefore: move.k, length: move.j - move.i)
                : .move(start: move.j, insertBefore: move.i, length: move.k - move.j)
        }
    }

    /// Moves every rank off one longest increasing subsequence once, after the rank before it,
    /// runs that are next to each other both now and in order together. `ranks`: a permutation.
    static func singleMoves(_ ranks: [Int]) -> [Step] {
        let n = ranks.count
        var order = ranks
        var position = [Int](repeating: 0, count: n)
        for (index, rank) in order.enumerated() { position[rank] = index }
        var stays = [Bool](repeating: false, count: n)
        for index in longestIncreasingSubsequence(ranks) { stays[ranks[index]] = true }
        var steps: [Step] = []
        var rank = 0
        while rank < n {
            guard !stays[rank] else {
                rank += 1
                continue
            }
            // The run: the next ranks that also move and sit right after it now.
            let start = position[rank]
            var length = 1
            while rank + length < n, !stays[rank + length], start + length < n, order[start + length] == rank + length {
                length += 1
            }
            let insertBefore = rank == 0 ? 0 : position[rank - 1] + 1
            if insertBefore < start || insertBefore > start + length {
                steps.append(.move(start: start, insertBefore: insertBefore, length: length))
                let (low, high) = insertBefore > start ? (start, insertBefore) : (insertBefore, start + length)
                Self.apply(steps[steps.count - 1], to: &order)
                for offset in low..<high { position[order[offset]] = offset }
            }
            rank += length
        }
        return steps
    }

    /// The indices of one longest strictly increasing subsequence of `values` (patience sorting,
    /// O(n log n)).
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // indices into values: the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            result.append(index)
            index = previous[index]
        }
        return result.reversed()
    }

    /// What `list` holds after `step`, as Spotify carries it out.
    static func applying(_ step: Step, to list: [String?]) -> [String?] {
        var list = list
        apply(step, to: &list, uri: { $0 }, make: { $0 })
        return list
    }

    /// `step` carried out on `list` in place, as Spotify carries it out: a move rotates the
    /// entries between the range and where it goes, without copying the list.
    package static func apply<Entry>(
        _ step: Step, to list: inout [Entry], uri: (Entry) -> String?, make: (String) -> Entry
    ) {
        switch step {
        case .remove(let uris):
            let gone = Set(uris)
            list.removeAll { uri($0).map(gone.contains) ?? false }
        case .move(let start, let insertBefore, let length):
            if insertBefore > start + length {
                rotate(&list, low: start, middle: start + length, high: insertBefore)
            } else if insertBefore < start {
                rotate(&list, low: insertBefore, middle: start, high: start + length)
            }
        case .insert(let uris, let position):
            list.insert(contentsOf: uris.map(make), at: position)
        case .replace(let uris):
            list = uris.map(make)
        }
    }

    /// A move on a list of plain values (ranks), in place.
    static func apply(_ step: Step, to list: inout [Int]) {
        apply(step, to: &list, uri: { _ in nil }, make: { _ in 0 })
    }

    /// Swaps the adjacent blocks `low..<middle` and `middle..<high` in place (three reversals).
    static func rotate<Element>(_ list: inout [Element], low: Int, middle: Int, high: Int) {
        guard low < middle && middle < high else { return }
        list[low..<middle].reverse()
        list[middle..<high].reverse()
        list[low..<high].reverse()
    }

    /// Applies the steps to `entries` as Spotify would: what the playlist holds afterwards. Each
    /// entry is carried whole, so a test can check that kept entries keep what they had.
    package func applied<Entry>(to entries: [Entry], uri: (Entry) -> String?, make: (String) -> Entry) -> [Entry] {
        var list = entries
        for step in steps { Self.apply(step, to: &list, uri: uri, make: make) }
        return list
    }
}
