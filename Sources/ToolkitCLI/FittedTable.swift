import ToolkitCore

extension TextTable {
    /// A table drawn whole, each column as wide as its widest cell and no line ending in spaces:
    /// for the few rows known before the first is drawn (routine-link's routines and sessions),
    /// where nothing streams and nothing needs cutting to the terminal's width.
    package static func fitted(header: [String], rows: [[String]]) -> String {
        let columns = header.enumerated().map { index, title in
            Column.fixed(title, width: rows.map { index < $0.count ? DisplayWidth.of(clean($0[index])) : 0 }.max() ?? 0)
        }
        let table = TextTable(columns, totalWidth: 0)
        return ([table.header] + rows.map(table.line)).map { $0.trimmingTrailingSpaces() }.joined(separator: "\n")
            + "\n"
    }
}
