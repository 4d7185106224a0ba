import SpotifyClient
import ToolkitCore

/// The listening log's pure half: what a `played` record is when it comes from Spotify's
/// downloads, when two records are the same play, and which song a watch saw played through.
/// No I/O; `ListeningLog` reads and writes the file.
enum ListeningHistory {
    /// Where a logged play came from (`logged_from`).
    enum Origin: String, Sendable {
        case recentlyPlayed = "recently_played"
        case watch
        case extendedStreamingHistory = "extended_streaming_history"
        case accountData = "account_data"
    }

    /// A `played` record from `GET /me/player/recently-played` (`SpotifyPlayer.playedRecords`), for
    /// the log: `ms_played` (unknown there: null) and where it came from, after its fields.
    static func logged(_ played: JSONValue, from origin: Origin, msPlayed: Int? = nil) -> JSONObject? {
        guard var record = played.objectValue else { return nil }
        record["ms_played"] = msPlayed.map(JSONValue.int) ?? .null
        record["logged_from"] = .string(origin.rawValue)
        return record
    }

    // MARK: Spotify's downloads

    /// An entry of a download that cannot be read: the message names the entry (1-based).
    struct ImportError: Error, Equatable {
        var message: String
    }

    /// What a file of Spotify's download holds, as `played` records in the file's order, and how
    /// many entries named no track or episode at all (nothing to log).
    struct Imported: Equatable {
        var records: [JSONObject] = []
        var empty = 0
    }

    /// The entries of a download file: "Extended streaming history" (`ts`, `ms_played`,
    /// `spotify_track_uri`...; Streaming_History_Audio_*.json, older endsong_*.json) or "Account
    /// data" (`endTime`, `artistName`, `trackName`, `msPlayed`; StreamingHistory*.json, and the
    /// podcast files' `episodeName`, `podcastName`). Anything else names the entry that is not.
    static func importEntries(_ value: JSONValue) throws(ImportError) -> Imported {
        guard let entries = value.arrayValue else {
            throw ImportError(message: "not a Spotify streaming history file (a JSON array of plays)")
        }
        var imported = Imported()
        for (index, entry) in entries.enumerated() {
            guard entry.objectValue != nil else { throw ImportError(message: "entry \(index + 1): not a JSON object") }
            let record: JSONObject?
            if entry["ts"] != nil {
                record = try extendedEntry(entry, number: index + 1)
            } else if entry["endTime"] != nil {
                record = try accountDataEntry(entry, number: index + 1)
            } else {
                throw ImportError(
                    message:
                        """
                        entry \(index + 1): neither a streaming history entry (ts) nor an account data one (endTime)
                        """)
            }
            if let record { imported.records.append(record) } else { imported.empty += 1 }
        }
        return imported
    }

    /// A milliseconds count: a non-negative integer, or null.
    static func milliseconds(_ value: JSONValue?, _ field: String, number: Int) throws(ImportError) -> Int? {
        guard let value, value != .null else { return nil }
        guard let ms = value.intValue, ms >= 0 else {
            throw ImportError(message: "entry \(number): \(field) is not a count of milliseconds")
        }
        return ms
    }

    /// A string field, or nil for null, missing or empty.
    static func text(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }

    /// "Extended streaming history": podcasts have null track fields, and entries of neither
    /// (an audiobook, something Spotify no longer names) have no uri nor name: nil.
    static func extendedEntry(_ entry: JSONValue, number: Int) throws(ImportError) -> JSONObject? {
        guard let ts = entry["ts"]?.stringValue, parseISOTimestamp(ts) != nil else {
            throw ImportError(message: "entry \(number): ts is not an ISO 8601 time")
        }
        let msPlayed = try milliseconds(entry["ms_played"], "ms_played", number: number)
        let trackURI = text(entry["spotify_track_uri"])
        let episodeURI = text(entry["spotify_episode_uri"])
        let trackName = text(entry["master_metadata_track_name"])
        let episodeName = text(entry["episode_name"])
        let isEpisode = episodeURI != nil || (trackURI == nil && trackName == nil && episodeName != nil)
        let uri = isEpisode ? episodeURI : trackURI
        let name = isEpisode ? episodeName : trackName
        guard uri != nil || name != nil else { return nil }
        var record = identity(uri: uri, name: name)
        if isEpisode {
            record["artists"] = []
            record["album"] = .null
            let show = text(entry["episode_show_name"])
            record["show"] = show.map { ["id": .null, "name": .string($0)] } ?? .null
        } else {
            let artist = text(entry["master_metadata_album_artist_name"])
            record["artists"] = artist.map { [["id": .null, "name": .string($0)]] } ?? []
            let album = text(entry["master_metadata_album_album_name"])
            record["album"] = album.map { ["id": .null, "name": .string($0)] } ?? .null
        }
        record["played_at"] = .string(ts)
        record["ms_played"] = msPlayed.map(JSONValue.int) ?? .null
        record["context"] = .null
        for field in ["reason_start", "reason_end", "shuffle", "skipped", "offline"] {
            record[field] = entry[field] ?? .null
        }
        record["logged_from"] = .string(Origin.extendedStreamingHistory.rawValue)
        return record
    }

