import SpotifyClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The playlist a routine is linked to, as routine-link stores it: enough to open it and to show
/// it (name, cover art) without asking Spotify again.
package struct PlaylistLink: Codable, Sendable, Equatable {
    /// What a routine may be linked to: a playlist, an album, or a single track (a session of one song).
    package static let kinds: [SpotifyReference.Kind] = [.playlist, .album, .track]

    package var id: String
    /// `spotify:playlist:ID`, `spotify:album:ID` or `spotify:track:ID`.
    package var uri: String
    /// nil when the link was made offline from an id alone.
    package var name: String?
    var imageURL: String?
    /// The total length, when the link was made from a record that tells it (a `get --duration`
    /// playlist record, a track record) or Spotify's answer did (a track, a short album).
    package var durationMs: Int?

    package init(id: String, uri: String, name: String? = nil, imageURL: String? = nil, durationMs: Int? = nil) {
        self.id = id
        self.uri = uri
        self.name = name
        self.imageURL = imageURL
        self.durationMs = durationMs
    }

    enum CodingKeys: String, CodingKey {
        case id, uri, name
        case imageURL = "image_url"
        case durationMs = "duration_ms"
    }

    /// From an id alone.
    package init(_ reference: SpotifyReference) {
        self.init(id: reference.id, uri: reference.uri)
    }

    /// From a Spotify playlist, album or track object (`GET /playlists/{id}`), a spotify-playlists
    /// `playlist` record or a track record (same field names), or a routine's own `playlist`
    /// object (`image_url`). The cover is the largest image (a track's, its album's). nil when the
    /// value names none of `kinds`.
    package init?(playlistObject value: JSONValue) {
        guard value.objectValue != nil,
            let reference = try? SpotifyReference.parse(value.serialized(), expectingOneOf: Self.kinds)
        else { return nil }
        self.init(reference)
        takeMetadata(from: value)
    }

    /// The name, cover and duration of an object or record, whatever its `uri` and `type` say:
    /// the caller knows what it asked for.
    mutating func takeMetadata(from value: JSONValue) {
        name = value["name"]?.stringValue
        imageURL =
            value["image_url"]?.stringValue
            ?? TrackRecord.images(value["images"]).arrayValue?.first?["url"]?.stringValue
            ?? TrackRecord.images(value["album"]?["images"]).arrayValue?.first?["url"]?.stringValue
        durationMs = value["duration_ms"]?.intValue.flatMap { $0 >= 0 ? $0 : nil } ?? durationMs
    }

    /// What the link names (a playlist for links stored before albums and tracks could be linked).
    package var kind: SpotifyReference.Kind {
        (try? SpotifyReference.parse(uri, expectingOneOf: Self.kinds))?.kind ?? .playlist
    }

    package var webURL: String { SpotifyReference(kind: kind, id: id).webURL }

    package var record: JSONValue {
        [
            "id": .string(id), "uri": .string(uri), "name": name.map(JSONValue.string) ?? .null,
            "image_url": imageURL.map(JSONValue.string) ?? .null,
            "duration_ms": durationMs.map(JSONValue.int) ?? .null,
        ]
    }
}

/// One listening session of a routine: started (running while `endedAt` is nil), then logged
/// with the song count of what was heard.
package struct RoutineSession: Codable, Sendable, Equatable {
    package var id: String
    var startedAt: String
    var endedAt: String?
    /// The playlist linked when the session started (kept when the routine is relinked later).
    package var playlist: PlaylistLink?
    package var songs: Double?
    package var label: String?
    package var trackCount: Int?
    package var listenedMs: Int?

    enum CodingKeys: String, CodingKey {
        case id, playlist, songs, label
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case trackCount = "track_count"
        case listenedMs = "listened_ms"
    }

    package var isRunning: Bool { endedAt == nil }

    /// The label of a session closed without a count (`stop`, or a later `start`): history shows
    /// it ended, and says why it has no songs.
    static let notLoggedLabel = "not logged"
}

/// What `routine-link edit` changes; a nil field is left as it is.
struct RoutineEdit: Sendable, Equatable {
    enum Change<Value: Sendable & Equatable>: Sendable, Equatable {
        case set(Value)
        case clear
    }

    var durationMs: Change<Int>?
    var note: Change<String>?
    var name: String?

    init(durationMs: Change<Int>? = nil, note: Change<String>? = nil, name: String? = nil) {
        self.durationMs = durationMs
        self.note = note
        self.name = name
    }

    var isEmpty: Bool { durationMs == nil && note == nil && name == nil }
}

