import LoopbackHTTP
import ToolkitCore

/// Edits someone made to a playlist (`POST /_fake/edit-playlist`), as caches must notice them:
/// each edit gives the playlist a new snapshot_id and changes one of its items.
struct PlaylistEdit: Sendable, Equatable {
    /// Edits so far; part of the snapshot_id.
    var count = 0
    /// How many edits changed the item at each position.
    var positions: [Int: Int] = [:]
}

extension FakeSpotifyService {
    /// `POST /_fake/edit-playlist id=ID [position=N]`: the item at position N (default 0) gets
    /// " (edit K)" after its name and K seconds more duration, and the playlist a new snapshot_id.
    /// Answers `{"id", "edits", "position", "snapshot_id"}`.
    func editPlaylist(_ request: RouteRequest) -> HTTPResponse {
        do {
            guard let id = request.field("id"), let playlist = GeneratedLibrary.playlist(id), playlist != .notOwned
            else {
                throw ControlError(
                    "id must name a playlist of the user's with items (gen…, mix…, or a fixture playlist)")
            }
            let total = GeneratedLibrary.total(of: playlist)
            let position = try request.field("position").map { try FakeSpotifySettings.int("position", $0) } ?? 0
            guard (0..<max(total, 1)).contains(position) else {
                throw ControlError("position must be 0...\(max(total - 1, 0))")
            }
            let edit = state.withLock { state in
                var edit = state.playlistEdits[id] ?? PlaylistEdit()
                edit.count += 1
                edit.positions[position, default: 0] += 1
                state.playlistEdits[id] = edit
                return edit
            }
            let snapshot = applyingEdits(toPlaylist: [
                "id": .string(id), "snapshot_id": .string(Self.snapshotID(of: id, playlist: playlist)),
            ])
            return Control.json([
                "id": .string(id), "edits": .int(edit.count), "position": .int(position),
                "snapshot_id": snapshot["snapshot_id"] ?? .null,
            ])
        } catch {
            return Control.error(error)
        }
    }

    /// The unedited snapshot_id of a playlist of the library.
    static func snapshotID(of id: String, playlist: GeneratedLibrary.Playlist) -> String {
        if playlist == .fixture { return Fixtures.json("playlist.json")?["snapshot_id"]?.stringValue ?? "" }
        return generatedPlaylist(id: id, total: GeneratedLibrary.total(of: playlist))["snapshot_id"]?.stringValue ?? ""
    }

    /// A playlist object (simplified or full) as edited: its snapshot_id, and its embedded first page.
    func applyingEdits(toPlaylist value: JSONValue) -> JSONValue {
        guard var object = value.objectValue, let id = object["id"]?.stringValue,
            let edit = state.withLock({ $0.playlistEdits[id] })
        else { return value }
        if let snapshot = object["snapshot_id"]?.stringValue {
            object["snapshot_id"] = .string(snapshot + "E\(edit.count)")
        }
        for key in ["items", "tracks"] {
            guard var page = object[key]?.objectValue, let entries = page["items"]?.arrayValue else { continue }
            page["items"] = .array(Self.edited(entries, offset: page["offset"]?.intValue ?? 0, edit: edit))
            object[key] = .object(page)
        }
        return .object(object)
    }

    /// Entries of a page starting at `offset`, as edited.
    func applyingEdits(toEntries entries: [JSONValue], id: String, offset: Int) -> [JSONValue] {
        guard let edit = state.withLock({ $0.playlistEdits[id] }) else { return entries }
        return Self.edited(entries, offset: offset, edit: edit)
    }

    static func edited(_ entries: [JSONValue], offset: Int, edit: PlaylistEdit) -> [JSONValue] {
        entries.enumerated().map { index, entry in
            guard let times = edit.positions[offset + index], var object = entry.objectValue else { return entry }
            for key in ["item", "track"] {
                guard var item = object[key]?.objectValue else { continue }
                if let name = item["name"]?.stringValue { item["name"] = .string("\(name) (edit \(times))") }
                if let duration = item["duration_ms"]?.intValue { item["duration_ms"] = .int(duration + 1000 * times) }
                object[key] = .object(item)
            }
            return .object(object)
        }
    }
}

