import SpotifyClient
import ToolkitCore

extension NowPlayingRecord {
    /// A now_playing record read back from a pipe (routine-link's live display of the watch it
    /// runs, the final record included); nil when the line is not an object.
    init?(reading record: JSONValue) {
        guard let object = record.objectValue else { return nil }
        let hasItem = record["duration_ms"] != nil || record["name"] != nil
        let observation = PlaybackObservation(
            item: hasItem ? object : nil, isPlaying: record["is_playing"]?.boolValue ?? false,
            progressMs: record["progress_ms"]?.intValue,
            currentlyPlayingType: record["currently_playing_type"]?.stringValue, context: record["context"] ?? .null,
            device: record["device"].flatMap { $0.objectValue == nil ? nil : $0 })
        self.init(observation, observedAt: record["observed_at"]?.stringValue ?? "")
    }

    /// The watch's line for a terminal: the local time it was observed (when the record says),
    /// then what plays.
    func timedHumanLine(in zone: LocalZone) -> String {
        (observedAt.isEmpty ? "" : LocalTime.text(observedAt, "HH:mm:ss", in: zone) + "  ") + observation.humanLine
    }
}

/// A `device` record: Spotify's device object under the record's field names, passed through as
/// Spotify sent it; the line for people reads it once.
struct DeviceRecord: JSONRecord {
    let json: JSONValue
    let name: String?
    let deviceType: String?
    let isActive: Bool
    let isRestricted: Bool

    init(_ device: JSONValue) {
        json = SpotifyPlayer.deviceRecord(device)
        name = device["name"]?.stringValue
        deviceType = device["type"]?.stringValue
        isActive = device["is_active"]?.boolValue == true
        isRestricted = device["is_restricted"]?.boolValue == true
    }

    /// `● Kitchen (Speaker, restricted)`, the dot for the active one; names cleaned, since their
    /// owners choose them.
    var humanLine: String {
        TerminalText.clean(
            "\(isActive ? "●" : " ") \(name ?? "?") (\(deviceType ?? "?")\(isRestricted ? ", restricted" : ""))")
    }
}

/// A `played` record: the track record (Spotify's fields, as spotify-tracks prints them) with
/// played_at and context, passed through as it is; the line for people reads it once.
struct PlayedRecord: JSONRecord {
    let json: JSONValue
    /// ISO 8601.
    let playedAt: String
    let name: String
    let artists: [String]

    init(_ record: JSONValue) {
        json = record
        playedAt = record["played_at"]?.stringValue ?? ""
        name = record["name"]?.stringValue ?? "?"
        artists = (record["artists"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    /// `2026-11-24 14:35:52  Name — Artist, Artist` in `zone`.
    func humanLine(in zone: LocalZone) -> String {
        let time = LocalTime.text(playedAt, "yyyy-MM-dd HH:mm:ss", in: zone)
        let by = artists.isEmpty ? "" : " — \(artists.joined(separator: ", "))"
        return TerminalText.clean("\(time)  \(name)\(by)")
    }
}
