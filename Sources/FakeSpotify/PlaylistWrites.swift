import Foundation
import LoopbackHTTP
import ToolkitCore

/// A playlist as writes left it: created with `POST /me/playlists`, or a library playlist copied
/// out of the generated library at its first write. From then on every read of it comes from here.
struct WrittenPlaylist: Sendable {
    /// The playlist object without its embedded page (metadata: name, owner, public, ...).
    var object: JSONObject
    /// The entries, in the 2026 shape (`item`).
    var entries: [JSONValue]
    /// The snapshot_id before any write here; each write appends a new version to it.
    var baseSnapshot: String
    var version = 0

    var snapshotID: String { version == 0 ? baseSnapshot : baseSnapshot + "W\(version)" }
    var ownerID: String { object["owner"]?["id"]?.stringValue ?? "" }
    var isPublic: Bool { object["public"]?.boolValue ?? false }
    var isCollaborative: Bool { object["collaborative"]?.boolValue ?? false }

    /// The object as `GET /playlists/{id}` (`embedded` true: with its first page) or
    /// `/me/playlists` (a reference to the items) shows it.
    func rendered(embedded: JSONValue?, legacy: Bool) -> JSONValue {
        var object = self.object
        object["snapshot_id"] = .string(snapshotID)
        let id = object["id"]?.stringValue ?? ""
        let reference: JSONValue = [
            "href": .string("https://api.spotify.com/v1/playlists/\(id)/items"), "total": .int(entries.count),
        ]
        object["tracks"] = [
            "href": .string("https://api.spotify.com/v1/playlists/\(id)/tracks"), "total": .int(entries.count),
        ]
        object["items"] = reference
        if let embedded {
            object[legacy ? "tracks" : "items"] = embedded
            if !legacy { object["tracks"] = nil }
            object["followers"] = ["href": .null, "total": 0]
        } else if legacy {
            object["items"] = nil
        }
        return .object(object)
    }
}

extension FakeSpotifyService {
    /// Spotify's own limits on playlist writes.
    static let maxURIsPerRequest = 100
    static let maxPlaylistItems = 10_000

    // MARK: Reading what writes left

    func writtenPlaylist(_ id: String) -> WrittenPlaylist? { state.withLock { $0.writtenPlaylists[id] } }

    /// The written playlist a read gets: as it is, or (a stale_read fired) as it was before its
    /// most recent write, when it has been written since it was first copied or created.
    func writtenPlaylist(_ id: String, readBy request: RouteRequest) -> WrittenPlaylist? {
        state.withLock { state in
            if request.servesPreviousVersion, let previous = state.playlistsBeforeLastWrite[id] { return previous }
            return state.writtenPlaylists[id]
        }
    }

    /// `GET /playlists/{id}` of a written playlist, with its first 100 entries embedded.
    func writtenPlaylistResponse(_ written: WrittenPlaylist, _ request: RouteRequest) -> HTTPResponse {
        let id = written.object["id"]?.stringValue ?? ""
        let legacy = library.legacy
        let embedded = pageObject(
            request, id: id, path: "/playlists/\(id)/items", offset: 0, limit: 100, total: written.entries.count,
            items: Self.shaped(Array(written.entries.prefix(100)), legacy: legacy), extraQuery: [])
        return filtered(written.rendered(embedded: embedded, legacy: legacy), request)
    }

    /// `GET /playlists/{id}/items` of a written playlist.
    func writtenItemsResponse(_ written: WrittenPlaylist, _ request: RouteRequest, legacyEndpoint: Bool)
        -> HTTPResponse
    {
        let id = written.object["id"]?.stringValue ?? ""
        let keep = ["additional_types", "fields"].compactMap { name in request.http.queryValue(name).map { (name, $0) }
        }
        let legacy = library.legacy || legacyEndpoint
        return page(
            request, maxLimit: legacyEndpoint ? 100 : 50, total: written.entries.count,
            path: "/playlists/\(id)/\(legacyEndpoint ? "tracks" : "items")", extraQuery: keep
        ) { range in Self.shaped(Array(written.entries[range]), legacy: legacy) }
    }

    /// Entries in the legacy shape (`track`) when the app sees that one.
    static func shaped(_ entries: [JSONValue], legacy: Bool) -> [JSONValue] {
        guard legacy else { return entries }
        return entries.map { entry in
            guard var object = entry.objectValue else { return entry }
            object["track"] = object["item"]
            object["item"] = nil
            return .object(object)
        }
    }