extension FakeSpotifyService {
    /// Who `POST /_fake/other-client` edits as: not the logged-in user.
    static let otherClientUserID = "another-user"

    /// `POST /_fake/other-client id=ID` and one change, made by another user's client as one write
    /// (a new snapshot_id, as every write of Spotify's gives): `remove_positions=P,Q,...` takes out
    /// the entries at those positions; `range_start=S insert_before=B [range_length=L]` moves a
    /// range as `PUT /items` does; `add=URI,URI... [position=N]` inserts them, added now by
    /// another-user. Entries that stay keep their added_at and added_by. Answers `{"id",
    /// "snapshot_id", "total"}`.
    func otherClientEdit(_ request: RouteRequest) -> HTTPResponse {
        do {
            guard let id = request.field("id"), let current = writtenPlaylist(id) ?? materialized(id) else {
                throw ControlError("id must name a playlist that exists (gen…, mix…, a fixture or created playlist)")
            }
            let removals = try request.field("remove_positions").map { text in
                try text.split(separator: ",").map { try FakeSpotifySettings.int("remove_positions", String($0)) }
            }
            let start = try request.field("range_start").map { try FakeSpotifySettings.int("range_start", $0) }
            let before = try request.field("insert_before").map { try FakeSpotifySettings.int("insert_before", $0) }
            let length = try request.field("range_length").map { try FakeSpotifySettings.int("range_length", $0) } ?? 1
            let adds = request.field("add").map { $0.split(separator: ",").map(String.init) }
            let position = try request.field("position").map { try FakeSpotifySettings.int("position", $0) }
            guard [removals != nil, start != nil || before != nil, adds != nil].count(where: { $0 }) == 1 else {
                throw ControlError("give one change: remove_positions, range_start and insert_before, or add")
            }
            let written = try state.withLock { state -> WrittenPlaylist in
                var playlist = state.writtenPlaylists[id] ?? current
                let previous = playlist
                if let removals {
                    let gone = Set(removals)
                    guard gone.allSatisfy({ (0..<playlist.entries.count).contains($0) }) else {
                        throw ControlError("remove_positions must be 0...\(playlist.entries.count - 1)")
                    }
                    playlist.entries = playlist.entries.enumerated().filter { !gone.contains($0.offset) }.map(\.element)
                } else if let adds {
                    let addedAt = GeneratedLibrary.timestamp(
                        secondsSince1970: Int(state.now.timeIntervalSince1970.rounded(.down)))
                    var entries: [JSONValue] = []
                    for uri in adds {
                        guard let item = FakeCatalog.item(uri) else {
                            throw ControlError("not a track or episode: \(uri)")
                        }
                        var entry = GeneratedLibrary.entry(item: item, addedAt: addedAt, isLocal: false, legacy: false)
                        if var object = entry.objectValue {
                            object["added_by"] = GeneratedLibrary.user(Self.otherClientUserID)
                            entry = .object(object)
                        }
                        entries.append(entry)
                    }
                    let at = position ?? playlist.entries.count
                    guard (0...playlist.entries.count).contains(at) else {
                        throw ControlError("position must be 0...\(playlist.entries.count)")
                    }
                    playlist.entries.insert(contentsOf: entries, at: at)
                } else {
                    guard let start, let before else {
                        throw ControlError("a move needs range_start and insert_before")
                    }
                    do {
                        try Self.moveRange(of: &playlist.entries, start: start, length: length, insertBefore: before)
                    } catch {
                        throw ControlError("the range is out of bounds (\(playlist.entries.count) entries)")
                    }
                }
                playlist.version += 1
                state.writtenPlaylists[id] = playlist
                state.playlistsBeforeLastWrite[id] = previous
                return playlist
            }
            return Control.json([
                "id": .string(id), "snapshot_id": .string(written.snapshotID), "total": .int(written.entries.count),
            ])
        } catch {
            return Control.error(error)
        }
    }
}
