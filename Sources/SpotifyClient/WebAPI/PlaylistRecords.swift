import ToolkitCore

/// Spotify's playlist objects and playlist entries as the toolkit's records. Pure, lenient: a
/// missing or null field becomes null, never an error. Reads both the 2026 shape (`items`,
/// `item`) and the legacy one (`tracks`, `track`).
///
/// The `playlist` record of a simplified (`/me/playlists`) or full (`GET /playlists/{id}`)
/// playlist object. Fields, in order: type, id, uri, name, description, owner {id,
/// display_name}, public, collaborative, snapshot_id, images (largest first, maybe empty),
/// items_total (`items.total`, legacy `tracks.total`; null when Spotify sent neither, as for
/// playlists you neither own nor collaborate on), external_url.
package struct PlaylistRecord: JSONRecord, Equatable {
    package struct Owner: Sendable, Equatable {
        package var id: String?
        package var displayName: String?
    }

    package var id: String?
    package var uri: String?
    package var name: String?
    package var description: String?
    /// nil when Spotify sent no owner object (the record's owner is then null).
    package var owner: Owner?
    package var isPublic: Bool?
    package var collaborative: Bool
    package var snapshotID: String?
    /// `{url, height, width}` objects as `TrackRecord.images` orders them.
    package var images: JSONValue
    package var itemsTotal: Int?
    package var externalURL: String?

    /// The record of a playlist object, or nil when `playlist` is not an object.
    package init?(_ playlist: JSONValue) {
        guard playlist.objectValue != nil else { return nil }
        let owner = playlist["owner"]
        let page = playlist["items"]?.objectValue != nil ? playlist["items"] : playlist["tracks"]
        id = playlist["id"]?.stringValue
        uri = playlist["uri"]?.stringValue
        name = playlist["name"]?.stringValue
        description = playlist["description"]?.stringValue
        self.owner =
            owner?.objectValue == nil
            ? nil : Owner(id: owner?["id"]?.stringValue, displayName: owner?["display_name"]?.stringValue)
        isPublic = playlist["public"]?.boolValue
        collaborative = playlist["collaborative"]?.boolValue ?? false
        snapshotID = playlist["snapshot_id"]?.stringValue
        images = TrackRecord.images(playlist["images"])
        itemsTotal = page?["total"]?.intValue.flatMap { $0 >= 0 ? $0 : nil }
        externalURL = playlist["external_urls"]?["spotify"]?.stringValue
    }

    package var json: JSONValue { .object(object) }

    /// The record's fields, for a caller that appends its own (`spotify-playlists --duration`).
    package var object: JSONObject {
        [
            "type": "playlist",
            "id": Self.text(id),
            "uri": Self.text(uri),
            "name": Self.text(name),
            "description": Self.text(description),
            "owner": owner.map { .object(["id": Self.text($0.id), "display_name": Self.text($0.displayName)]) }
                ?? .null,
            "public": isPublic.map(JSONValue.bool) ?? .null,
            "collaborative": .bool(collaborative),
            "snapshot_id": Self.text(snapshotID),
            "images": images,
            "items_total": itemsTotal.map(JSONValue.int) ?? .null,
            "external_url": Self.text(externalURL),
        ]
    }

    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// The record as an object (`PlaylistWriter.record(of:)` and routine-link keep it so).
    package static func make(from playlist: JSONValue) -> JSONObject? {
        PlaylistRecord(playlist)?.object
    }

    /// The `fields` filter for `GET /playlists/{id}`: only what `init` reads (both shapes).
    package static let metadataFields =
        """
        type,id,uri,name,description,owner(id,display_name),public,collaborative,snapshot_id,images,\
        items.total,tracks.total,external_urls
        """
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
    /// counting every entry), playlist {id, uri, name, snapshot_id} (null for saved tracks; name
    /// and snapshot_id null when not known) and, for spotify-tracks' reads, source
    /// (`RecordSource`). nil for an unavailable item. The snapshot_id is the version the read
    /// began at: what lets `replace` refuse records of a playlist that has changed since.
    package static func record(
        _ entry: JSONValue, position: Int, playlist: SpotifyReference?, name: String? = nil,
        snapshot: String? = nil, source: RecordSource? = nil
    ) -> TrackRecord? {
        record(
            entry, item: TrackRecord(spotify: item(of: entry)), position: position, playlist: playlist, name: name,
            snapshot: snapshot, source: source)
    }

    /// The same, from the record of the entry's item already built (`Page.itemRecord`).
    package static func record(
        _ entry: JSONValue, item: TrackRecord?, position: Int, playlist: SpotifyReference?, name: String? = nil,
        snapshot: String? = nil, source: RecordSource? = nil
    ) -> TrackRecord? {
        guard var record = item else { return nil }
        if entry["is_local"]?.boolValue == true { record.isLocal = true }
        record.addedAt = .init(entry["added_at"]?.stringValue)
        record.addedBy = .init(entry["added_by"]?["id"]?.stringValue)
        record.position = position
        record.playlist = .init(
            playlist.map {
                TrackRecord.Playlist(id: $0.id, uri: $0.uri, name: name, snapshotID: snapshot)
            })
        record.source = source
        return record
    }

    /// The `fields` filter for `/playlists/{id}/items`: what `record` reads, under both the 2026
    /// `item` key and the legacy `track` key.
    package static let itemFields: String = {
        let object = TrackRecord.objectFields
        return "total,offset,items(added_at,added_by(id),is_local,item(\(object)),track(\(object)))"
    }()

    /// The `fields` filter for `GET /playlists/{id}` when it stands for the first page: the
    /// snapshot_id, and the embedded page (2026 `items`, legacy `tracks`) with its limit and
    /// `pageFields` inside (nil: whole entries).
    package static func objectFields(pageFields: String?) -> String {
        guard let pageFields else { return "snapshot_id,name,items,tracks" }
        return "snapshot_id,name,items(limit,\(pageFields)),tracks(limit,\(pageFields))"
    }

    /// The `fields` filter when only durations are needed (`spotify-playlists get --duration`).
    package static let durationFields = "total,offset,items(item(duration_ms),track(duration_ms))"

    /// `additional_types` for every playlist request: without `episode`, Spotify sends episodes
    /// track-shaped or not at all.
    package static let additionalTypes = ("additional_types", "track,episode")

    /// The query every playlist read sends: `additionalTypes` and the market (`TrackRecord.market`).
    package static let readQuery = [additionalTypes, TrackRecord.market]
}