    /// The user's playlists as `/me/playlists` lists them: the ones made here first (newest
    /// first, as Spotify lists a new playlist), then the library, as written.
    func listedPlaylists(_ library: [JSONValue], legacy: Bool) -> [JSONValue] {
        let (written, created) = state.withLock { ($0.writtenPlaylists, $0.createdPlaylists) }
        let made = created.reversed().compactMap { written[$0]?.rendered(embedded: nil, legacy: legacy) }
        let rest = library.map { playlist in
            guard let id = playlist["id"]?.stringValue, let copy = written[id] else { return playlist }
            return copy.rendered(embedded: nil, legacy: legacy)
        }
        return made + rest
    }

    // MARK: Writes

    /// `POST /me/playlists` {name, public, collaborative, description}: 201 with the new playlist.
    func createPlaylist(_ request: RouteRequest) -> HTTPResponse {
        guard let body = Self.jsonBody(request) else { return WebAPI.error(400, "Error parsing JSON.") }
        guard let name = body["name"]?.stringValue else { return WebAPI.error(400, "Missing required field: name") }
        let isPublic = body["public"]?.boolValue ?? true
        let collaborative = body["collaborative"]?.boolValue ?? false
        if collaborative && isPublic {
            return WebAPI.error(400, "Collaborative playlists can only be private.")
        }
        if let refused = requiresPlaylistScope(public: isPublic, request) { return refused }
        let id = state.withLock { state -> String in
            state.createdCount += 1
            return GeneratedLibrary.objectID(seed: "created playlist", index: state.createdCount)
        }
        var owner = GeneratedLibrary.user(GeneratedLibrary.userID).objectValue ?? [:]
        owner["display_name"] = "Fixture User"
        let object: JSONObject = [
            "collaborative": .bool(collaborative),
            "description": body["description"]?.stringValue.map(JSONValue.string) ?? .null,
            "external_urls": ["spotify": .string("https://open.spotify.com/playlist/\(id)")],
            "href": .string("https://api.spotify.com/v1/playlists/\(id)"),
            "id": .string(id),
            "images": [],
            "name": .string(name),
            "owner": .object(owner),
            "primary_color": .null,
            "public": .bool(isPublic),
            "type": "playlist",
            "uri": .string("spotify:playlist:\(id)"),
        ]
        let written = WrittenPlaylist(
            object: object, entries: [], baseSnapshot: "AAAA" + GeneratedLibrary.objectID(seed: id, index: 0))
        state.withLock {
            $0.writtenPlaylists[id] = written
            $0.createdPlaylists.append(id)
        }
        let embedded = pageObject(
            request, id: id, path: "/playlists/\(id)/items", offset: 0, limit: 100, total: 0, items: [],
            extraQuery: [])
        return WebAPI.json(written.rendered(embedded: embedded, legacy: library.legacy), status: 201)
    }

    /// `PUT /playlists/{id}` {name, public, collaborative, description}, any of them: 200, no body.
    func changePlaylistDetails(_ request: RouteRequest) -> HTTPResponse {
        guard let body = Self.jsonBody(request) else { return WebAPI.error(400, "Error parsing JSON.") }
        return writing(request) { playlist, _ in
            // Collaborators change a collaborative playlist's items; only its owner its details.
            guard playlist.ownerID == GeneratedLibrary.userID else {
                throw WriteRefusal(403, "You cannot change the details of a playlist you do not own.")
            }
            for (key, check) in [
                ("name", "string"), ("description", "string"), ("public", "bool"), ("collaborative", "bool"),
            ] {
                guard let value = body[key] else { continue }
                let fits = check == "string" ? value.stringValue != nil : value.boolValue != nil
                guard fits else { throw WriteRefusal(400, "Invalid value for \(key)") }
                playlist.object[key] = value
            }
            if playlist.isCollaborative && playlist.isPublic {
                throw WriteRefusal(400, "Collaborative playlists can only be private.")
            }
            return HTTPResponse(status: 200, headers: [], body: [])
        }
    }

    /// `POST /playlists/{id}/items` {uris, position} (or the same in the query): 201 {snapshot_id}.
    func addItems(_ request: RouteRequest) -> HTTPResponse {
        let body = Self.jsonBody(request)
        let uris =
            body?["uris"]?.arrayValue?.compactMap(\.stringValue)
            ?? request.http.queryValue("uris")?.split(separator: ",").map(String.init) ?? []
        let positionValue = body?["position"] ?? request.http.queryValue("position").map { .string($0) }
        return writing(request) { playlist, now in
            let entries = try Self.entries(for: uris, now: now)
            var position = playlist.entries.count
            if let positionValue {
                guard let given = positionValue.intValue ?? positionValue.stringValue.flatMap({ Int($0) }),
                    (0...playlist.entries.count).contains(given)
                else { throw WriteRefusal(400, "Index out of bounds") }
                position = given
            }
            guard playlist.entries.count + entries.count <= Self.maxPlaylistItems else {
                throw WriteRefusal(400, "Playlist size limit reached")
            }
            playlist.entries.insert(contentsOf: entries, at: position)
            return nil
        }
    }

