import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How routine-link shows routines, playlists, times and tables to people.
extension RoutineLink {

    static func playlistName(_ playlist: PlaylistLink) -> String {
        TerminalText.clean(playlist.name.map { "'\($0)'" } ?? playlist.uri)
    }

    static func humanLine(_ routine: Routine) -> String {
        var parts = ["'\(routine.name)'"]
        if let duration = routine.durationMs { parts.append(formatClock(milliseconds: duration)) }
        if let playlist = routine.playlist { parts.append("with " + playlistName(playlist)) }
        return parts.joined(separator: ", ")
    }

    /// "2026-11-22 08:00" in the user's time zone (`TZ`), for people.
    static func localTime(_ iso: String, _ context: ToolContext) -> String {
        LocalTime.text(iso, "yyyy-MM-dd HH:mm", in: context.timeZone)
    }

    /// The core's TextTable with each column as wide as its widest cell (routines and sessions
    /// are few, so the whole table is known before it is drawn).
    static func table(header: [String], rows: [[String]]) -> String {
        let columns = header.enumerated().map { index, title in
            TextTable.Column.fixed(
                title, width: rows.map { index < $0.count ? DisplayWidth.of(TextTable.clean($0[index])) : 0 }.max() ?? 0
            )
        }
        let table = TextTable(columns, totalWidth: 0)
        return ([table.header] + rows.map(table.line)).map { $0.trimmingTrailingSpaces() }.joined(separator: "\n")
            + "\n"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