    /// "Account data": `endTime` is UTC to the minute ("2024-01-31 23:59"), and there is no uri.
    static func accountDataEntry(_ entry: JSONValue, number: Int) throws(ImportError) -> JSONObject? {
        guard let end = entry["endTime"]?.stringValue, let playedAt = accountDataTime(end) else {
            throw ImportError(message: "entry \(number): endTime is not a time like 2024-01-31 23:59")
        }
        let msPlayed = try milliseconds(entry["msPlayed"], "msPlayed", number: number)
        let episode = text(entry["episodeName"])
        guard let name = text(entry["trackName"]) ?? episode else { return nil }
        var record = identity(uri: nil, name: name)
        if episode != nil && text(entry["trackName"]) == nil {
            record["artists"] = []
            record["album"] = .null
            record["show"] = text(entry["podcastName"]).map { ["id": .null, "name": .string($0)] } ?? .null
        } else {
            record["artists"] = text(entry["artistName"]).map { [["id": .null, "name": .string($0)]] } ?? []
            record["album"] = .null
        }
        record["played_at"] = .string(playedAt)
        record["ms_played"] = msPlayed.map(JSONValue.int) ?? .null
        record["context"] = .null
        record["logged_from"] = .string(Origin.accountData.rawValue)
        return record
    }