package struct Routine: Codable, Sendable, Equatable {
    /// Stable across renames.
    package var id: String
    package var name: String
    package var durationMs: Int?
    package var note: String?
    package var playlist: PlaylistLink?
    var createdAt: String
    /// Oldest first, as they happened.
    package var sessions: [RoutineSession]

    enum CodingKeys: String, CodingKey {
        case id, name, note, playlist, sessions
        case durationMs = "duration_ms"
        case createdAt = "created_at"
    }

    package init(
        id: String = UUID().uuidString.lowercased(), name: String, durationMs: Int? = nil, note: String? = nil,
        playlist: PlaylistLink? = nil, createdAt: String, sessions: [RoutineSession] = []
    ) {
        self.id = id
        self.name = name
        self.durationMs = durationMs
        self.note = note
        self.playlist = playlist
        self.createdAt = createdAt
        self.sessions = sessions
    }

    /// The latest session that was started and not logged yet.
    var runningSessionIndex: Int? { sessions.lastIndex { $0.isRunning } }
}

/// The routines document: every routine with its sessions. All operations are pure (the time is
/// passed in); `RoutineStore` runs them under the store's lock.
struct RoutineBook: Codable, Sendable, Equatable {
    var routines: [Routine] = []

    /// Names compare case-insensitively (`DocumentNames.key`).
    static func nameKey(_ name: String) -> String {
        DocumentNames.key(name)
    }

    /// A name as stored (`DocumentNames.validated`).
    static func validatedName(_ raw: String) throws -> String {
        try DocumentNames.validated(raw, noun: "routine")
    }

    func index(of name: String) -> Int? {
        let key = Self.nameKey(name.trimmingCharacters(in: .whitespacesAndNewlines))
        return routines.firstIndex { Self.nameKey($0.name) == key }
    }

    /// The routine named `name`, or exit 1 with the names there are.
    func existingIndex(of name: String) throws -> Int {
        if let index = index(of: name) { return index }
        let known =
            routines.isEmpty
            ? "there are no routines yet; add one with: routine-link add NAME"
            : "known: " + routines.map { "'\($0.name)'" }.joined(separator: ", ")
        throw ToolError(.notFound, "no routine named '\(name.prefix(200))' (\(known))")
    }

    @discardableResult
    mutating func add(name rawName: String, durationMs: Int?, note: String?, now: String) throws -> Routine {
        let name = try Self.validatedName(rawName)
        if let existing = index(of: name) {
            throw ToolError.dataError(
                "a routine named '\(routines[existing].name)' already exists (names are case-insensitive)")
        }
        let routine = Routine(name: name, durationMs: durationMs, note: note, createdAt: now)
        routines.append(routine)
        return routine
    }

    /// Renaming to a different case of the same name is allowed; to another routine's name is not.
    @discardableResult
    mutating func rename(_ old: String, to rawNew: String) throws -> Routine {
        let index = try existingIndex(of: old)
        let new = try Self.validatedName(rawNew)
        if let other = self.index(of: new), other != index {
            throw ToolError.dataError(
                "a routine named '\(routines[other].name)' already exists (names are case-insensitive)")
        }
        routines[index].name = new
        return routines[index]
    }

    @discardableResult
    mutating func remove(_ name: String) throws -> Routine {
        routines.remove(at: try existingIndex(of: name))
    }

    @discardableResult
    mutating func link(_ name: String, to playlist: PlaylistLink?) throws -> Routine {
        let index = try existingIndex(of: name)
        routines[index].playlist = playlist
        return routines[index]
    }

    /// The disconnect: every routine's playlist link goes; routines and sessions (with the
    /// playlists they were played with) stay. Returns how many links were cleared.
    @discardableResult
    mutating func forgetLinks() -> Int {
        var cleared = 0
        for index in routines.indices where routines[index].playlist != nil {
            routines[index].playlist = nil
            cleared += 1
        }
        return cleared
    }

    /// Changes what `edit` names, nothing else; a new name follows `rename`'s rule. Nothing
    /// changes when any part is refused.
    @discardableResult
    mutating func edit(_ name: String, _ edit: RoutineEdit) throws -> Routine {
        let index = try existingIndex(of: name)
        // First, so a refused name leaves the rest unchanged too; the routine keeps its place.
        if let new = edit.name { try rename(routines[index].name, to: new) }
        switch edit.durationMs {
        case .set(let milliseconds): routines[index].durationMs = milliseconds
        case .clear: routines[index].durationMs = nil
        case nil: break
        }
        switch edit.note {
        case .set(let text): routines[index].note = text
        case .clear: routines[index].note = nil
        case nil: break
        }
        return routines[index]
    }

