import ToolkitCore

/// The toolkit's `track`/`episode` record: Spotify's track and episode objects with the same field
/// names as Spotify, only the ones scripts need, keys in a stable order. spotify-tracks,
/// spotify-nowplaying and routine-link all build their records here, so `jq .name` or
/// `songcount` read every tool's output the same way.
///
/// Record fields, in order: type, id, uri, name, duration_ms, artists [{id, name}],
/// album {id, name, release_date, release_date_precision, images}, explicit, external_ids {isrc},
/// is_playable (only when Spotify said: it does when the request names a market), is_local;
/// episodes carry `show {id, name, images}` instead of artists and album (both present and empty,
/// so readers need no special case), and their own release_date, release_date_precision, explicit
/// and is_playable. Then the context fields the reader knows, each written only when set, in this
/// order: disc_number, track_number, added_at, added_by, position, playlist, source, rank, current,
/// query, match, match_quality.
///
/// Every track record of every tool is built by `init(spotify:)` and asked for by `fields`
/// (`objectFields`), so a field added here is added everywhere (the snapshot cache keeps the
/// records as built). `init(reading:)` reads one back from a pipe, leniently.
package struct TrackRecord: JSONRecord, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case track, episode
    }

    package struct Artist: Sendable, Equatable {
        package var id: String?
        package var name: String?

        package init(id: String?, name: String?) {
            self.id = id
            self.name = name
        }
    }

    /// An image `{url, height, width}`.
    package struct Image: Sendable, Equatable {
        package var url: String
        package var height: Int?
        package var width: Int?

        package init(url: String, height: Int?, width: Int?) {
            self.url = url
            self.height = height
            self.width = width
        }
    }

    package struct Album: Sendable, Equatable {
        package var id: String?
        package var name: String?
        package var releaseDate: String?
        package var releaseDatePrecision: String?
        package var images: [Image]
    }

    package struct Show: Sendable, Equatable {
        package var id: String?
        package var name: String?
        package var images: [Image]
    }

    /// `playlist {id, uri, name, snapshot_id}`: the playlist an entry was read from, and the
    /// version the read began at.
    package struct Playlist: Sendable, Equatable {
        package var id: String?
        package var uri: String?
        package var name: String?
        package var snapshotID: String?
    }

    /// What a search or an import matched: the query sent, the score and its word.
    package struct Match: Sendable, Equatable {
        package var query: String
        package var score: Double
        package var quality: String

        package init(query: String, score: Double, quality: String) {
            self.query = query
            self.score = score
            self.quality = quality
        }
    }

    /// A context field that is written as null, or not at all, as well as with a value.
    package enum Field<Value: Sendable & Equatable>: Sendable, Equatable {
        case absent, null
        case value(Value)

        /// `value`, or null for nil.
        package init(_ value: Value?) {
            self = value.map(Field.value) ?? .null
        }

        package var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }
    }

    package var kind: Kind
    package var id: String?
    package var uri: String?
    package var name: String?
    /// Milliseconds, never negative (an odd value from Spotify is unknown: nil).
    package var durationMs: Int?
    /// Empty for an episode.
    package var artists: [Artist]
    /// nil for an episode, and for a track Spotify sent no album with.
    package var album: Album?
    /// Episodes only.
    package var show: Show?
    /// Episodes only (a track's are its album's).
    package var releaseDate: String?
    package var releaseDatePrecision: String?
    package var explicit: Bool?
    /// Tracks only: `external_ids {isrc}`.
    package var isrc: String?
    /// Absent unless Spotify said: it does only for a request that names a market.
    package var isPlayable: Bool?
    package var isLocal: Bool

    // Context: what the reader knows of where the item was found.
    package var discNumber: Field<Int> = .absent
    package var trackNumber: Field<Int> = .absent
    package var addedAt: Field<String> = .absent
    /// `added_by {id}`.
    package var addedBy: Field<String> = .absent
    /// Zero-based.
    package var position: Int?
    package var playlist: Field<Playlist> = .absent
    package var source: RecordSource?
    /// From 1 (top tracks).
    package var rank: Int?
    /// The queue: whether it plays now.
    package var current: Bool?
    package var match: Match?

    /// The record for a Spotify track or episode object, or nil when `item` is not an object.
    /// Lenient: missing or null fields become null, never an error.
    package init?(spotify item: JSONValue?) {
        guard let item, item.objectValue != nil else { return nil }
        kind = item["type"]?.stringValue == "episode" ? .episode : .track
        id = item["id"]?.stringValue
        uri = item["uri"]?.stringValue
        name = item["name"]?.stringValue
        durationMs = item["duration_ms"]?.intValue.flatMap { $0 >= 0 ? $0 : nil }
        explicit = item["explicit"]?.boolValue
        isPlayable = item["is_playable"]?.boolValue
        isLocal = item["is_local"]?.boolValue ?? false
        if kind == .episode {
            artists = []
            // The 2026 shape carries `show`; the legacy track-shaped episode puts the show in `album`.
            let show = item["show"] ?? item["album"]
            self.show = show.flatMap(Self.show(_:))
            releaseDate = item["release_date"]?.stringValue
            releaseDatePrecision = item["release_date_precision"]?.stringValue
        } else {
            artists = (item["artists"]?.arrayValue ?? []).map(Self.artist(_:))
            album = item["album"].flatMap(Self.album(_:))
            isrc = item["external_ids"]?["isrc"]?.stringValue
        }
    }

    /// A record read back (a pipeline's input, a cached or logged line): lenient, as records from
    /// an older version or another tool may lack fields; what it cannot read is nil. Readers that
    /// pass the record on keep its own object, so no field of it is lost.
    package init(reading record: JSONObject) {
        kind = record["type"]?.stringValue == "episode" ? .episode : .track
        id = record["id"]?.stringValue
        uri = record["uri"]?.stringValue
        name = record["name"]?.stringValue
        // As written, not range-checked: a reader sums them with max(0, _).
        durationMs = record["duration_ms"]?.intValue
        artists = (record["artists"]?.arrayValue ?? []).map(Self.artist(_:))
        album = record["album"].flatMap(Self.album(_:))
        show = record["show"].flatMap(Self.show(_:))
        releaseDate = record["release_date"]?.stringValue
        releaseDatePrecision = record["release_date_precision"]?.stringValue
        explicit = record["explicit"]?.boolValue
        isrc = record["external_ids"]?["isrc"]?.stringValue
        isPlayable = record["is_playable"]?.boolValue
        isLocal = record["is_local"]?.boolValue ?? false
        discNumber = Self.field(record["disc_number"]) { $0.intValue }
        trackNumber = Self.field(record["track_number"]) { $0.intValue }
        addedAt = Self.field(record["added_at"]) { $0.stringValue }
        addedBy = Self.field(record["added_by"]) { $0["id"]?.stringValue }
        position = record["position"]?.intValue
        playlist = Self.field(record["playlist"]) { value in
            value.objectValue == nil
                ? nil
                : Playlist(
                    id: value["id"]?.stringValue, uri: value["uri"]?.stringValue, name: value["name"]?.stringValue,
                    snapshotID: value["snapshot_id"]?.stringValue)
        }
        source = record["source"].flatMap { value in
            guard let kind = value["type"]?.stringValue.flatMap(SpotifyReference.Kind.init(rawValue:)),
                let id = value["id"]?.stringValue
            else { return nil }
            return RecordSource(SpotifyReference(kind: kind, id: id), name: value["name"]?.stringValue)
        }
        rank = record["rank"]?.intValue
        current = record["current"]?.boolValue
        if let query = record["query"]?.stringValue, let score = record["match"]?.doubleValue {
            match = Match(query: query, score: score, quality: record["match_quality"]?.stringValue ?? "")
        }
    }

    /// The artists' names, or for an episode (no artists) its show's: the ARTISTS cell of a table.
    package var by: String {
        let names = artists.compactMap(\.name)
        return names.isEmpty ? (show?.name ?? "") : names.joined(separator: ", ")
    }

    package var json: JSONValue { .object(object) }

    /// The record's members, in the documented order.
    package var object: JSONObject {
        var record: JSONObject = [
            "type": .string(kind.rawValue), "id": Self.text(id), "uri": Self.text(uri), "name": Self.text(name),
            "duration_ms": durationMs.map(JSONValue.int) ?? .null,
            "artists": Self.json(artists),
            "album": album.map(Self.json(_:)) ?? .null,
        ]
        if kind == .episode {
            record["show"] = show.map(Self.json(_:)) ?? .null
            record["release_date"] = Self.text(releaseDate)
            record["release_date_precision"] = Self.text(releaseDatePrecision)
            record["explicit"] = explicit.map(JSONValue.bool) ?? .null
        } else {
            record["explicit"] = explicit.map(JSONValue.bool) ?? .null
            record["external_ids"] = ["isrc": Self.text(isrc)]
        }
        if let isPlayable { record["is_playable"] = .bool(isPlayable) }
        record["is_local"] = .bool(isLocal)
        Self.put(discNumber, "disc_number", in: &record, JSONValue.int)
        Self.put(trackNumber, "track_number", in: &record, JSONValue.int)
        Self.put(addedAt, "added_at", in: &record, JSONValue.string)
        Self.put(addedBy, "added_by", in: &record) { ["id": .string($0)] }
        if let position { record["position"] = .int(position) }
        Self.put(playlist, "playlist", in: &record) { playlist in
            [
                "id": Self.text(playlist.id), "uri": Self.text(playlist.uri), "name": Self.text(playlist.name),
                "snapshot_id": Self.text(playlist.snapshotID),
            ]
        }
        if let source { record["source"] = source.json }
        if let rank { record["rank"] = .int(rank) }
        if let current { record["current"] = .bool(current) }
        if let match {
            record["query"] = .string(match.query)
            record["match"] = .double(match.score)
            record["match_quality"] = .string(match.quality)
        }
        return record
    }

    // MARK: Reading Spotify's objects and records

    static func artist(_ value: JSONValue) -> Artist {
        Artist(id: value["id"]?.stringValue, name: value["name"]?.stringValue)
    }

    static func album(_ value: JSONValue) -> Album? {
        guard value.objectValue != nil else { return nil }
        return Album(
            id: value["id"]?.stringValue, name: value["name"]?.stringValue,
            releaseDate: value["release_date"]?.stringValue,
            releaseDatePrecision: value["release_date_precision"]?.stringValue,
            images: imageList(value["images"]))
    }

    static func show(_ value: JSONValue) -> Show? {
        guard value.objectValue != nil else { return nil }
        return Show(id: value["id"]?.stringValue, name: value["name"]?.stringValue, images: imageList(value["images"]))
    }

    /// A field read back: absent when the key is, null when its value is null or unreadable.
    static func field<Value>(_ value: JSONValue?, _ read: (JSONValue) -> Value?) -> Field<Value> {
        guard let value else { return .absent }
        return Field(read(value))
    }

    static func put<Value>(
        _ field: Field<Value>, _ key: String, in record: inout JSONObject, _ encode: (Value) -> JSONValue
    ) {
        switch field {
        case .absent: break
        case .null: record[key] = .null
        case .value(let value): record[key] = encode(value)
        }
    }

    static func text(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    static func json(_ artists: [Artist]) -> JSONValue {
        .array(artists.map { ["id": text($0.id), "name": text($0.name)] })
    }

    static func json(_ album: Album) -> JSONValue {
        [
            "id": text(album.id), "name": text(album.name), "release_date": text(album.releaseDate),
            "release_date_precision": text(album.releaseDatePrecision), "images": json(album.images),
        ]
    }

    static func json(_ show: Show) -> JSONValue {
        ["id": text(show.id), "name": text(show.name), "images": json(show.images)]
    }

    package static func json(_ images: [Image]) -> JSONValue {
        .array(
            images.map { image in
                [
                    "url": .string(image.url), "height": image.height.map(JSONValue.int) ?? .null,
                    "width": image.width.map(JSONValue.int) ?? .null,
                ]
            })
    }

    /// Image objects, largest first (unknown sizes last, original order kept among equals); `null`
    /// or a missing list becomes `[]`, an image without a url is left out.
    package static func imageList(_ value: JSONValue?) -> [Image] {
        let list = (value?.arrayValue ?? []).compactMap { image in
            image["url"]?.stringValue.map {
                Image(url: $0, height: image["height"]?.intValue, width: image["width"]?.intValue)
            }
        }
        return list.enumerated().sorted { lhs, rhs in
            let left = lhs.element.width ?? -1
            let right = rhs.element.width ?? -1
            return left != right ? left > right : lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// Image objects `{url, height, width}` as `imageList` orders them.
    package static func images(_ value: JSONValue?) -> JSONValue {
        json(imageList(value))
    }

    static func string(_ value: JSONValue?) -> JSONValue {
        value?.stringValue.map(JSONValue.string) ?? .null
    }

    /// The fields of a track or episode object that `init(spotify:)` reads, for a `fields` filter.
    package static let objectFields =
        """
        type,id,uri,name,duration_ms,explicit,is_local,is_playable,release_date,release_date_precision,\
        external_ids(isrc),artists(id,name),album(id,name,release_date,release_date_precision,images),\
        show(id,name,images)
        """

    /// Every read that prints track records names the market: only then does Spotify say whether
    /// a track plays in the user's country (`is_playable`); `from_token` is the account's own.
    package static let market = ("market", "from_token")
}
