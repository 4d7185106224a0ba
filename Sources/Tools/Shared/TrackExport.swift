import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// The files playlists move between tools in: extended M3U, XSPF, JSPF (ListenBrainz's JSON form
/// of XSPF) and CSV with Exportify's columns. `--format` writes track records as one of them
/// (`TrackExport`); `spotify-tracks --from` reads them back (`PlaylistFileReader`).
package enum PlaylistFileFormat: String, Sendable, CaseIterable {
    case m3u, xspf, jspf, csv

    /// The format a file name says by its extension (`.m3u8` is M3U in UTF-8); nil for another.
    package init?(fileName: String) {
        let lowered = fileName.lowercased()
        guard let dot = lowered.lastIndex(of: "."), !lowered[dot...].contains("/") else { return nil }
        switch lowered[lowered.index(after: dot)...] {
        case "m3u", "m3u8": self = .m3u
        case "xspf", "xml": self = .xspf
        case "jspf", "json": self = .jspf
        case "csv": self = .csv
        default: return nil
        }
    }

    /// The format the text itself shows: `#EXTM3U` (or a first line naming a Spotify item), an
    /// XML declaration or element, a JSON object; anything else is read as CSV.
    package init(sniffing bytes: [UInt8]) {
        let text = String(decoding: bytes.prefix(512), as: UTF8.self)
        let start = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if start.hasPrefix("<") {
            self = .xspf
        } else if start.hasPrefix("{") {
            self = .jspf
        } else if start.hasPrefix("#EXTM3U") || start.hasPrefix("#EXTINF") || start.hasPrefix("spotify:")
            || start.lowercased().hasPrefix("https://open.spotify.com/")
        {
            self = .m3u
        } else {
            self = .csv
        }
    }
}

/// `--format`: how a command that prints track records writes them. Shared: a command adopts it
/// by listing `TrackFormatOption.option`, reading `TrackFormatOption.chosen(command)`, and writing
/// its records through `TrackExport` when a file format was chosen.
package enum TrackFormatOption {
    package static let option = OptionSpec(
        "format", value: "FORMAT",
        help:
            """
            Write the track records as jsonl (JSON Lines, the default; a table on a terminal), or as a playlist \
            file: m3u (extended M3U), xspf (XSPF 1), jspf (ListenBrainz's JSON form of XSPF) or csv (Exportify's \
            columns).
            """,
        completion: .choices(["jsonl"] + PlaylistFileFormat.allCases.map(\.rawValue)))

    /// What `--format` asks for: nil for JSON Lines (`--format jsonl` or none), else the file format.
    /// `jsonl` forces JSON Lines even on a terminal (`forcesJSON`).
    package struct Choice: Sendable, Equatable {
        package var file: PlaylistFileFormat?
        package var forcesJSON: Bool

        package init(file: PlaylistFileFormat? = nil, forcesJSON: Bool = false) {
            self.file = file
            self.forcesJSON = forcesJSON
        }
    }

    package static func chosen(_ command: ParsedCommand) throws -> Choice {
        guard let text = try command.value(option) else { return Choice() }
        if text == "jsonl" || text == "json" { return Choice(forcesJSON: true) }
        guard let format = PlaylistFileFormat(rawValue: text.lowercased()) else {
            throw ToolError.usage("--format must be jsonl, m3u, xspf, jspf or csv, not '\(text.prefix(40))'")
        }
        return Choice(file: format)
    }
}

