/// The `song_count` record: songcount writes it, `routine-link log` reads it back, and
/// `routine-link run` prints again what it could not log; every writer and the reader of its
/// field names live here.
package enum SongCountRecord {
    /// Fit mode: how many songs fill `targetMs`.
    package static func fit(_ fit: SongFit, targetMs: Int) -> JSONValue {
        var record: JSONObject = ["type": "song_count"]
        record["target_ms"] = .int(targetMs)
        record["track_count"] = .int(fit.trackCount)
        record["total_duration_ms"] = .int(fit.totalDurationMs)
        record["songs"] = .double(roundedSongs(fit.songs))
        record["label"] = .string(songLabel(fit.songs))
        if let short = fit.shortByMs { record["short_by_ms"] = .int(short) }
        return .object(record)
    }

    /// Count mode: how many songs a listening log got through.
    package static func count(_ result: SongCountResult) -> JSONValue {
        var record: JSONObject = ["type": "song_count"]
        record["track_count"] = .int(result.trackCount)
        record["total_duration_ms"] = .int(result.totalDurationMs)
        record["listened_ms"] = .int(result.listenedMs)
        record["songs"] = .double(roundedSongs(result.songs))
        record["label"] = .string(songLabel(result.songs))
        return .object(record)
    }
}

extension SongCountRecord {
    /// A summary read back, printed again as the record it came from (`routine-link run` when
    /// the count could not be logged), so `routine-link log` can take it later.
    package static func summary(_ count: SongCountSummary) -> JSONValue {
        var record: JSONObject = ["type": "song_count"]
        if let trackCount = count.trackCount { record["track_count"] = .int(trackCount) }
        if let listened = count.listenedMs { record["listened_ms"] = .int(listened) }
        if let target = count.targetMs { record["target_ms"] = .int(target) }
        record["songs"] = .double(count.songs)
        record["label"] = .string(count.label)
        return .object(record)
    }
}

/// What a `song_count` record (songcount's output) tells a session.
package struct SongCountSummary: Sendable, Equatable {
    package var songs: Double
    package var label: String
    package var trackCount: Int?
    /// Count mode: how long the counted songs took; fit mode has `target_ms` instead.
    package var listenedMs: Int?
    package var targetMs: Int?
}

extension SongCountSummary {
    /// nil unless `record` is a `song_count` record with a finite, non-negative `songs`.
    package init?(record: JSONValue) {
        guard record["type"]?.stringValue == "song_count", let songs = record["songs"]?.doubleValue,
            songs.isFinite, songs >= 0
        else { return nil }
        self.init(
            songs: songs, label: record["label"]?.stringValue ?? songLabel(songs),
            trackCount: record["track_count"]?.intValue, listenedMs: record["listened_ms"]?.intValue,
            targetMs: record["target_ms"]?.intValue)
    }
}
