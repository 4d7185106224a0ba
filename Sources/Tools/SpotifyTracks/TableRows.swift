import ToolkitCLI
import ToolkitCore

// spotify-tracks' records are mostly Spotify's own fields, built by `TrackRecord` and the readers
// and written as they are (the JSON path never reads them back). These wrap one, and read the
// few fields its table row shows only when a row is drawn.

extension SpotifyTracks {
    /// A track or episode record, and its row of a table of position, name, artists and duration.
    struct TrackRow: TableRecord {
        let record: JSONObject
        /// The # cell, counting from 0 (shown from 1, as people count): the item's position, a
        /// rank - 1, or a query's number.
        let position: Int

        init(_ record: JSONObject, position: Int) {
            self.record = record
            self.position = position
        }

        /// A record numbered by its own position (a saved album's track, by its place in the album).
        init(_ record: JSONObject) {
            self.init(record, position: record["position"]?.intValue ?? 0)
        }

        var json: JSONValue { .object(record) }

        var name: String { record["name"]?.stringValue ?? "" }

        /// The artists' names, or for an episode (no artists) its show's.
        var by: String {
            let names = record["artists"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            return names.isEmpty ? (record["show"]?["name"]?.stringValue ?? "") : names.joined(separator: ", ")
        }

        var durationMs: Int? { record["duration_ms"]?.intValue }

        var cells: [String] { [String(position + 1)] + itemCells }

        /// The cells after the # cell: name, artists and duration.
        var itemCells: [String] { [name, by, durationMs.map { formatClock(milliseconds: $0) } ?? ""] }
    }

    /// An artist record, and its row of a table of rank (or number), name and genres.
    struct ArtistRow: TableRecord {
        let record: JSONObject
        /// The # cell: the artist's rank, or its number in the output (from 1).
        let number: Int

        var json: JSONValue { .object(record) }

        var name: String { record["name"]?.stringValue ?? "" }

        var genres: [String] { record["genres"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

        var cells: [String] { [String(number), name, genres.joined(separator: ", ")] }
    }
}