    /// `PUT /playlists/{id}/items`: {uris} replaces every item (an empty list clears it, and every
    /// entry is new: added now, by the user); {range_start, insert_before, range_length,
    /// snapshot_id} moves a range. 200 {snapshot_id}.
    func replaceOrReorderItems(_ request: RouteRequest) -> HTTPResponse {
        let body = Self.jsonBody(request)
        if let body, body["range_start"] != nil {
            // snapshot_id names the version the client meant; Spotify does not refuse a move
            // against an older one (it applies it to the playlist as it is), so neither does this.
            return writing(request, success: 200) { playlist, _ in
                guard let start = body["range_start"]?.intValue, let before = body["insert_before"]?.intValue else {
                    throw WriteRefusal(400, "Index out of bounds")
                }
                // range_length defaults to 1 when it is absent; present, it must be a number.
                let length = body["range_length"].map { $0.intValue ?? 0 } ?? 1
                try Self.moveRange(of: &playlist.entries, start: start, length: length, insertBefore: before)
                return nil
            }
        }
        let uris =
            body?["uris"]?.arrayValue?.compactMap(\.stringValue)
            ?? request.http.queryValue("uris")?.split(separator: ",").map(String.init) ?? []
        return writing(request, success: 200) { playlist, now in
            playlist.entries = try Self.entries(for: uris, now: now)
            return nil
        }
    }

    /// Moves `length` entries from `start` to before the entry at `insertBefore`, both positions
    /// counted in the playlist before the move (the reference: range_start 0, insert_before 10
    /// moves the first of 10 items to the end; range_start 9, insert_before 0 the last to the
    /// start). So a range moved forward lands at `insertBefore - length` once it is taken out,
    /// and insert_before equal to range_start or range_start + range_length changes nothing.
    /// The entries move whole: added_at and added_by stay as they were.
    static func moveRange(of entries: inout [JSONValue], start: Int, length: Int, insertBefore: Int) throws {
        let count = entries.count
        guard (0..<count).contains(start), length >= 1, start + length <= count, (0...count).contains(insertBefore)
        else { throw WriteRefusal(400, "Index out of bounds") }
        // Inside the range it would be moved before one of its own items: no place to put it
        // (undocumented; refused rather than guessed, so a client's off-by-one shows).
        guard !(start + 1..<start + length).contains(insertBefore) else {
            throw WriteRefusal(400, "Index out of bounds")
        }
        let moved = Array(entries[start..<start + length])
        entries.removeSubrange(start..<start + length)
        let target = insertBefore > start ? insertBefore - length : insertBefore
        entries.insert(contentsOf: moved, at: target)
    }

    /// `DELETE /playlists/{id}/items` {items: [{uri}], snapshot_id}: every occurrence. 200 {snapshot_id}.
    func removeItems(_ request: RouteRequest) -> HTTPResponse {
        guard let body = Self.jsonBody(request), let items = body["items"]?.arrayValue else {
            return WebAPI.error(400, "Missing required field: items")
        }
        let uris = items.compactMap { $0["uri"]?.stringValue }
        guard uris.count == items.count else { return WebAPI.error(400, "Invalid item: each needs a uri") }
        guard uris.count <= Self.maxURIsPerRequest else {
            return WebAPI.error(400, "You can remove a maximum of \(Self.maxURIsPerRequest) tracks per request.")
        }
        return writing(request, success: 200) { playlist, _ in
            for uri in uris where FakeCatalog.parse(uri) == nil { throw WriteRefusal(400, "Invalid track uri: \(uri)") }
            let gone = Set(uris)
            playlist.entries.removeAll { entry in
                (entry["item"]?["uri"]?.stringValue).map(gone.contains) ?? false
            }
            return nil
        }
    }

    /// A removed write endpoint (`/playlists/{id}/tracks`, `/followers`, `/users/{id}/playlists`,
    /// `/me/tracks`): 403 for apps in Development Mode.
    func removedWriteEndpoint(_ request: RouteRequest) -> HTTPResponse {
        Fixtures.response("error-403-forbidden.json", status: 403)
    }

    // MARK: Shared steps

