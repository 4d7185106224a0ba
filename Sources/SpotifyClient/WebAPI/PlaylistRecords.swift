import ToolkitCore

/// Spotify's playlist objects and playlist entries as the toolkit's records. Pure, lenient: a
/// missing or null field becomes null, never an error. Reads both the 2026 shape (`items`,
/// `item`) and the legacy one (`tracks`, `track`).
package enum PlaylistRecord {
    /// The `playlist` record for a simplified (`/me/playlists`) or full (`GET /playlists/{id}`)
    /// playlist object. Fields, in order: type, id, uri, name, description, owner {id,
    /// display_name}, public, collaborative, snapshot_id, images (largest first, maybe empty),
    /// items_total (`items.total`, legacy `tracks.total`; null when Spotify sent neither, as for
    /// playlists you neither own nor collaborate on), external_url.
    package static func make(from playlist: JSONValue) -> JSONObject? {
        guard playlist.objectValue != nil else { return nil }
        let owner = playlist["owner"]
        let page = playlist["items"]?.objectValue != nil ? playlist["items"] : playlist["tracks"]
        let total = page?["total"]?.intValue.flatMap { $0 >= 0 ? JSONValue.int($0) : nil } ?? .null
        return [
            "type": "playlist",
            "id": TrackRecord.string(playlist["id"]),
            "uri": TrackRecord.string(playlist["uri"]),
            "name": TrackRecord.string(playlist["name"]),
            "description": TrackRecord.string(playlist["description"]),
            "owner": owner?.objectValue == nil
                ? .null
                : .object([
                    "id": TrackRecord.string(owner?["id"]), "display_name": TrackRecord.string(owner?["display_name"]),
                ]),
            "public": playlist["public"]?.boolValue.map(JSONValue.bool) ?? .null,
            "collaborative": .bool(playlist["collaborative"]?.boolValue ?? false),
            "snapshot_id": TrackRecord.string(playlist["snapshot_id"]),
            "images": TrackRecord.images(playlist["images"]),
            "items_total": total,
            "external_url": TrackRecord.string(playlist["external_urls"]?["spotify"]),
        ]
    }

    /// The `fields` filter for `GET /playlists/{id}`: only what `make` reads (both shapes).
    package static let metadataFields =
        "type,id,uri,name,description,owner(id,display_name),public,collaborative,snapshot_id,images,items.total,tracks.total,external_urls"
}

/// One entry of a playlist page (`/playlists/{id}/items`) or of the saved tracks (`/me/tracks`):
/// `{added_at, is_local, item}` (legacy and saved tracks: `track`), the item a track, an episode,
/// a local file, or null when it is no longer available.
package enum PlaylistEntry {
    package enum Kind: Sendable, Equatable {
        case track, episode, local
        /// `item` is null: removed from Spotify or unavailable.
        case unavailable
    }

    /// The track or episode object, reading `item` and then the legacy `track` key.
    package static func item(of entry: JSONValue) -> JSONValue? {
        if let item = entry["item"], item.objectValue != nil { return item }
        if let track = entry["track"], track.objectValue != nil { return track }
        return nil
    }

    /// Decided by `type` and `is_local`, never by the URI alone or the `track`/`episode` flags.
    package static func kind(of entry: JSONValue) -> Kind {
        guard let item = item(of: entry) else { return .unavailable }
        if entry["is_local"]?.boolValue == true || item["is_local"]?.boolValue == true { return .local }
        return item["type"]?.stringValue == "episode" ? .episode : .track
    }

    /// The track or episode record (see `TrackRecord`) followed by added_at, position (zero-based,
    /// counting every entry) and playlist {id, uri} (null for saved tracks). nil for an unavailable item.
    package static func record(_ entry: JSONValue, position: Int, playlist: SpotifyReference?) -> JSONObject? {
        guard var record = TrackRecord.make(from: item(of: entry)) else { return nil }
        if entry["is_local"]?.boolValue == true { record["is_local"] = true }
        record["added_at"] = TrackRecord.string(entry["added_at"])
        record["position"] = .int(position)
        record["playlist"] = playlist.map { .object(["id": .string($0.id), "uri": .string($0.uri)]) } ?? .null
        return record
    }

    /// The `fields` filter for `/playlists/{id}/items`: what `record` reads, under both the 2026
    /// `item` key and the legacy `track` key.
    package static let itemFields: String = {
        let object = "type,id,uri,name,duration_ms,is_local,artists(id,name),album(id,name,images),show(id,name,images)"
        return "total,items(added_at,is_local,item(\(object)),track(\(object)))"
    }()

    /// The `fields` filter for `GET /playlists/{id}` when it stands for the first page: the
    /// snapshot_id, and the embedded page (2026 `items`, legacy `tracks`) with its limit and
    /// `pageFields` inside (nil: whole entries).
    package static func objectFields(pageFields: String?) -> String {
        guard let pageFields else { return "snapshot_id,items,tracks" }
        return "snapshot_id,items(limit,\(pageFields)),tracks(limit,\(pageFields))"
    }

    /// The `fields` filter when only durations are needed (`spotify-playlists get --duration`).
    package static let durationFields = "total,items(item(duration_ms),track(duration_ms))"

    /// `additional_types` for every playlist request: without `episode`, Spotify sends episodes
    /// track-shaped or not at all.
    package static let additionalTypes = ("additional_types", "track,episode")
}
