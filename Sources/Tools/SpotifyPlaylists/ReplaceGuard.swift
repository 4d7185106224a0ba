import SpotifyClient
import ToolkitCore

/// What keeps a piped `replace` from turning a read that went wrong into a write.
/// `spotify-tracks ID | jq … | spotify-playlists replace ID`: when spotify-tracks fails
/// part-way, it has already printed the pages before the failure, in order, and the pipe hides
/// its status. So input whose records were read from this same playlist is refused when:
/// - they carry a snapshot_id other than the playlist's now (it changed since they were read), or
/// - their positions stop `cutShortSlack(of:)` or more entries before the playlist's end: pages
///   come in order and end on multiples of 50 (the object embeds 100, then pages of 50), so a
///   read cut short is a prefix at least its last page short; that page holds fewer than 50 when
///   the size is not a multiple of 50 (120 items: the last 20). A filter that itself drops
///   that many of the last items looks the same; `--force` says it is meant.
/// Local files and unavailable entries after the last position are no loss: spotify-tracks skips
/// them on purpose (unavailable ones always, local files with --no-local), and replace keeps them
/// where they are, so a tail of only those is never refused.
enum ReplaceGuard {
    /// The size of the playlist's last page: the fewest items a read cut short can lack.
    static func cutShortSlack(of count: Int) -> Int {
        count <= 0 ? PagePlan.pageSize : (count - 1) % PagePlan.pageSize + 1
    }

    static func check(_ items: ItemInput, against contents: PlaylistContents) throws {
        guard let origin = items.origins[contents.id] else { return }
        if let other = origin.snapshots.first(where: { $0 != contents.snapshot }), contents.snapshot != nil {
            throw ToolError.tempFail(
                """
                the input was read from playlist \(contents.id) at snapshot_id \(other), and it has changed since \
                (now \(contents.snapshot!)): replacing would undo those changes; nothing was written; read it again, \
                or add --force
                """
            )
        }
        guard origin.lastPosition >= 0 else { return }
        let after = contents.writableURIs.dropFirst(origin.lastPosition + 1)
        let lacking = after.count { $0 != nil }
        guard after.count >= cutShortSlack(of: contents.count), lacking > 0 else { return }
        let staying = after.count - lacking
        let pinned = SpotifyPlaylists.countText(
            staying, noun: "local file or unavailable item", plural: "local files or unavailable items")
        let stay = staying == 0 ? "" : "; the \(pinned) after it stay either way"
        throw ToolError.dataError(
            """
            the input's items of playlist \(contents.id) stop at position \(origin.lastPosition), and the \
            \(groupedThousands(lacking)) items after it are not in the input (it holds \
            \(groupedThousands(contents.count))\(stay)): a read cut short (did spotify-tracks fail? set -o pipefail \
            shows it)? Nothing was written; with --force, replace removes those \(groupedThousands(lacking)) items \
            (add --dry-run to see the plan), or use spotify-playlists rewrite, which reads the playlist itself
            """
        )
    }
}