/// What spotify-tracks read a record from, as the record's `source` {type, id, uri, name}: the
/// playlist, album, artist, show, track or episode it was named by (name null when not known).
package struct RecordSource: Sendable, Equatable {
    package var reference: SpotifyReference
    package var name: String?

    package init(_ reference: SpotifyReference, name: String?) {
        self.reference = reference
        self.name = name
    }

    package var json: JSONValue {
        [
            "type": .string(reference.kind.rawValue), "id": .string(reference.id), "uri": .string(reference.uri),
            "name": name.map(JSONValue.string) ?? .null,
        ]
    }
}

/// Items of the catalogue as records: an album's simplified tracks (which lack `album`: it is
/// taken from the album object), a show's simplified episodes (which lack `show`), and a track
/// or an episode read on its own. Pure.
package enum CatalogItem {
    /// The item with what its container tells filled in, wrapped as a playlist entry (`item`,
    /// `is_local`; no added_at) so `PlaylistEntry.kind` and `record` read it as they read entries.
    /// A null item stays null (counted as unavailable).
    package static func entry(_ item: JSONValue, container: JSONValue?) -> JSONValue {
        guard var object = item.objectValue else { return ["item": .null] }
        if let container, let type = container["type"]?.stringValue {
            if type == "album" && object["album"]?.objectValue == nil { object["album"] = container }
            if type == "show" && object["show"]?.objectValue == nil { object["show"] = container }
        }
        return ["item": .object(object), "is_local": .bool(object["is_local"]?.boolValue ?? false)]
    }

    /// The record of a catalogue item: the track or episode record, disc_number and track_number
    /// for a track (its place on the album), then added_at (null), position, playlist (null) and
    /// source. nil for a null item.
    package static func record(_ entry: JSONValue, position: Int, source: RecordSource) -> TrackRecord? {
        guard let item = PlaylistEntry.item(of: entry), var record = TrackRecord(spotify: item) else { return nil }
        if record.kind == .track {
            record.discNumber = .init(item["disc_number"]?.intValue)
            record.trackNumber = .init(item["track_number"]?.intValue)
        }
        record.addedAt = .null
        record.position = position
        record.playlist = .null
        record.source = source
        return record
    }
}