/// Writes track records (track, episode and played records; anything else is skipped) as a
/// playlist file, streaming: the head goes out with the first record (or at `finish` when there
/// is none), each record as it comes, the tail at `finish`. One per run, so several sources make
/// one file. The title is the first record's playlist's (or source's) name, else `title`.
package final class TrackExport {
    let format: PlaylistFileFormat
    let stdout: JSONLinesWriter
    let fallbackTitle: String?
    var started = false
    package private(set) var written = 0

    package init(_ format: PlaylistFileFormat, stdout: JSONLinesWriter, title: String? = nil) {
        self.format = format
        self.stdout = stdout
        fallbackTitle = title
    }

    /// `context`'s standard output as `choice` asks, or nil for JSON Lines (and tables).
    package static func make(_ choice: TrackFormatOption.Choice, _ context: ToolContext, title: String? = nil)
        -> TrackExport?
    {
        choice.file.map { TrackExport($0, stdout: context.stdout, title: title) }
    }

    package func write(_ record: JSONObject) throws {
        let track = ExportedTrack(record)
        guard track.isTrackLike else { return }
        if !started { try start(title: track.playlistName ?? fallbackTitle) }
        let text: String
        switch format {
        case .m3u: text = PlaylistFileRenderer.m3uEntry(track)
        case .xspf: text = PlaylistFileRenderer.xspfTrack(track)
        case .jspf: text = (written == 0 ? "" : ",\n") + PlaylistFileRenderer.jspfTrack(track)
        case .csv: text = PlaylistFileRenderer.csvRow(track)
        }
        guard !text.isEmpty else { return }
        try stdout.writeText(text)
        written += 1
    }

    /// A record as its JSON bytes (a cached line).
    package func write(recordBytes: UnsafeRawBufferPointer) throws {
        guard let object = (try? JSONValue.parse(buffer: recordBytes))?.objectValue else { return }
        try write(object)
    }

    package func write(_ value: JSONValue) throws {
        if let object = value.objectValue { try write(object) }
    }

    func start(title: String?) throws {
        started = true
        switch format {
        case .m3u: try stdout.writeText(PlaylistFileRenderer.m3uHead(title: title))
        case .xspf: try stdout.writeText(PlaylistFileRenderer.xspfHead(title: title))
        case .jspf: try stdout.writeText(PlaylistFileRenderer.jspfHead(title: title))
        case .csv: try stdout.writeText(PlaylistFileRenderer.csvHead)
        }
    }

    /// The tail of the file (the whole of an empty one).
    package func finish() throws {
        if !started { try start(title: fallbackTitle) }
        switch format {
        case .m3u, .csv: break
        case .xspf: try stdout.writeText(PlaylistFileRenderer.xspfTail)
        case .jspf: try stdout.writeText(PlaylistFileRenderer.jspfTail)
        }
        try stdout.flush()
    }
}

/// What a playlist file says of one track record (read once, leniently: a missing field is nil).
package struct ExportedTrack: Sendable, Equatable {
    package struct Artist: Sendable, Equatable {
        package var id: String?
        package var name: String

        package init(id: String?, name: String) {
            self.id = id
            self.name = name
        }
    }

    package var type: String?
    package var uri: String?
    package var name: String?
    package var durationMs: Int?
    package var artists: [Artist]
    package var albumID: String?
    package var albumName: String?
    package var releaseDate: String?
    package var releaseDatePrecision: String?
    package var image: String?
    package var discNumber: Int?
    package var trackNumber: Int?
    package var explicit: Bool?
    package var isrc: String?
    package var addedBy: String?
    package var addedAt: String?
    package var playlistName: String?

    /// What a record says, read as a `TrackRecord` (leniently); only its `type` is read by key, as
    /// a played record is printed like a track.
    package init(_ record: JSONObject) {
        self.init(TrackRecord(reading: record), type: record["type"]?.stringValue)
    }

    package init(_ record: TrackRecord, type: String?) {
        self.type = type
        uri = record.uri
        name = record.name
        durationMs = record.durationMs
        artists = record.artists.compactMap { artist in artist.name.map { Artist(id: artist.id, name: $0) } }
        if record.kind == .episode, let show = record.show?.name, artists.isEmpty {
            artists = [Artist(id: nil, name: show)]  // an episode's "artist" is its show, as players show it
        }
        albumID = record.album?.id
        if let album = record.album {
            albumName = album.name
            image = album.images.first?.url
        } else {
            albumName = record.show?.name
            image = record.show?.images.first?.url
        }
        releaseDate = record.album?.releaseDate ?? record.releaseDate
        releaseDatePrecision = record.album?.releaseDatePrecision ?? record.releaseDatePrecision
        discNumber = record.discNumber.value
        trackNumber = record.trackNumber.value
        explicit = record.explicit
        isrc = record.isrc
        addedBy = record.addedBy.value
        addedAt = record.addedAt.value
        playlistName = record.playlist.value?.name ?? record.source?.name
    }

    /// Track, episode and played records (a play is a track); not playlists, artists or counts.
    var isTrackLike: Bool { ["track", "episode", "played"].contains(type ?? "") }

    /// `https://open.spotify.com/KIND/ID` of a `spotify:KIND:ID` uri (not of a local file).
    var webURL: String? {
        guard let uri else { return nil }
        let parts = uri.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "spotify", parts[1] != "local", !parts[2].isEmpty else { return nil }
        return "https://open.spotify.com/\(parts[1])/\(parts[2])"
    }

    var artistNames: String { artists.map(\.name).joined(separator: ", ") }
}