    /// Closes every running session of the routine at `index` without a count: ended `now`, no
    /// songs, labelled "not logged". Oldest first. A session nobody logged is over for good, so
    /// it is reported once, here, and history stops calling it running.
    private mutating func closeRunningSessions(at index: Int, now: String) -> [RoutineSession] {
        var closed: [RoutineSession] = []
        for position in routines[index].sessions.indices where routines[index].sessions[position].isRunning {
            routines[index].sessions[position].endedAt = now
            routines[index].sessions[position].songs = nil
            routines[index].sessions[position].label = RoutineSession.notLoggedLabel
            closed.append(routines[index].sessions[position])
        }
        return closed
    }

    /// `routine-link stop`: ends the running session (and any older one a previous version left
    /// open) without a count. Empty when nothing was running.
    mutating func stop(_ name: String, now: String) throws -> (routine: Routine, closed: [RoutineSession]) {
        let index = try existingIndex(of: name)
        let closed = closeRunningSessions(at: index, now: now)
        return (routines[index], closed)
    }

    /// Starts a session with the routine's current playlist. A session still running was
    /// abandoned (a new start means the earlier one is over): it is closed as `stop` closes it
    /// and returned in `closed`, so the caller says so once and never again.
    mutating func start(_ name: String, now: String, id: String = UUID().uuidString.lowercased()) throws -> (
        routine: Routine, session: RoutineSession, closed: [RoutineSession]
    ) {
        let index = try existingIndex(of: name)
        let closed = closeRunningSessions(at: index, now: now)
        let session = RoutineSession(id: id, startedAt: now, endedAt: nil, playlist: routines[index].playlist)
        routines[index].sessions.append(session)
        return (routines[index], session, closed)
    }

    /// Ends the running session with `count`; without one, records a finished session that
    /// ended `now` and started as long before as the count says was heard (listened_ms, else
    /// target_ms, else the routine's duration).
    ///
    /// `sessionID`: the session `run` started. It takes the count even when it was closed
    /// meanwhile (a `start` or `stop` elsewhere while the run listened): what was heard belongs
    /// to the session that heard it, not to one started later.
    mutating func log(_ name: String, count: SongCountSummary, now: String, sessionID: String? = nil) throws
        -> (routine: Routine, session: RoutineSession)
    {
        let index = try existingIndex(of: name)
        let sessionIndex: Int
        if let sessionID, let own = routines[index].sessions.firstIndex(where: { $0.id == sessionID }) {
            sessionIndex = own
        } else if let running = routines[index].runningSessionIndex {
            sessionIndex = running
        } else {
            let endTime = parseISOTimestamp(now) ?? 0
            let lengthMs = count.listenedMs ?? count.targetMs ?? routines[index].durationMs ?? 0
            let session = RoutineSession(
                id: UUID().uuidString.lowercased(), startedAt: isoTimestamp(endTime - Double(lengthMs) / 1000),
                endedAt: nil, playlist: routines[index].playlist)
            routines[index].sessions.append(session)
            sessionIndex = routines[index].sessions.count - 1
        }
        routines[index].sessions[sessionIndex].endedAt = now
        routines[index].sessions[sessionIndex].songs = count.songs
        routines[index].sessions[sessionIndex].label = count.label
        routines[index].sessions[sessionIndex].trackCount = count.trackCount
        routines[index].sessions[sessionIndex].listenedMs = count.listenedMs
        return (routines[index], routines[index].sessions[sessionIndex])
    }

    /// Drops the session `id` (a `run` that heard nothing). True when it was there.
    @discardableResult
    mutating func discardSession(_ id: String) -> Bool {
        for index in routines.indices {
            if let position = routines[index].sessions.firstIndex(where: { $0.id == id }) {
                routines[index].sessions.remove(at: position)
                return true
            }
        }
        return false
    }

    /// Session records, newest first, of one routine or of all.
    func history(of name: String? = nil) throws -> [SessionRecord] {
        let selected = try name.map { [routines[try existingIndex(of: $0)]] } ?? routines
        let all = selected.flatMap { routine in routine.sessions.map { (routine, $0) } }
        return all.enumerated().sorted { lhs, rhs in
            let left = parseISOTimestamp(lhs.element.1.startedAt) ?? 0
            let right = parseISOTimestamp(rhs.element.1.startedAt) ?? 0
            return left != right ? left > right : lhs.offset > rhs.offset
        }.map { SessionRecord(routine: $0.element.0.name, session: $0.element.1) }
    }
}

extension LinkOpener {
    /// The link to open a playlist with: its `spotify:` URI when the Spotify app handles those,
    /// else the web link (which offers to open the app). Pure.
    static func playlistLink(_ playlist: PlaylistLink, schemeHasHandler: Bool) -> String {
        schemeHasHandler ? playlist.uri : playlist.webURL
    }
}
