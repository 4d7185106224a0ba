import ToolkitCore

/// Turns Spotify's track and episode objects into the toolkit's `track`/`episode` records: the
/// same field names as Spotify, only the ones scripts need, keys in a stable order. spotify-tracks,
/// spotify-nowplaying and routine-link all build their records here, so `jq .name` or
/// `songcount` read every tool's output the same way.
///
/// Record fields, in order: type, id, uri, name, duration_ms, artists [{id, name}],
/// album {id, name, images}, is_local; episodes carry `show {id, name, images}` instead of
/// artists and album (both present and empty, so readers need no special case). Callers append
/// their own context fields (added_at, position, playlist; progress_ms; played_at).
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
                    "id": string(album?["id"]), "name": string(album?["name"]), "images": images(album?["images"]),
                ])
        }
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

    static func integer(_ value: JSONValue?) -> JSONValue {
        value?.intValue.map(JSONValue.int) ?? .null
    }

    /// A duration is a non-negative integer of milliseconds; anything else is unknown (null).
    static func durationValue(_ value: JSONValue?) -> JSONValue {
        guard let milliseconds = value?.intValue, milliseconds >= 0 else { return .null }
        return .int(milliseconds)
    }
}