/// The text of each format, pure: a head, one piece per track, a tail.
package enum PlaylistFileRenderer {
    // MARK: M3U

    package static func m3uHead(title: String?) -> String {
        "#EXTM3U\n" + (title.map { "#PLAYLIST:\(oneLine($0))\n" } ?? "")
    }

    /// `#EXTINF:SECONDS,Artists - Title` (-1 when the length is unknown), then the URI. A record
    /// without a URI has no place in an M3U file.
    package static func m3uEntry(_ track: ExportedTrack) -> String {
        guard let uri = track.uri else { return "" }
        let seconds = track.durationMs.map { String(($0 + 500) / 1000) } ?? "-1"
        let artists = track.artistNames
        let title = track.name ?? ""
        let shown = artists.isEmpty ? title : "\(artists) - \(title)"
        return "#EXTINF:\(seconds),\(oneLine(shown))\n\(oneLine(uri))\n"
    }

    /// Line breaks (and other control characters) would end an M3U line early: spaces instead.
    static func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    // MARK: XSPF

    static let xspfNamespace = "http://xspf.org/ns/0/"

    package static func xspfHead(title: String?) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<playlist version=\"1\" xmlns=\"\(xspfNamespace)\">\n"
        if let title { text += "  <title>\(xml(title))</title>\n" }
        return text + "  <trackList>\n"
    }

    package static let xspfTail = "  </trackList>\n</playlist>\n"

    /// One `<track>`: identifiers (the Spotify URI, its open.spotify.com URL, `isrc:`), title,
    /// creator, image, album, trackNum, duration (ms), in XSPF's element order.
    package static func xspfTrack(_ track: ExportedTrack) -> String {
        var lines = ["    <track>"]
        for identifier in identifiers(track) { lines.append("      <identifier>\(xml(identifier))</identifier>") }
        if let name = track.name { lines.append("      <title>\(xml(name))</title>") }
        if !track.artists.isEmpty { lines.append("      <creator>\(xml(track.artistNames))</creator>") }
        if let image = track.image { lines.append("      <image>\(xml(image))</image>") }
        if let album = track.albumName { lines.append("      <album>\(xml(album))</album>") }
        if let number = track.trackNumber, number > 0 { lines.append("      <trackNum>\(number)</trackNum>") }
        if let duration = track.durationMs, duration >= 0 { lines.append("      <duration>\(duration)</duration>") }
        lines.append("    </track>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The URIs a track is known by: Spotify's, its web address, and `isrc:CODE`.
    static func identifiers(_ track: ExportedTrack) -> [String] {
        [track.uri, track.webURL, track.isrc.map { "isrc:\($0)" }].compactMap { $0 }
    }

    /// Text as XML character data or an attribute value: the five special characters escaped, and
    /// characters XML 1.0 does not allow (most control characters) left out.
    package static func xml(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    // MARK: JSPF

    /// The extension ListenBrainz reads on a playlist's tracks.
    static let jspfTrackExtension = "https://musicbrainz.org/doc/jspf#track"

    package static func jspfHead(title: String?) -> String {
        var head = "{\"playlist\":{"
        if let title { head += "\"title\":" + JSONValue.string(title).serialized() + "," }
        return head + "\"track\":[\n"
    }

    package static let jspfTail = "\n]}}\n"

    /// One track object: title, creator, album, trackNum, duration, image, identifier (a list:
    /// the Spotify URI, its web address, `isrc:`), and ListenBrainz's track extension with what the
    /// record says beyond that (added_at, added_by, the artists' and album's addresses, and our
    /// fields under additional_metadata.spotify, so `--from jspf` rebuilds the record).
    package static func jspfTrack(_ track: ExportedTrack) -> String {
        var object: JSONObject = [:]
        if let name = track.name { object["title"] = .string(name) }
        if !track.artists.isEmpty { object["creator"] = .string(track.artistNames) }
        if let album = track.albumName { object["album"] = .string(album) }
        if let number = track.trackNumber, number > 0 { object["trackNum"] = .int(number) }
        if let duration = track.durationMs, duration >= 0 { object["duration"] = .int(duration) }
        if let image = track.image { object["image"] = .string(image) }
        object["identifier"] = .array(identifiers(track).map(JSONValue.string))
        var spotify: JSONObject = [
            "artists": .array(
                track.artists.map { .object(["id": $0.id.map(JSONValue.string) ?? .null, "name": .string($0.name)]) })
        ]
        spotify["album"] = .object([
            "id": text(track.albumID), "name": text(track.albumName), "release_date": text(track.releaseDate),
            "release_date_precision": text(track.releaseDatePrecision),
        ])
        spotify["explicit"] = track.explicit.map(JSONValue.bool) ?? .null
        spotify["isrc"] = text(track.isrc)
        if let disc = track.discNumber { spotify["disc_number"] = .int(disc) }
        var extensionObject: JSONObject = [:]
        if let addedAt = track.addedAt { extensionObject["added_at"] = .string(addedAt) }
        if let addedBy = track.addedBy { extensionObject["added_by"] = .string(addedBy) }
        let artistAddresses = track.artists.compactMap { $0.id.map { "https://open.spotify.com/artist/\($0)" } }
        if !artistAddresses.isEmpty {
            extensionObject["artist_identifiers"] = .array(artistAddresses.map(JSONValue.string))
        }
        if let album = track.albumID {
            extensionObject["release_identifier"] = .string("https://open.spotify.com/album/\(album)")
        }
        extensionObject["additional_metadata"] = ["spotify": .object(spotify)]
        object["extension"] = [jspfTrackExtension: .object(extensionObject)]
        return JSONValue.object(object).serialized()
    }

    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    // MARK: CSV

    /// Exportify's column names, in its order (the columns it has that records lack are left out).
    package static let csvColumns = [
        "Track URI", "Track Name", "Artist URI(s)", "Artist Name(s)", "Album URI", "Album Name", "Album Release Date",
        "Disc Number", "Track Number", "Track Duration (ms)", "Explicit", "ISRC", "Added By", "Added At",
    ]

    package static var csvHead: String { csvLine(csvColumns) }

    /// One row. Several artists are joined by commas, as Exportify joins them, a comma inside a
    /// name written `\,`; Added By is the user's URI.
    package static func csvRow(_ track: ExportedTrack) -> String {
        let artistURIs = track.artists.compactMap { $0.id.map { "spotify:artist:\($0)" } }
        let names = track.artists.map { $0.name.replacingOccurrences(of: ",", with: "\\,") }
        return csvLine([
            track.uri ?? "", track.name ?? "", artistURIs.joined(separator: ","), names.joined(separator: ","),
            track.albumID.map { "spotify:album:\($0)" } ?? "", track.albumName ?? "", track.releaseDate ?? "",
            track.discNumber.map(String.init) ?? "", track.trackNumber.map(String.init) ?? "",
            track.durationMs.map(String.init) ?? "", track.explicit.map { $0 ? "true" : "false" } ?? "",
            track.isrc ?? "", track.addedBy.map { "spotify:user:\($0)" } ?? "", track.addedAt ?? "",
        ])
    }

    /// RFC 4180: fields with a comma, a quote or a line break quoted, quotes doubled, CRLF after
    /// every record.
    static func csvLine(_ fields: [String]) -> String {
        fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    static func csvField(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
