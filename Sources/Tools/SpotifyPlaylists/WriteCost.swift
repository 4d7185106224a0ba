import SpotifyClient
import ToolkitCore

/// What a write will cost of the app's daily quota, said by `--dry-run` before anything is sent
/// (pure: from the plan's sizes). Counts what the command itself sends once its PLAYLIST is known
/// (a name is looked up in the listing first, usually from the name cache at no request).
struct WriteCost: Equatable {
    var requests: Int
    var what: [String]

    /// `add`: the playlist's total (the limit and --position are checked against it), a request
    /// per batch of 100, the record printed after, and for more than one batch the read of what
    /// landed, in order (another client's edit between batches could split them).
    static func add(items: Int) -> WriteCost {
        let batches = batchCount(items, PlaylistWriter.batchSize)
        return WriteCost(
            requests: batches + 2 + orderCheck(items),
            what: ["1 read of the playlist's size", batchText(batches), "1 read of its record", orderText(items)]
                .filter { !$0.hasPrefix("0 ") })
    }

    /// `create`: the check among your newest playlists for the name, the create, the batches, the record.
    static func create(items: Int) -> WriteCost {
        let batches = batchCount(items, PlaylistWriter.batchSize)
        return WriteCost(
            requests: batches + 3,
            what: ["1 look among your playlists for the name", "1 create", batchText(batches), "1 read of its record"]
                .filter { !$0.hasPrefix("0 ") })
    }

    /// Pages of 50 that read back what more than one batch added.
    static func orderCheck(_ items: Int) -> Int {
        items > PlaylistWriter.batchSize ? batchCount(items, PagePlan.pageSize) : 0
    }

    static func orderText(_ items: Int) -> String {
        "\(orderCheck(items)) \(orderCheck(items) == 1 ? "page" : "pages") read back to check their order"
    }

    /// `edit`: the change, then the record.
    static let edit = WriteCost(requests: 2, what: ["1 change", "1 read of its record"])
    /// `delete`: the record (for the question and what is printed), then the unfollow.
    static let delete = WriteCost(requests: 2, what: ["1 read of its record", "1 unfollow"])

    /// `add --liked`, `remove --liked`: a request per batch (of up to 40, by kind).
    static func liked(batches: Int) -> WriteCost {
        WriteCost(requests: batches, what: [batchText(batches, of: SavedItems.batchSize)])
    }

    /// A destructive edit (replace, remove, dedupe, sort, rewrite, undo): the read of the whole
    /// playlist the plan starts from, the plan's requests, the read that proves the result, and the
    /// record printed after. The reads are paged as `PlaylistContents.read` pages them.
    static func edit(_ plan: PlaylistEditPlan) -> WriteCost {
        var moves = 0
        var removes = 0
        var inserts = 0
        for step in plan.steps {
            switch step {
            case .move: moves += 1
            case .remove: removes += 1
            case .insert, .replace: inserts += 1
            }
        }
        let before = readRequests(plan.entriesBefore)
        let after = readRequests(plan.result.count)
        let moveText = "\(groupedThousands(moves)) range \(moves == 1 ? "move" : "moves")"
        return WriteCost(
            requests: before + plan.steps.count + after + 1,
            what: [
                "\(before) to read the playlist", "\(removes) \(removes == 1 ? "remove" : "removes")", moveText,
                "\(inserts) \(inserts == 1 ? "write" : "writes") of up to \(PlaylistEditPlan.batchSize) items",
                "\(after) to read it back and prove it", "1 read of its record",
            ].filter { !$0.hasPrefix("0 ") })
    }

    /// A whole read of a playlist of `items`: its object (with the first 100); past that, pages of
    /// 50 for the rest between two reads of its snapshot_id and total.
    static func readRequests(_ items: Int) -> Int {
        let pages = items <= 100 ? 0 : batchCount(items - 100, PagePlan.pageSize)
        return pages > 0 ? 3 + pages : 1
    }

    static func batchCount(_ items: Int, _ size: Int) -> Int { items <= 0 ? 0 : (items - 1) / size + 1 }

    static func batchText(_ batches: Int, of size: Int = PlaylistWriter.batchSize) -> String {
        "\(groupedThousands(batches)) \(batches == 1 ? "batch" : "batches") of up to \(size) items"
    }

    /// "--dry-run: would send 3 requests (1 read of the playlist's size, 1 batch of up to 100 items, ...)".
    var note: String {
        let plural = requests == 1 ? "request" : "requests"
        return "--dry-run: would send \(groupedThousands(requests)) \(plural) (\(what.joined(separator: ", ")))"
    }
}
