import ToolkitCore

/// An `artist` record: type, id, uri, name, genres (Spotify marks them deprecated and may send
/// none: then []), images (largest first, maybe []), external_url; with `rank` for top artists.
/// `followers` and `popularity` are gone for apps in Development Mode (Feb 2026), so they are not
/// on the record.
package struct ArtistRecord: JSONRecord, Equatable {
    package var id: String?
    package var uri: String?
    package var name: String?
    package var genres: [String]
    package var images: [TrackRecord.Image]
    package var externalURL: String?
    /// From 1 (top artists).
    package var rank: Int?

    /// nil when `artist` is not an object.
    package init?(spotify artist: JSONValue, rank: Int? = nil) {
        guard artist.objectValue != nil else { return nil }
        id = artist["id"]?.stringValue
        uri = artist["uri"]?.stringValue
        name = artist["name"]?.stringValue
        genres = (artist["genres"]?.arrayValue ?? []).compactMap(\.stringValue)
        images = TrackRecord.imageList(artist["images"])
        externalURL = artist["external_urls"]?["spotify"]?.stringValue
        self.rank = rank
    }

    package var json: JSONValue {
        var record: JSONObject = [
            "type": "artist", "id": TrackRecord.text(id), "uri": TrackRecord.text(uri),
            "name": TrackRecord.text(name), "genres": .array(genres.map(JSONValue.string)),
            "images": TrackRecord.json(images), "external_url": TrackRecord.text(externalURL),
        ]
        if let rank { record["rank"] = .int(rank) }
        return .object(record)
    }
}

/// A `device` record: Spotify's device object under the record's field names (`type` is the
/// record's, so the device's is `device_type`); a value of the wrong kind is null.
package struct DeviceRecord: JSONRecord, Equatable {
    /// nil for some restricted devices.
    package var id: String?
    package var name: String?
    package var deviceType: String?
    package var isActive: Bool?
    package var isPrivateSession: Bool?
    package var isRestricted: Bool?
    package var volumePercent: Int?
    package var supportsVolume: Bool?

    /// From one of `GET /me/player/devices`' objects.
    package init(spotify device: JSONValue) {
        id = device["id"]?.stringValue
        name = device["name"]?.stringValue
        deviceType = device["type"]?.stringValue
        isActive = device["is_active"]?.boolValue
        isPrivateSession = device["is_private_session"]?.boolValue
        isRestricted = device["is_restricted"]?.boolValue
        volumePercent = device["volume_percent"]?.intValue
        supportsVolume = device["supports_volume"]?.boolValue
    }

    package var json: JSONValue {
        [
            "type": "device", "id": TrackRecord.text(id), "name": TrackRecord.text(name),
            "device_type": TrackRecord.text(deviceType), "is_active": Self.flag(isActive),
            "is_private_session": Self.flag(isPrivateSession), "is_restricted": Self.flag(isRestricted),
            "volume_percent": volumePercent.map(JSONValue.int) ?? .null, "supports_volume": Self.flag(supportsVolume),
        ]
    }

    static func flag(_ value: Bool?) -> JSONValue {
        value.map(JSONValue.bool) ?? .null
    }
}

/// A `played` record: the track record (`TrackRecord`, with the type `played`), then played_at
/// (ISO 8601) and context {type, uri} (or null). One read back from the listening log keeps the
/// line's own object, whatever it adds (ms_played, logged_from, a download's fields), so printing
/// it passes it on unchanged.
package struct PlayedRecord: JSONRecord, Equatable {
    package var track: TrackRecord
    /// ISO 8601; empty when a record read back has none.
    package var playedAt: String
    /// `context {type, uri}`: what it was played from, Spotify's values as sent.
    package var context: JSONValue
    /// The object a record read back came from: printed as it is.
    package var read: JSONObject?

    /// From one of `GET /me/player/recently-played`'s items; nil without a track.
    package init?(track item: JSONValue?, playedAt: String, context: JSONValue?) {
        guard let track = TrackRecord(spotify: item) else { return nil }
        self.track = track
        self.playedAt = playedAt
        self.context =
            context?.objectValue == nil ? .null : ["type": context?["type"] ?? .null, "uri": context?["uri"] ?? .null]
    }

    /// A record read back (the listening log, a pipe): lenient.
    package init(reading record: JSONValue) {
        let object = record.objectValue ?? [:]
        track = TrackRecord(reading: object)
        playedAt = object["played_at"]?.stringValue ?? ""
        context = object["context"] ?? .null
        read = object
    }

    package var json: JSONValue {
        if let read { return .object(read) }
        var record = track.object
        record["type"] = "played"  // replaces the track's own type in place: still the first key
        record["played_at"] = .string(playedAt)
        record["context"] = context
        return .object(record)
    }
}