    struct WriteRefusal: Error, Sendable {
        var status: Int
        var message: String
        init(_ status: Int, _ message: String) {
            self.status = status
            self.message = message
        }
    }

    /// Runs `change` on the playlist (copied out of the generated library at its first write) as
    /// one locked step, after the checks every write shares: it exists (404), the user may change
    /// it (403), the token has the scope (403). A change that returns nil answers `success` with
    /// the new snapshot_id.
    func writing(
        _ request: RouteRequest, success: Int = 201,
        _ change: (inout WrittenPlaylist, Date) throws -> HTTPResponse?
    ) -> HTTPResponse {
        let id = request[parameter: "id"]
        // Copied out before the lock (it reads the library and the edits, which lock too).
        guard let current = writtenPlaylist(id) ?? materialized(id) else {
            return Fixtures.response("error-404-not-found.json", status: 404)
        }
        guard current.ownerID == GeneratedLibrary.userID || current.isCollaborative else {
            return WebAPI.error(403, "You cannot change a playlist you do not own.")
        }
        if let refused = requiresPlaylistScope(public: current.isPublic, request) { return refused }
        // One locked step from the playlist as it is to the playlist as written: concurrent
        // writes each see the other's result.
        let outcome = state.withLock { state -> Result<(HTTPResponse?, String), WriteRefusal> in
            var playlist = state.writtenPlaylists[id] ?? current
            let before = playlist
            do {
                let answer = try change(&playlist, state.now)
                playlist.version += 1
                state.writtenPlaylists[id] = playlist
                state.playlistsBeforeLastWrite[id] = before
                return .success((answer, playlist.snapshotID))
            } catch let refusal as WriteRefusal {
                return .failure(refusal)
            } catch {
                return .failure(WriteRefusal(500, "Server error"))
            }
        }
        switch outcome {
        case .success(let (answer, snapshot)):
            return answer ?? WebAPI.json(["snapshot_id": .string(snapshot)], status: success)
        case .failure(let refusal):
            return WebAPI.error(refusal.status, refusal.message)
        }
    }

    /// Changing a public playlist needs playlist-modify-public, a private one playlist-modify-private.
    func requiresPlaylistScope(public isPublic: Bool, _ request: RouteRequest) -> HTTPResponse? {
        requires([isPublic ? "playlist-modify-public" : "playlist-modify-private"], request)
    }

    /// A library playlist as it reads now, copied out for writing; nil when there is none to write.
    func materialized(_ id: String) -> WrittenPlaylist? {
        guard let kind = GeneratedLibrary.playlist(id) else { return nil }
        let legacy = false
        let object: JSONValue
        switch kind {
        case .notOwned:
            guard let fixture = Fixtures.json("playlist-not-owned.json") else { return nil }
            object = fixture
        case .fixture:
            guard let fixture = Fixtures.json("playlist.json") else { return nil }
            object = fixture
        default:
            object =
                Self.libraryPlaylists(library).first { $0["id"]?.stringValue == id }
                ?? Self.generatedPlaylist(id: id, total: GeneratedLibrary.total(of: kind))
        }
        let edited = applyingEdits(toPlaylist: object)
        var metadata = edited.objectValue ?? [:]
        for key in ["items", "tracks", "followers", "snapshot_id"] { metadata[key] = nil }
        let total = GeneratedLibrary.total(of: kind)
        let entries = applyingEdits(
            toEntries: GeneratedLibrary.entries(of: kind, id: id, range: 0..<total, legacy: legacy), id: id, offset: 0)
        return WrittenPlaylist(
            object: metadata, entries: entries, baseSnapshot: edited["snapshot_id"]?.stringValue ?? "AAAA")
    }

    static func jsonBody(_ request: RouteRequest) -> JSONValue? {
        guard !request.http.body.isEmpty, let value = try? JSONValue.parse(request.http.bodyText),
            value.objectValue != nil
        else { return nil }
        return value
    }

    /// Playlist entries for `uris`, as added now by the user (added_at in whole seconds, as
    /// Spotify writes it); a refusal for too many, a bad URI or a local file.
    static func entries(for uris: [String], now: Date) throws -> [JSONValue] {
        guard uris.count <= maxURIsPerRequest else {
            throw WriteRefusal(400, "You can add a maximum of \(maxURIsPerRequest) tracks per request.")
        }
        let addedAt = GeneratedLibrary.timestamp(secondsSince1970: Int(now.timeIntervalSince1970.rounded(.down)))
        return try uris.map { uri in
            if uri.hasPrefix("spotify:local:") { throw WriteRefusal(400, "Local tracks cannot be added: \(uri)") }
            guard let item = FakeCatalog.item(uri) else { throw WriteRefusal(400, "Invalid track uri: \(uri)") }
            return GeneratedLibrary.entry(item: item, addedAt: addedAt, isLocal: false, legacy: false)
        }
    }
}

