#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pages of a paged endpoint once the first page has told its `total`. Spotify's paged
/// endpoints (`/playlists/{id}/items`, `/me/playlists`, `/me/tracks`) give at most 50 per page.
/// We page by offset ourselves: the `next` links of `/me/playlists` name a removed endpoint.
package struct PagePlan: Sendable, Equatable {
    package static let pageSize = 50
    /// More than this is a broken answer, not a library: playlists hold at most 10,000 items and
    /// `/me/playlists` offsets stop at 100,000. Checked before any arithmetic on `total`.
    package static let maxTotal = 1_000_000

    package let total: Int
    package let pageSize: Int

    /// nil when `total` is not a count we can page through (negative or absurd).
    package init?(total: Int, pageSize: Int = PagePlan.pageSize) {
        guard (0...Self.maxTotal).contains(total), pageSize > 0 else { return nil }
        self.total = total
        self.pageSize = pageSize
    }

    /// How many pages hold `total` items (0 for an empty list; the first page is still fetched).
    var pageCount: Int { (total + pageSize - 1) / pageSize }

    /// The offsets after the first page, in order.
    var remainingOffsets: [Int] {
        total > pageSize ? Array(stride(from: pageSize, to: total, by: pageSize)) : []
    }

    /// How many items the page at `offset` must hold while `total` stays what it was.
    func expectedCount(at offset: Int) -> Int {
        max(0, min(pageSize, total - offset))
    }
}
