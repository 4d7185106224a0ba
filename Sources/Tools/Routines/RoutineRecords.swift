import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `routine` record routine-link prints (add, edit, list, show, rename, link, unlink, fit):
/// type, name, duration_ms, note, playlist {id, uri, name, image_url, duration_ms} or null,
/// created_at, then session_count.
struct RoutineRecord: JSONRecord {
    var routine: Routine

    init(_ routine: Routine) {
        self.routine = routine
    }

    var json: JSONValue {
        [
            "type": "routine", "name": .string(routine.name),
            "duration_ms": routine.durationMs.map(JSONValue.int) ?? .null,
            "note": routine.note.map(JSONValue.string) ?? .null, "playlist": routine.playlist?.record ?? .null,
            "created_at": .string(routine.createdAt), "session_count": .int(routine.sessions.count),
        ]
    }
}

/// The `session` record (start, stop, log, run, history): type, routine, started_at, ended_at
/// (null while running), duration_ms (null while running), playlist or null, songs, label,
/// track_count, listened_ms.
struct SessionRecord: JSONRecord {
    /// The routine's name.
    var routine: String
    var session: RoutineSession

    /// From its start to its end; nil while it runs.
    var durationMs: Int? {
        guard let end = session.endedAt.flatMap(parseISOTimestamp), let start = parseISOTimestamp(session.startedAt)
        else { return nil }
        return max(0, Int(saturating: ((end - start) * 1000).rounded()))  // the file is outside input
    }

    var json: JSONValue {
        [
            "type": "session", "routine": .string(routine), "started_at": .string(session.startedAt),
            "ended_at": session.endedAt.map(JSONValue.string) ?? .null,
            "duration_ms": durationMs.map(JSONValue.int) ?? .null,
            "playlist": session.playlist?.record ?? .null,
            "songs": session.songs.map(JSONValue.double) ?? .null,
            "label": session.label.map(JSONValue.string) ?? .null,
            "track_count": session.trackCount.map(JSONValue.int) ?? .null,
            "listened_ms": session.listenedMs.map(JSONValue.int) ?? .null,
        ]
    }
}

extension Routine {
    var record: RoutineRecord { RoutineRecord(self) }

    func record(of session: RoutineSession) -> SessionRecord {
        SessionRecord(routine: name, session: session)
    }
}
