import ToolkitCore

/// Turns Spotify's track and episode objects into the toolkit's `track`/`episode` records: the
/// same field names as Spotify, only the ones scripts need, keys in a stable order. spotify-tracks,
/// spotify-nowplaying and routine-link all build their records here, so `jq .name` or
/// `songcount` read every tool's output the same way.
///
/// Record fields, in order: type, id, uri, name, duration_ms, artists [{id, name}],
/// album {id, name, release_date, release_date_precision, images}, explicit, external_ids {isrc},
/// is_playable (only when Spotify said: it does when the request names a market), is_local;
/// episodes carry `show {id, name, images}` instead of artists and album (both present and empty,
/// so readers need no special case), and their own release_date, release_date_precision, explicit
/// and is_playable. Callers append their own context fields (added_at, added_by, position,
/// playlist; progress_ms; played_at).
///
/// Every track record of every tool is built here and asked for by `fields` (`objectFields`), so
/// a field added here is added everywhere (the snapshot cache keeps the records as built).
///
/// Pure: no I/O. Lenient: missing or null fields become null, never an error.
package enum TrackRecord {
    /// The record for a Spotify track or episode object, or nil when `item` is not an object.
    package static func make(from item: JSONValue?) -> JSONObject? {
        guard let item, item.objectValue != nil else { return nil }
        let type = item["type"]?.stringValue ?? "track"
        var record: JSONObject = [
            "type": .string(type == "episode" ? "episode" : "track"),
            "id": string(item["id"]),
            "uri": string(item["uri"]),
            "name": string(item["name"]),
            "duration_ms": durationValue(item["duration_ms"]),
        ]
        if type == "episode" {
            record["artists"] = .array([])
            record["album"] = .null
            // The 2026 shape carries `show`; the legacy track-shaped episode puts the show in `album`.
            let show = item["show"] ?? item["album"]
            record["show"] =
                show?.objectValue == nil
                ? .null
                : .object([
                    "id": string(show?["id"]), "name": string(show?["name"]), "images": images(show?["images"]),
                ])
            record["release_date"] = string(item["release_date"])
            record["release_date_precision"] = string(item["release_date_precision"])
            record["explicit"] = boolean(item["explicit"])
        } else {
            record["artists"] = .array(
                (item["artists"]?.arrayValue ?? []).map { artist in
                    .object(["id": string(artist["id"]), "name": string(artist["name"])])
                })
            let album = item["album"]
            record["album"] =
                album?.objectValue == nil
                ? .null
                : .object([
                    "id": string(album?["id"]), "name": string(album?["name"]),
                    "release_date": string(album?["release_date"]),
                    "release_date_precision": string(album?["release_date_precision"]),
                    "images": images(album?["images"]),
                ])
            record["explicit"] = boolean(item["explicit"])
            record["external_ids"] = ["isrc": string(item["external_ids"]?["isrc"])]
        }
        // Absent unless Spotify said: it does only for a request that names a market.
        if let playable = item["is_playable"]?.boolValue { record["is_playable"] = .bool(playable) }
        record["is_local"] = .bool(item["is_local"]?.boolValue ?? false)
        return record
    }

    /// Image objects `{url, height, width}`, largest first (unknown sizes last, original order
    /// kept among equals); `null` or a missing list becomes `[]`.
    package static func images(_ value: JSONValue?) -> JSONValue {
        let list = (value?.arrayValue ?? []).filter { $0["url"]?.stringValue != nil }
        let sorted = list.enumerated().sorted { lhs, rhs in
            let left = lhs.element["width"]?.intValue ?? -1
            let right = rhs.element["width"]?.intValue ?? -1
            return left != right ? left > right : lhs.offset < rhs.offset
        }
        return .array(
            sorted.map { entry in
                .object([
                    "url": string(entry.element["url"]),
                    "height": integer(entry.element["height"]),
                    "width": integer(entry.element["width"]),
                ])
            })
    }

    static func string(_ value: JSONValue?) -> JSONValue {
        value?.stringValue.map(JSONValue.string) ?? .null
    }

    static func boolean(_ value: JSONValue?) -> JSONValue {
        value?.boolValue.map(JSONValue.bool) ?? .null
    }

    /// The fields of a track or episode object that `make` reads, for a `fields` filter.
    package static let objectFields =
        """
        type,id,uri,name,duration_ms,explicit,is_local,is_playable,release_date,release_date_precision,\
        external_ids(isrc),artists(id,name),album(id,name,release_date,release_date_precision,images),\
        show(id,name,images)
        """

    /// Every read that prints track records names the market: only then does Spotify say whether
    /// a track plays in the user's country (`is_playable`); `from_token` is the account's own.
    package static let market = ("market", "from_token")

    static func integer(_ value: JSONValue?) -> JSONValue {
        value?.intValue.map(JSONValue.int) ?? .null
    }

    /// A duration is a non-negative integer of milliseconds; anything else is unknown (null).
    static func durationValue(_ value: JSONValue?) -> JSONValue {
        guard let milliseconds = value?.intValue, milliseconds >= 0 else { return .null }
        return .int(milliseconds)
    }
}
