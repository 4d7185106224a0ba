import SpotifyClient
import ToolkitCore

/// The orders `spotify-playlists sort` puts a playlist in. Pure: entries in, URIs out. Stable:
/// entries that tie keep their order, in either direction. Entries that cannot be written back
/// (local files, unavailable items) are left out: the plan keeps them where they are.
enum PlaylistOrder {
    static func sorted(
        _ entries: [JSONValue], by key: SpotifyPlaylists.SortKey, reverse: Bool, seed: UInt64? = nil
    ) -> [String] {
        let writable = entries.enumerated().compactMap {
            offset, entry -> (index: Int, uri: String, entry: JSONValue)? in
            PlaylistContents.writableURI(entry).map { (offset, $0, entry) }
        }
        if key == .random {
            var generator = SplitMix64(seed: seed ?? UInt64.random(in: 0...UInt64.max))
            return writable.map(\.uri).shuffled(using: &generator)
        }
        let keys = writable.map { sortKey(of: $0.entry, key) }
        let order = writable.indices.sorted { left, right in
            let comparison = keys[left].compare(keys[right])
            if comparison == 0 { return left < right }  // stable
            return reverse ? comparison > 0 : comparison < 0
        }
        return order.map { writable[$0].uri }
    }

    /// A value that orders: a number, or text compared without case first.
    enum Key {
        case number(Int)
        case text(String)

        func compare(_ other: Key) -> Int {
            switch (self, other) {
            case (.number(let a), .number(let b)): return a < b ? -1 : a > b ? 1 : 0
            case (.text(let a), .text(let b)):
                let (la, lb) = (a.lowercased(), b.lowercased())
                if la != lb { return la < lb ? -1 : 1 }
                return a < b ? -1 : a > b ? 1 : 0
            case (.number, .text): return -1
            case (.text, .number): return 1
            }
        }
    }

    /// The release date as far as its precision goes ("1999" for a year, "1999-03" for a month), so
    /// that a year sorts before every day of it, compared as text ("1999" < "1999-03" < "1999-03-01").
    /// A track's album's date, an episode's own; none (a local file): after every date.
    static func releaseKey(_ item: JSONValue?) -> Key {
        let dated = item?["album"]?["release_date"]?.stringValue != nil ? item?["album"] : item
        guard let date = dated?["release_date"]?.stringValue, !date.isEmpty else { return .text("\u{10FFFF}") }
        switch dated?["release_date_precision"]?.stringValue {
        case "year": return .text(String(date.prefix(4)))
        case "month": return .text(String(date.prefix(7)))
        default: return .text(date)
        }
    }

    static func sortKey(of entry: JSONValue, _ key: SpotifyPlaylists.SortKey) -> Key {
        let item = PlaylistEntry.item(of: entry)
        switch key {
        case .duration: return .number(max(0, item?["duration_ms"]?.intValue ?? 0))
        case .name: return .text(item?["name"]?.stringValue ?? "")
        case .artist:
            let artist =
                item?["artists"]?.arrayValue?.first?["name"]?.stringValue ?? item?["show"]?["name"]?.stringValue
            return .text(artist ?? "")
        case .album:
            return .text(item?["album"]?["name"]?.stringValue ?? item?["show"]?["name"]?.stringValue ?? "")
        case .released: return releaseKey(item)
        case .added: return .text(entry["added_at"]?.stringValue ?? "")
        case .random: return .number(0)
        }
    }
}