/// Every track and episode fake-spotify can name by URI: the generated ones (their ids encode
/// the seed's hash and the index, and the seeds are remembered as they are used), the fixtures'
/// and the search catalogue's, and any other well-formed id as a made-up track, as Spotify knows
/// every track.
enum FakeCatalog {
    /// Seeds by the 11 characters of their hash that begin the ids made from them.
    static let seeds = Locked<[String: (seed: String, episode: Bool)]>([
        // The saved tracks' seed, known from the start (`/me/tracks` need not have been read).
        GeneratedLibrary.base62(GeneratedLibrary.fnv1a("liked"), width: 11): ("liked", false)
    ])
    /// Track and episode objects of the fixtures and the search catalogue, by URI.
    static let knownItems: [String: JSONValue] = {
        var items: [String: JSONValue] = [:]
        for entry in GeneratedLibrary.fixtureEntries(legacy: false) {
            if let item = PlaylistEntryItem.of(entry), let uri = item["uri"]?.stringValue { items[uri] = item }
        }
        for track in SearchCatalogue.tracks {
            if let uri = track["uri"]?.stringValue { items[uri] = track }
        }
        return items
    }()

    /// Remembers the seed of a playlist's generated tracks and episodes, so they can be added by URI.
    static func remember(playlistSeed seed: String) {
        let track = GeneratedLibrary.base62(GeneratedLibrary.fnv1a(seed), width: 11)
        let episode = GeneratedLibrary.base62(GeneratedLibrary.fnv1a(seed + "episode"), width: 11)
        seeds.withLock {
            if $0[track] == nil { $0[track] = (seed, false) }
            if $0[episode] == nil { $0[episode] = (seed, true) }
        }
    }

    /// The kind and id of a `spotify:track:` or `spotify:episode:` URI with a well-formed id.
    static func parse(_ uri: String) -> (kind: String, id: String)? {
        let parts = uri.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "spotify", parts[1] == "track" || parts[1] == "episode",
            parts[2].utf8.count == 22, parts[2].utf8.allSatisfy({ GeneratedLibrary.alphabet.contains($0) })
        else { return nil }
        return (String(parts[1]), String(parts[2]))
    }

    static func item(_ uri: String) -> JSONValue? {
        guard let (kind, id) = parse(uri) else { return nil }
        if let known = knownItems[uri] { return known }
        // The catalogue's (CatalogHandlers.swift), as a playlist entry holds them.
        if let item = kind == "track" ? FakeCatalogue.track(id: id) : FakeCatalogue.episode(id: id),
            var object = item.objectValue
        {
            object["episode"] = .bool(kind == "episode")
            object["track"] = .bool(kind == "track")
            return .object(object)
        }
        let hash = String(id.prefix(11))
        let index = id.suffix(11).utf8.reduce(UInt64(0)) { value, digit in
            value &* 62 &+ UInt64(GeneratedLibrary.alphabet.firstIndex(of: digit) ?? 0)
        }
        if let known = seeds.withLock({ $0[hash] }), index < 1_000_000, known.episode == (kind == "episode") {
            return known.episode
                ? GeneratedLibrary.episode(seed: known.seed, index: Int(index))
                : GeneratedLibrary.track(seed: known.seed, index: Int(index), inPlaylist: true)
        }
        // Any other id: a made-up item under that id.
        let made =
            kind == "episode"
            ? GeneratedLibrary.episode(seed: "catalogue", index: 0)
            : GeneratedLibrary.track(seed: "catalogue" + id, index: 0, inPlaylist: true)
        guard var object = made.objectValue else { return nil }
        object["id"] = .string(id)
        object["uri"] = .string(uri)
        object["href"] = .string("https://api.spotify.com/v1/\(kind)s/\(id)")
        object["external_urls"] = ["spotify": .string("https://open.spotify.com/\(kind)/\(id)")]
        if kind == "track" { object["name"] = .string("Track \(id)") }
        return .object(object)
    }
}

/// The item of a playlist entry (`item`, or the legacy `track`).
enum PlaylistEntryItem {
    static func of(_ entry: JSONValue) -> JSONValue? {
        if let item = entry["item"], item.objectValue != nil { return item }
        if let item = entry["track"], item.objectValue != nil { return item }
        return nil
    }
}
