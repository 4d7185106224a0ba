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

extension DeviceRecord {
    /// `● Kitchen (Speaker, restricted)`, the dot for the active one; names cleaned, since their
    /// owners choose them.
    var humanLine: String {
        TerminalText.clean(
            """
            \(isActive == true ? "●" : " ") \(name ?? "?") (\(deviceType ?? "?")\
            \(isRestricted == true ? ", restricted" : ""))
            """)
    }
}

extension PlayedRecord {
    /// `2026-11-24 14:35:52  Name — Artist, Artist` in `zone`.
    func humanLine(in zone: LocalZone) -> String {
        let time = LocalTime.text(playedAt, "yyyy-MM-dd HH:mm:ss", in: zone)
        let artists = track.artists.compactMap(\.name)
        let by = artists.isEmpty ? "" : " — \(artists.joined(separator: ", "))"
        return TerminalText.clean("\(time)  \(track.name ?? "?")\(by)")
    }
}
