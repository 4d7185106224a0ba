import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// A track or episode record, and its row of the track table: position, name, artists and
/// duration. A record read back (a pipeline's input, a local playlist's line) keeps the object it
/// was read from, so printing it passes every field on as it came.
struct TrackRow: TableRecord {
    let record: TrackRecord
    /// The object the record was read from; nil for a record built here.
    let read: JSONObject?
    /// The # cell, counting from 0 (shown from 1, as people count): the item's position, a
    /// rank - 1, or a query's number.
    let position: Int

    init(_ record: TrackRecord, position: Int) {
        self.record = record
        self.position = position
        read = nil
    }

    /// A record numbered by its own position (a saved album's track, by its place in the album).
    init(_ record: TrackRecord) {
        self.init(record, position: record.position ?? 0)
    }

    /// A record read back, numbered `position`.
    init(reading object: JSONObject, position: Int) {
        record = TrackRecord(reading: object)
        read = object
        self.position = position
    }

    var json: JSONValue { read.map(JSONValue.object) ?? record.json }

    var cells: [String] { [String(position + 1)] + itemCells }

    /// The cells after the # cell: name, artists (an episode's show) and duration.
    var itemCells: [String] {
        [record.name ?? "", record.by, record.durationMs.map { formatClock(milliseconds: $0) } ?? ""]
    }
}

/// The track table spotify-tracks, songcount and `spotify-playlists local show` draw on a
/// terminal: a title line (when there is one), the header, rows as they come, and under them
/// the number of items and their total duration.
struct TrackTable {
    let stdout: JSONLinesWriter
    let table: TextTable
    private(set) var rows = 0
    /// The rows' durations added up (saturating: three items of Int.max must not print a small total).
    private(set) var durationMs = 0

    /// Writes the title and the header. `total`: the most rows it may number, for the width of
    /// the # column.
    init(_ context: ToolContext, total: Int, title: String?) throws {
        stdout = context.stdout
        let digits = String(max(total, 1)).count
        table = TextTable(
            [
                .fixed("#", width: max(digits, 1), alignment: .right),
                .flexible("NAME", weight: 3),
                .flexible("ARTISTS", weight: 2),
                .fixed("DURATION", width: 8, alignment: .right),
            ], totalWidth: context.terminalWidth)
        if let title { try stdout.writeText("\(title)\n") }
        try stdout.writeText(table.header + "\n")
    }

    mutating func write(_ row: TrackRow) throws {
        durationMs = saturatingAdd(durationMs, max(0, row.record.durationMs ?? 0))
        rows += 1
        try stdout.writeText(table.line(row.cells) + "\n")
    }

    /// `1,204 items, 71:02:11`: what goes under the table.
    static func totalLine(items: Int, durationMs: Int) -> String {
        "\(groupedThousands(items)) \(items == 1 ? "item" : "items"), \(formatClock(milliseconds: durationMs))\n"
    }

    /// The total line under the rows written, and everything on its way.
    func finish() throws {
        try stdout.writeText(Self.totalLine(items: rows, durationMs: durationMs))
        try stdout.endBatch()
    }
}
