import ToolkitCore

/// A record with a human form: its row of a table on a terminal.
package protocol TableRecord: JSONRecord {
    /// The cells of its row, one per column of the table it is printed in.
    var cells: [String] { get }
}

/// Prints records as the output mode asks: JSON Lines, or on a terminal a table whose header
/// comes with the first row (so an empty result prints nothing) and whose rows stream.
package struct RecordPrinter<Record: TableRecord> {
    let stdout: JSONLinesWriter
    /// The table's width (the terminal's, or COLUMNS).
    let width: Int
    let columns: [TextTable.Column]
    package let mode: OutputMode
    /// The table, once its header is out.
    package private(set) var table: TextTable?

    package init(_ context: ToolContext, mode: OutputMode, columns: [TextTable.Column]) {
        stdout = context.stdout
        width = mode == .human ? context.terminalWidth : 0  // no ioctl for JSON Lines
        self.columns = columns
        self.mode = mode
    }

    package mutating func write(_ record: Record) throws {
        guard mode == .human else { return try stdout.write(record) }
        try stdout.writeText(startedTable().line(record.cells) + "\n")
    }

    /// The table, writing its header first if no row has been printed yet.
    package mutating func startedTable() throws -> TextTable {
        if let table { return table }
        let table = TextTable(columns, totalWidth: width)
        try stdout.writeText(table.header + "\n")
        self.table = table
        return table
    }
}
