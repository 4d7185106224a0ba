import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// Tracks and episodes to write, read from standard input: track or episode records (as
/// spotify-tracks, songcount --select or `local show` print them, or Spotify's entry objects
/// from --raw), `spotify:track:`/`spotify:episode:` URIs, and open.spotify.com track or episode
/// URLs. Local files and unavailable items cannot be added through the API: they are counted,
/// not written. Anything else is exit 65 naming the line.
struct ItemInput: Equatable {
    var uris: [String] = []
    /// Local files (`spotify:local:` URIs, `is_local` records).
    var local = 0
    /// Records without a track or episode (Spotify no longer makes them available).
    var unavailable = 0
    /// Plays without a uri (Spotify's account data names a song but not its uri).
    var withoutURI = 0
    /// The playlists track records say they were read from (`playlist.id`), by id.
    var origins: [String: Origin] = [:]
    /// The uri of the last now_playing record: a watch reports one song again when it is paused,
    /// resumed or stopped, and it is one item.
    var lastNowPlaying: String?

    /// What the records of one playlist say about the read they came from.
    struct Origin: Equatable {
        /// `playlist.snapshot_id` values seen (records that carry one).
        var snapshots: Set<String> = []
        /// The highest `position` seen (-1: none).
        var lastPosition = -1
        var count = 0
    }

    static let description =
        """
        Items, one per line: track or episode records (what spotify-tracks, songcount --select or local show print), \
        now_playing and played records (spotify-nowplaying, its recent and history: their item, by uri; a watch's \
        records of one song in a row are one item), spotify:track: and spotify:episode: URIs, or open.spotify.com \
        track and episode URLs. Local files, unavailable items and plays without a uri (account data) cannot be \
        added through the Web API: they are skipped and counted on standard error, and the exit status is then 1. \
        Blank lines are skipped; any other line is an error naming it (exit 65).
        """

    /// Every item of standard input.
    static func read(_ input: StandardInput) throws -> ItemInput {
        var items = ItemInput()
        try input.forEachLine { line in
            try items.add(line: line)
        }
        return items
    }

    /// One line's item, or a `StandardInput.Rejection` saying why it is none.
    mutating func add(line: String) throws {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("{") {
            guard let record = try? JSONValue.parse(text), record.objectValue != nil else {
                throw StandardInput.Rejection("starts with '{' but is not a JSON object")
            }
            try add(record: record)
        } else if text.hasPrefix("spotify:local:") {
            lastNowPlaying = nil
            local += 1
        } else {
            lastNowPlaying = nil
            uris.append(try Self.uri(text))
        }
    }

    mutating func add(record: JSONValue) throws {
        if let playlist = record["playlist"]?["id"]?.stringValue {
            var origin = origins[playlist] ?? Origin()
            origin.count += 1
            if let snapshot = record["playlist"]?["snapshot_id"]?.stringValue { origin.snapshots.insert(snapshot) }
            if let position = record["position"]?.intValue, position >= 0, position <= PagePlan.maxTotal {
                origin.lastPosition = max(origin.lastPosition, position)
            }
            origins[playlist] = origin
        }
        let recordType = record["type"]?.stringValue
        if recordType == "now_playing" || recordType == "played" {
            try add(play: record, nowPlaying: recordType == "now_playing")
            return
        }
        lastNowPlaying = nil
        // Spotify's entry objects (--raw) wrap the item.
        let item = record["item"] ?? record["track"] ?? record
        if record["is_local"]?.boolValue == true || item["is_local"]?.boolValue == true
            || item["uri"]?.stringValue?.hasPrefix("spotify:local:") == true
        {
            local += 1
            return
        }
        if record["item"] != nil || record["track"] != nil, item.objectValue == nil {
            unavailable += 1  // an entry whose item is null
            return
        }
        let type = item["type"]?.stringValue
        guard type == nil || type == "track" || type == "episode" else {
            throw StandardInput.Rejection("a \(type!) record, not a track or episode")
        }
        if let uri = item["uri"]?.stringValue {
            uris.append(try Self.uri(uri))
        } else if let id = item["id"]?.stringValue, SpotifyReference.isValidID(id) {
            uris.append("spotify:\(type ?? "track"):\(id)")
        } else if type != nil && item["id"] == .null {
            unavailable += 1
        } else {
            throw StandardInput.Rejection("a record without a track or episode uri or id")
        }
    }

    /// What plays, or was played: its item, by uri (the record's own fields are the item's).
    mutating func add(play record: JSONValue, nowPlaying: Bool) throws {
        guard let uri = record["uri"]?.stringValue else {
            // A watch's record of an ad or of nothing playing is a state, not an item.
            if nowPlaying {
                lastNowPlaying = nil
            } else {
                withoutURI += 1
            }
            return
        }
        if nowPlaying && uri == lastNowPlaying { return }
        lastNowPlaying = nowPlaying ? uri : nil
        if uri.hasPrefix("spotify:local:") || record["is_local"]?.boolValue == true {
            local += 1
            return
        }
        uris.append(try Self.uri(uri))
    }

    /// The URI of a track or episode URI or URL.
    static func uri(_ text: String) throws -> String {
        do {
            return try SpotifyReference.parse(text, expectingOneOf: [.track, .episode]).uri
        } catch {
            throw StandardInput.Rejection("'\(text.prefix(120))': \(error.description)")
        }
    }

    /// "2 local files and 1 unavailable item": what was read but cannot be written, or nil.
    var skippedSummary: String? {
        var parts: [String] = []
        if local > 0 { parts.append("\(local) local \(local == 1 ? "file" : "files")") }
        if unavailable > 0 { parts.append("\(unavailable) unavailable \(unavailable == 1 ? "item" : "items")") }
        if withoutURI > 0 { parts.append("\(withoutURI) \(withoutURI == 1 ? "play" : "plays") without a uri") }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }

    /// "skipped 2 local files and 1 unavailable item: the Web API cannot add them", or nil.
    var skippedNote: String? {
        skippedSummary.map { "skipped \($0): the Web API cannot add them" }
    }
}
