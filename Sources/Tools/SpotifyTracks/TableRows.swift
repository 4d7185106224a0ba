import SpotifyClient
import ToolkitCLI
import ToolkitCore

extension SpotifyTracks {
    /// An artist record, and its row of a table of rank (or number), name and genres.
    struct ArtistRow: TableRecord {
        let record: ArtistRecord
        /// The # cell: the artist's rank, or its number in the output (from 1).
        let number: Int

        var json: JSONValue { record.json }

        var cells: [String] { [String(number), record.name ?? "", record.genres.joined(separator: ", ")] }
    }
}
