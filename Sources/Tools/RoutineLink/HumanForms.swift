import ToolkitCLI
import ToolkitCore

/// How routine-link shows routines, sessions, playlists and times to people.
extension RoutineLink {
    /// Where a subcommand's records go: JSON Lines, or on a terminal a sentence for people.
    struct Printer {
        let stdout: JSONLinesWriter
        let mode: OutputMode

        init(_ context: ToolContext, json: Bool) {
            stdout = context.stdout
            mode = context.outputMode(forcedJSON: json)
        }

        func write(_ record: some JSONRecord, human: @autoclosure () -> String) throws {
            guard mode == .human else { return try stdout.write(record) }
            // Routine and playlist names reach the terminal cleaned, line by line.
            let lines = human().split(separator: "\n", omittingEmptySubsequences: false)
            try stdout.writeText(lines.map { TerminalText.clean(String($0)) }.joined(separator: "\n") + "\n")
        }

        /// A list: on a terminal one table fitted to its cells (nothing when the list is empty),
        /// otherwise a record a line.
        func writeAll(_ records: [some JSONRecord], header: [String], rows: () -> [[String]]) throws {
            guard mode == .human else {
                for record in records { try stdout.write(record) }
                return
            }
            if !records.isEmpty { try stdout.writeText(TextTable.fitted(header: header, rows: rows())) }
        }
    }

    static func playlistName(_ playlist: PlaylistLink) -> String {
        TerminalText.clean(playlist.name.map { "'\($0)'" } ?? playlist.uri)
    }

    /// "2026-11-22 08:00" in the user's time zone (`TZ`), for people.
    static func localTime(_ iso: String, _ zone: LocalZone) -> String {
        LocalTime.text(iso, "yyyy-MM-dd HH:mm", in: zone)
    }
}

extension RoutineRecord: TableRecord {
    static let header = ["NAME", "DURATION", "PLAYLIST", "SESSIONS", "NOTE"]

    /// Its row in `list`'s table: a column needs no quotes around a name; sentences
    /// keep them.
    var cells: [String] {
        [
            routine.name, routine.durationMs.map { formatClock(milliseconds: $0) } ?? "-",
            routine.playlist.map { $0.name ?? $0.uri } ?? "-", String(routine.sessions.count), routine.note ?? "",
        ]
    }

    /// "'morning', 15:00, with 'Morning Mix'", the end of add's and edit's sentence.
    var line: String {
        var parts = ["'\(routine.name)'"]
        if let duration = routine.durationMs { parts.append(formatClock(milliseconds: duration)) }
        if let playlist = routine.playlist { parts.append("with " + RoutineLink.playlistName(playlist)) }
        return parts.joined(separator: ", ")
    }

    /// `show`'s lines: the name, then a field a line.
    func details(in zone: LocalZone) -> String {
        var lines = [routine.name]
        lines.append("  duration  " + (routine.durationMs.map { formatClock(milliseconds: $0) } ?? "-"))
        if let note = routine.note { lines.append("  note      " + note) }
        if let playlist = routine.playlist {
            let length = playlist.durationMs.map { ", " + formatClock(milliseconds: $0) } ?? ""
            lines.append("  playlist  \(RoutineLink.playlistName(playlist)) (\(playlist.uri))\(length)")
            if let image = playlist.imageURL { lines.append("  cover     " + image) }
        } else {
            lines.append("  playlist  -")
        }
        lines.append("  created   " + RoutineLink.localTime(routine.createdAt, zone))
        var last = ""
        if let session = routine.sessions.last {
            let outcome = session.isRunning ? " (running)" : session.label.map { ": \($0)" } ?? ""
            last = ", last \(RoutineLink.localTime(session.startedAt, zone))\(outcome)"
        }
        lines.append("  sessions  \(routine.sessions.count)\(last)")
        return lines.joined(separator: "\n")
    }
}

/// A session as `history`'s table shows it: its record, started in the user's time zone.
struct HistoryRow: TableRecord {
    static let header = ["STARTED", "LENGTH", "ROUTINE", "PLAYLIST", "SONGS"]

    var record: SessionRecord
    var zone: LocalZone

    var json: JSONValue { record.json }

    var cells: [String] {
        [
            RoutineLink.localTime(record.session.startedAt, zone),
            record.durationMs.map { formatClock(milliseconds: $0) } ?? "running", record.routine,
            record.session.playlist.map { $0.name ?? $0.uri } ?? "-", record.session.label ?? "-",
        ]
    }
}