    /// "2024-01-31 23:59" (UTC) as ISO 8601: "2024-01-31T23:59:00Z"; nil for anything else.
    static func accountDataTime(_ text: String) -> String? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, parts[1].split(separator: ":").count == 2 else { return nil }
        let iso = "\(parts[0])T\(parts[1]):00Z"
        return parseISOTimestamp(iso) == nil ? nil : iso
    }

    /// The first fields of a played record: type, id (from a track or episode uri), uri, name.
    static func identity(uri: String?, name: String?) -> JSONObject {
        var id: JSONValue = .null
        if let uri {
            let parts = uri.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 3, parts[0] == "spotify", parts[1] == "track" || parts[1] == "episode" {
                id = .string(String(parts[2]))
            }
        }
        return [
            "type": "played", "id": id, "uri": uri.map(JSONValue.string) ?? .null,
            "name": name.map(JSONValue.string) ?? .null,
        ]
    }

    // MARK: The same play

    /// What tells one play from another: the item (its uri, and its name with the first artist's,
    /// since Spotify's account data has no uri) and when it ended.
    struct Play: Sendable, Equatable {
        var uri: String?
        /// "name\u{1F}artist", lowercased; nil without a name.
        var nameKey: String?
        /// Seconds since 1970.
        var time: Double
        /// Times known to the minute only (account data): matched more loosely.
        var coarse: Bool

        /// nil when the record has no time or names no item.
        init?(_ record: JSONValue) {
            self.init(
                PlayRecordFields(
                    playedAt: record["played_at"]?.stringValue, uri: record["uri"]?.stringValue,
                    name: record["name"]?.stringValue,
                    by: record["artists"]?.arrayValue?.first?["name"]?.stringValue
                        ?? record["show"]?["name"]?.stringValue,
                    loggedFrom: record["logged_from"]?.stringValue))
        }

        /// From a line of the log, as scanned.
        init?(_ fields: PlayRecordFields) {
            guard let playedAt = fields.playedAt, let time = parseISOTimestamp(playedAt) else { return nil }
            uri = fields.uri
            if let name = fields.name { nameKey = (name + "\u{1F}" + (fields.by ?? "")).lowercased() }
            guard uri != nil || nameKey != nil else { return nil }
            self.time = time
            coarse = fields.loggedFrom == Origin.accountData.rawValue
        }

        /// How far apart two records of one play may be: the sources disagree by a few seconds
        /// (Spotify's played_at, the download's ts, the watch's predicted end), and account data
        /// keeps only the minute. Below the 30 s a play must last to be listed, so a song played
        /// twice in a row stays two plays.
        func tolerance(with other: Play) -> Double { coarse || other.coarse ? 60 : 20 }
    }

    /// The plays a log holds, by item, for "is this one already there?".
    struct PlayIndex {
        var byKey: [String: [Play]] = [:]

        init(_ plays: some Sequence<Play> = []) {
            for play in plays { insert(play) }
        }

        static func keys(of play: Play) -> [String] {
            [play.uri.map { "u" + $0 }, play.nameKey.map { "n" + $0 }].compactMap { $0 }
        }

        mutating func insert(_ play: Play) {
            for key in Self.keys(of: play) { byKey[key, default: []].append(play) }
        }

        func contains(_ play: Play) -> Bool {
            for key in Self.keys(of: play) {
                for known in byKey[key] ?? [] where abs(known.time - play.time) <= play.tolerance(with: known) {
                    return true
                }
            }
            return false
        }
    }

    /// The records of `batches` that `known` does not hold, in order. A batch is one source read
    /// whole (a file, a page of recent plays): its own entries are distinct plays, however alike,
    /// and are checked against the log and the batches before it, never against each other.
    /// Records with no time or item cannot be matched and are kept.
    static func newRecords(_ batches: [[JSONObject]], known: PlayIndex) -> (new: [JSONObject], known: Int) {
        var index = known
        var new: [JSONObject] = []
        var already = 0
        for batch in batches {
            var added: [Play] = []
            for record in batch {
                guard let play = Play(.object(record)) else {
                    new.append(record)
                    continue
                }
                if index.contains(play) {
                    already += 1
                } else {
                    new.append(record)
                    added.append(play)
                }
            }
            for play in added { index.insert(play) }
        }
        return (new, already)
    }

    // MARK: Played through

    /// What the watch saw of one song, for telling whether it played to its end.
    struct Seen: Sendable, Equatable {
        var item: JSONObject
        var uri: String
        var durationMs: Int
        var progressMs: Int
        var isPlaying: Bool
        var context: JSONValue
        /// Seconds since 1970, on the watch's clock.
        var at: Double
    }

    /// Turns the watch's observations into the songs played to their end: a song is played through
    /// when, playing, it is followed by another song, by itself from the start (repeat), or by
    /// nothing, no earlier than its predicted end (less a little slack for the poll's timing). Its
    /// played_at is that predicted end. A song skipped, or stopped while paused, is not.
    struct PlayedThrough {
        var last: Seen?
        /// How early a song may seem to end and still count (the poll's own timing).
        static let slack = 3.0

        /// Feeds the next observation; returns the played record of the song that ended, if any.
        mutating func observe(_ observation: PlaybackObservation, at time: Double) -> JSONObject? {
            var played: JSONObject?
            if let last, last.isPlaying {
                let end = last.at + Double(max(last.durationMs - last.progressMs, 0)) / 1000
                let sameSong = observation.item?["uri"]?.stringValue == last.uri
                // The watch reports the same song again only when its state changes or it starts over.
                let restarted = sameSong && (observation.progressMs ?? 0) < last.progressMs
                if (!sameSong || restarted) && end <= time + Self.slack {
                    var record = last.item
                    record["type"] = "played"
                    record["played_at"] = .string(isoTimestamp(min(end, time)))
                    record["context"] = last.context
                    record["ms_played"] = .null
                    record["logged_from"] = .string(Origin.watch.rawValue)
                    played = record
                }
            }
            if let item = observation.item, let uri = item["uri"]?.stringValue,
                let duration = observation.durationMs, duration > 0
            {
                let progress = min(max(observation.progressMs ?? 0, 0), duration)
                last = Seen(
                    item: item, uri: uri, durationMs: duration, progressMs: progress, isPlaying: observation.isPlaying,
                    context: observation.context, at: time)
            } else {
                last = nil
            }
            return played
        }
    }

    // MARK: Reading the log

    /// The records between `since` (included) and `until` (excluded), oldest first; records in
    /// the same second keep the order they were logged in.
    static func window(_ records: [(time: Double, line: Substring)], since: Double?, until: Double?) -> [Substring] {
        records.enumerated()
            .filter { (since ?? -.infinity) <= $0.element.time && $0.element.time < (until ?? .infinity) }
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element.line)
    }
}
