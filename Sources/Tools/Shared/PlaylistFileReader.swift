import SpotifyClient
import ToolkitCore

/// One track a playlist file names, as far as the file says: a Spotify URI or URL, an ISRC, and
/// what a person sees (title, artists, album, length).
struct ImportedTrack: Sendable, Equatable {
    /// Where it is in its file ("line 12"; in a JSPF file "track 3"), for messages.
    package var place: String
    package var reference: SpotifyReference?
    /// A local file's `spotify:local:` URI (no Spotify id: it can only be printed as it is).
    var localURI: String?
    package var isrc: String?
    package var title: String?
    package var artists: [ExportedTrack.Artist] = []
    package var albumID: String?
    var albumName: String?
    package var releaseDate: String?
    var releaseDatePrecision: String?
    package var durationMs: Int?
    package var explicit: Bool?
    var discNumber: Int?
    var trackNumber: Int?
    package var addedAt: String?
    package var addedBy: String?

    package init(place: String) {
        self.place = place
    }

    /// Whether the file says enough to print the record without asking Spotify: an id, a name and
    /// a length.
    var isComplete: Bool { reference != nil && title != nil && durationMs != nil }

    /// The object Spotify would send for it, as far as the file says, for `TrackRecord.make`.
    var spotifyObject: JSONValue {
        var object: JSONObject = [:]
        let kind = reference?.kind == .episode ? "episode" : "track"
        object["type"] = .string(kind)
        object["id"] = reference.map { .string($0.id) } ?? .null
        object["uri"] = (reference?.uri ?? localURI).map(JSONValue.string) ?? .null
        object["name"] = title.map(JSONValue.string) ?? .null
        object["duration_ms"] = durationMs.map(JSONValue.int) ?? .null
        object["explicit"] = explicit.map(JSONValue.bool) ?? .null
        if kind == "episode" {
            object["show"] = ["id": .null, "name": artists.first.map { .string($0.name) } ?? .null, "images": []]
            object["release_date"] = releaseDate.map(JSONValue.string) ?? .null
            object["release_date_precision"] = releaseDatePrecision.map(JSONValue.string) ?? .null
        } else {
            object["artists"] = .array(
                artists.map { ["id": $0.id.map(JSONValue.string) ?? .null, "name": .string($0.name)] })
            if albumID != nil || albumName != nil {
                object["album"] = [
                    "id": albumID.map(JSONValue.string) ?? .null, "name": albumName.map(JSONValue.string) ?? .null,
                    "release_date": releaseDate.map(JSONValue.string) ?? .null,
                    "release_date_precision": (releaseDatePrecision ?? releaseDate.flatMap(Self.precision)).map(
                        JSONValue.string) ?? .null,
                    "images": [],
                ]
            }
            object["external_ids"] = isrc.map { ["isrc": .string($0)] } ?? [:]
        }
        object["is_local"] = .bool(localURI != nil)
        return .object(object)
    }

    /// Spotify's precision of a release date by its length: 1999, 1999-03, 1999-03-01.
    static func precision(_ date: String) -> String? {
        switch date.count {
        case 4: "year"
        case 7: "month"
        case 10: "day"
        default: nil
        }
    }

    /// The search query for it: its title and artists, and its length to favour the closest.
    package var query: SearchQuery? {
        guard let title, !title.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        let names = artists.map(\.name)
        let text = names.isEmpty ? title : names.joined(separator: ", ") + " - " + title
        return SearchQuery(text: text, title: title, artists: names, durationMs: durationMs)
    }

    /// An ISRC as Spotify files it (12 letters and digits, upper case; hyphens dropped), or nil
    /// when `text` is none.
    static func isrc(_ text: String) -> String? {
        let code = text.trimmingCharacters(in: .whitespaces).uppercased().filter { $0 != "-" }
        guard code.count == 12, code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return code
    }

    /// Takes a URI, URL or `isrc:` identifier the file gives; false when it is none of them.
    mutating func take(identifier raw: String) -> Bool {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.lowercased().hasPrefix("isrc:") || text.lowercased().hasPrefix("urn:isrc:") {
            guard let code = Self.isrc(String(text.split(separator: ":").last ?? "")) else { return false }
            if isrc == nil { isrc = code }
            return true
        }
        if text.hasPrefix("spotify:local:") {
            if reference == nil && localURI == nil { localURI = text }
            return true
        }
        guard text.hasPrefix("spotify:") || text.lowercased().contains("open.spotify.com/"),
            let found = try? SpotifyReference.parse(text, expectingOneOf: [.track, .episode])
        else { return false }
        if reference == nil { reference = found }
        return true
    }
}

/// A row of a playlist file that names no track it can read (the caller names the file).
struct ImportProblem: Error, Sendable, Equatable {
    package var place: String
    package var reason: String
}

/// Reads M3U, XSPF, JSPF and CSV files (`PlaylistFileFormat`) into the tracks they name, in file
/// order, each a track or the problem of its row. Pure: bytes in, values out. Lenient as readers
/// of these files are: a byte-order mark, CRLF, unknown columns, elements and keys are fine.
enum PlaylistFileReader {
    package typealias Row = Result<ImportedTrack, ImportProblem>

    package static func read(_ bytes: [UInt8], format: PlaylistFileFormat) -> [Row] {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        switch format {
        case .csv: return csv(text)
        case .m3u: return m3u(text)
        case .jspf: return jspf(text)
        case .xspf: return xspf(text)
        }
    }

    // MARK: CSV

    /// Records of RFC 4180 CSV (quoted fields may hold commas, quotes doubled and line breaks;
    /// CRLF or LF), each with the line it starts on; blank lines skipped.
    static func csvRecords(_ text: String) -> (records: [(line: Int, fields: [String])], unclosedQuoteAt: Int?) {
        var records: [(Int, [String])] = []
        var fields: [String] = []
        var field = ""
        var line = 1
        var recordLine = 1
        var quoted = false
        var quoteStart = 0
        var afterQuote = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields = []
            field = ""
        }
        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            field.unicodeScalars.append("\"")
                        } else {
                            quoted = false
                            afterQuote = true
                            pending = next
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
                quoteStart = line
            case ",":
                fields.append(field)
                field = ""
                afterQuote = false
            case "\r":
                continue  // CRLF: the LF ends the record; a lone CR is dropped
            case "\n":
                endRecord()
                afterQuote = false
                line += 1
                recordLine = line
            default:
                field.unicodeScalars.append(scalar)
            }
        }
        if quoted { return (records, quoteStart) }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        return (records, nil)
    }

    /// The columns read, by their names in Exportify's exports (every version) and close cousins.
    enum Column {
        case uri, name, artistURIs, artistNames, albumURI, albumName, releaseDate, disc, number, duration
        case explicit, isrc, addedBy, addedAt

        init?(header: String) {
            let name = header.trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "track uri", "spotify uri", "uri", "track_uri", "spotify_uri", "spotify track uri": self = .uri
            case "track name", "name", "title", "track", "track_name", "song": self = .name
            case "artist uri(s)", "artist uri", "artist uris", "artist_uris": self = .artistURIs
            case "artist name(s)", "artist name", "artist names", "artist", "artists", "artist_names":
                self = .artistNames
            case "album uri", "album_uri": self = .albumURI
            case "album name", "album", "album_name": self = .albumName
            case "album release date", "release date", "release_date": self = .releaseDate
            case "disc number", "disc_number": self = .disc
            case "track number", "track_number": self = .number
            case "track duration (ms)", "duration (ms)", "duration_ms", "duration ms": self = .duration
            case "explicit": self = .explicit
            case "isrc": self = .isrc
            case "added by", "added_by": self = .addedBy
            case "added at", "added_at": self = .addedAt
            default: return nil
            }
        }
    }

    static func csv(_ text: String) -> [Row] {
        let (records, unclosed) = csvRecords(text)
        guard let header = records.first else {
            return unclosed.map { [.failure(ImportProblem(place: "line \($0)", reason: "a quote is never closed"))] }
                ?? []
        }
        var columns: [Int: Column] = [:]
        for (index, name) in header.fields.enumerated() {
            if let column = Column(header: name), !columns.values.contains(where: { sameColumn($0, column) }) {
                columns[index] = column
            }
        }
        guard columns.values.contains(where: { [.uri, .name, .isrc].contains($0) }) else {
            return [
                .failure(
                    ImportProblem(
                        place: "line \(header.line)",
                        reason: "no Track URI, Track Name or ISRC column (a CSV file needs a header row naming them)"))
            ]
        }
        var rows: [Row] = records.dropFirst().map { record in
            csvRow(record.fields, columns: columns, place: "line \(record.line)")
        }
        if let unclosed {
            rows.append(.failure(ImportProblem(place: "line \(unclosed)", reason: "a quote is never closed")))
        }
        return rows
    }

    static func sameColumn(_ a: Column, _ b: Column) -> Bool { "\(a)" == "\(b)" }

    static func csvRow(_ fields: [String], columns: [Int: Column], place: String) -> Row {
        var track = ImportedTrack(place: place)
        var artistURIs: [String] = []
        var artistNames: [String] = []
        for (index, raw) in fields.enumerated() {
            guard let column = columns[index] else { continue }
            let value = raw.trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { continue }
            switch column {
            case .uri:
                guard track.take(identifier: value), track.reference != nil || track.localURI != nil else {
                    return .failure(
                        ImportProblem(place: place, reason: "'\(value.prefix(80))' is no Spotify track URI"))
                }
            case .name: track.title = value
            case .artistURIs: artistURIs = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            case .artistNames: artistNames = splitNames(value)
            case .albumURI:
                track.albumID = (try? SpotifyReference.parse(value, expecting: .album))?.id
            case .albumName: track.albumName = value
            case .releaseDate: track.releaseDate = value
            case .disc: track.discNumber = Int(value)
            case .number: track.trackNumber = Int(value)
            case .duration:
                guard let milliseconds = Int(value) ?? Double(value).flatMap(wholeMilliseconds), milliseconds >= 0
                else {
                    return .failure(
                        ImportProblem(
                            place: place, reason: "the duration '\(value.prefix(40))' is no number of milliseconds"))
                }
                track.durationMs = milliseconds
            case .explicit: track.explicit = ["true", "1", "yes"].contains(value.lowercased())
            case .isrc:
                guard let code = ImportedTrack.isrc(value) else {
                    return .failure(ImportProblem(place: place, reason: "'\(value.prefix(40))' is no ISRC"))
                }
                track.isrc = code
            case .addedBy:
                let id = value.hasPrefix("spotify:user:") ? String(value.dropFirst("spotify:user:".count)) : value
                track.addedBy = id
            case .addedAt: track.addedAt = value
            }
        }
        let ids = artistURIs.map { (try? SpotifyReference.parse($0, expecting: .artist))?.id }
        track.artists = artistNames.enumerated().map { index, name in
            ExportedTrack.Artist(id: ids.count == artistNames.count ? ids[index] : nil, name: name)
        }
        guard track.reference != nil || track.localURI != nil || track.isrc != nil || track.query != nil else {
            return .failure(
                ImportProblem(place: place, reason: "no Track URI, ISRC or Track Name to find the track by"))
        }
        return .success(track)
    }

    /// Exportify's artist names: joined by commas, a comma inside a name written `\,`.
    static func splitNames(_ text: String) -> [String] {
        var names: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                names.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        names.append(current)
        return names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A length in milliseconds given with a fraction ("215000.0"), if it is a sane one.
    static func wholeMilliseconds(_ value: Double) -> Int? {
        guard value.isFinite, value >= 0, value < 1e12 else { return nil }
        return Int(value.rounded())
    }

    // MARK: M3U

    static func m3u(_ text: String) -> [Row] {
        var rows: [Row] = []
        var info: (seconds: Int?, shown: String)?
        // "\r\n" is one Character in Swift: split on every kind of line end.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (index, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            let place = "line \(index + 1)"
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.uppercased().hasPrefix("#EXTINF:") {
                    let rest = line.dropFirst("#EXTINF:".count)
                    let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                    let length = rest[..<comma].split(separator: " ").first.map(String.init) ?? ""
                    let seconds = Double(length).flatMap { $0 >= 0 && $0 < 1e9 ? Int($0.rounded()) : nil }
                    let shown = comma < rest.endIndex ? String(rest[rest.index(after: comma)...]) : ""
                    info = (seconds, shown.trimmingCharacters(in: .whitespaces))
                }
                continue
            }
            var track = ImportedTrack(place: place)
            let shown = info?.shown ?? fileStem(line)
            if let info, let seconds = info.seconds { track.durationMs = seconds * 1000 }
            info = nil
            if let range = shown.range(of: " - ") {
                track.artists = SearchQuery.splitArtists(String(shown[..<range.lowerBound])).map {
                    ExportedTrack.Artist(id: nil, name: $0)
                }
                track.title = String(shown[range.upperBound...]).trimmingCharacters(in: .whitespaces)
            } else if !shown.isEmpty {
                track.title = shown
            }
            let isSpotify = line.hasPrefix("spotify:") || line.lowercased().contains("open.spotify.com/")
            if isSpotify && !track.take(identifier: line) {
                rows.append(
                    .failure(ImportProblem(place: place, reason: "'\(line.prefix(80))' is no Spotify track URI")))
                continue
            }
            guard track.reference != nil || track.localURI != nil || track.query != nil else {
                rows.append(.failure(ImportProblem(place: place, reason: "nothing to find the track by")))
                continue
            }
            rows.append(.success(track))
        }
        return rows
    }

    /// A file's name without folders, extension or a leading track number: "03 - Artist - Title".
    static func fileStem(_ location: String) -> String {
        var name = String(location.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "")
        name = percentDecoded(name)
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 5 {
            name = String(name[..<dot])
        }
        let digits = name.prefix { $0.isNumber }
        if !digits.isEmpty && digits.count <= 3 {
            name = String(name.dropFirst(digits.count).drop { " .-_".contains($0) })
        }
        return name.trimmingCharacters(in: .whitespaces)
    }

    /// `%20` and the like decoded (a file URL's path); text that is not valid UTF-8 after it stays as it was.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }

    // MARK: JSPF

    static func jspf(_ text: String) -> [Row] {
        guard let document = try? JSONValue.parse(text) else {
            return [.failure(ImportProblem(place: "line 1", reason: "not JSON"))]
        }
        guard let tracks = document["playlist"]?["track"]?.arrayValue else {
            return [.failure(ImportProblem(place: "line 1", reason: "no playlist.track list: not a JSPF playlist"))]
        }
        return tracks.enumerated().map { index, value in jspfTrack(value, place: "track \(index + 1)") }
    }

    static func strings(_ value: JSONValue?) -> [String] {
        if let text = value?.stringValue { return [text] }
        return (value?.arrayValue ?? []).compactMap(\.stringValue)
    }

    static func jspfTrack(_ value: JSONValue, place: String) -> Row {
        guard value.objectValue != nil else { return .failure(ImportProblem(place: place, reason: "not an object")) }
        var track = ImportedTrack(place: place)
        for identifier in strings(value["identifier"]) + strings(value["location"]) {
            _ = track.take(identifier: identifier)
        }
        track.title = value["title"]?.stringValue
        track.albumName = value["album"]?.stringValue
        if let duration = value["duration"], duration != .null {
            guard let milliseconds = duration.intValue ?? duration.doubleValue.flatMap(wholeMilliseconds),
                milliseconds >= 0
            else { return .failure(ImportProblem(place: place, reason: "duration is no number of milliseconds")) }
            track.durationMs = milliseconds
        }
        track.trackNumber = value["trackNum"]?.intValue
        let listenBrainz = value["extension"]?[PlaylistFileRenderer.jspfTrackExtension]
        track.addedAt = listenBrainz?["added_at"]?.stringValue
        track.addedBy = listenBrainz?["added_by"]?.stringValue
        let spotify = listenBrainz?["additional_metadata"]?["spotify"]
        if let artists = spotify?["artists"]?.arrayValue, !artists.isEmpty {
            track.artists = artists.compactMap { artist in
                artist["name"]?.stringValue.map { ExportedTrack.Artist(id: artist["id"]?.stringValue, name: $0) }
            }
        } else if let creator = value["creator"]?.stringValue, !creator.isEmpty {
            track.artists = SearchQuery.splitArtists(creator).map { ExportedTrack.Artist(id: nil, name: $0) }
        }
        if let album = spotify?["album"] {
            track.albumID = album["id"]?.stringValue
            track.releaseDate = album["release_date"]?.stringValue
            track.releaseDatePrecision = album["release_date_precision"]?.stringValue
        }
        track.explicit = spotify?["explicit"]?.boolValue
        if track.isrc == nil { track.isrc = spotify?["isrc"]?.stringValue }
        track.discNumber = spotify?["disc_number"]?.intValue
        guard track.reference != nil || track.localURI != nil || track.isrc != nil || track.query != nil else {
            return .failure(ImportProblem(place: place, reason: "no Spotify identifier, ISRC or title"))
        }
        return .success(track)
    }

    // MARK: XSPF

    static func xspf(_ text: String) -> [Row] {
        var parser = XMLScanner(text)
        var rows: [Row] = []
        var stack: [String] = []
        var current: (track: ImportedTrack, depth: Int)?
        var textOf: (name: String, text: String)?
        var identifiers: [String] = []
        var sawPlaylist = false
        do {
            while let event = try parser.next() {
                switch event {
                case .start(let name, let selfClosing):
                    if stack.isEmpty && name != "playlist" {
                        throw XMLScanner.Malformed(
                            line: parser.line, reason: "the root element is <\(name)>, not <playlist>")
                    }
                    sawPlaylist = true
                    if name == "track" && stack.last == "trackList" && current == nil {
                        current = (ImportedTrack(place: "line \(parser.line)"), stack.count + 1)
                        identifiers = []
                    } else if let track = current, stack.count == track.depth {
                        textOf = (name, "")
                    }
                    if !selfClosing { stack.append(name) } else { textOf = nil }
                case .text(let text):
                    if textOf != nil { textOf?.text += text }
                case .end(let name):
                    guard stack.last == name else {
                        throw XMLScanner.Malformed(
                            line: parser.line, reason: "</\(name)> does not close <\(stack.last ?? "nothing")>")
                    }
                    stack.removeLast()
                    if var found = current {
                        if stack.count == found.depth, let (child, value) = textOf, child == name {
                            let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
                            switch name {
                            case "location", "identifier": identifiers.append(value)
                            case "title": found.track.title = value
                            case "creator":
                                found.track.artists = SearchQuery.splitArtists(value).map {
                                    ExportedTrack.Artist(id: nil, name: $0)
                                }
                            case "album": found.track.albumName = value
                            case "trackNum": found.track.trackNumber = Int(value)
                            case "duration": found.track.durationMs = Int(value).flatMap { $0 >= 0 ? $0 : nil }
                            default: break
                            }
                            textOf = nil
                            current = found
                        } else if stack.count == found.depth - 1 && name == "track" {
                            for identifier in identifiers { _ = found.track.take(identifier: identifier) }
                            let track = found.track
                            if track.reference == nil && track.localURI == nil && track.isrc == nil
                                && track.query == nil
                            {
                                rows.append(
                                    .failure(
                                        ImportProblem(
                                            place: track.place, reason: "no Spotify identifier, ISRC or title")))
                            } else {
                                rows.append(.success(track))
                            }
                            current = nil
                        }
                    }
                }
            }
            guard sawPlaylist else { throw XMLScanner.Malformed(line: parser.line, reason: "no <playlist> element") }
            if let open = stack.last {
                throw XMLScanner.Malformed(line: parser.line, reason: "<\(open)> is never closed")
            }
        } catch let malformed as XMLScanner.Malformed {
            rows.append(
                .failure(ImportProblem(place: "line \(malformed.line)", reason: "not XML: \(malformed.reason)")))
        } catch {
            rows.append(.failure(ImportProblem(place: "line \(parser.line)", reason: "not XML")))
        }
        return rows
    }
}

/// Just enough XML for XSPF: elements (prefixes dropped), text with the predefined and numeric
/// character references, CDATA; declarations, comments, processing instructions and DOCTYPE
/// skipped. No external entities are ever read. Counts lines for messages.
struct XMLScanner {
    enum Event: Equatable {
        case start(String, selfClosing: Bool)
        case end(String)
        case text(String)
    }

    struct Malformed: Error {
        var line: Int
        var reason: String
    }

    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    mutating func advance() -> Unicode.Scalar? {
        guard index < scalars.count else { return nil }
        let scalar = scalars[index]
        index += 1
        if scalar == "\n" { line += 1 }
        return scalar
    }

    func starts(with text: String) -> Bool {
        var at = index
        for scalar in text.unicodeScalars {
            guard at < scalars.count, scalars[at] == scalar else { return false }
            at += 1
        }
        return true
    }

    /// Skips past `end`, or fails naming what was left open.
    mutating func skip(past end: String, what: String) throws {
        while index < scalars.count {
            if starts(with: end) {
                for _ in end.unicodeScalars { _ = advance() }
                return
            }
            _ = advance()
        }
        throw Malformed(line: line, reason: "\(what) is never closed")
    }

    mutating func next() throws -> Event? {
        while index < scalars.count {
            if scalars[index] != "<" { return .text(try text()) }
            if starts(with: "<!--") {
                try skip(past: "-->", what: "a comment")
            } else if starts(with: "<![CDATA[") {
                for _ in 0..<9 { _ = advance() }
                var content = String.UnicodeScalarView()
                while index < scalars.count && !starts(with: "]]>") { content.append(advance()!) }
                try skip(past: "]]>", what: "a CDATA section")
                return .text(String(content))
            } else if starts(with: "<?") {
                try skip(past: "?>", what: "a processing instruction")
            } else if starts(with: "<!") {
                try skip(past: ">", what: "a declaration")
            } else {
                return try tag()
            }
        }
        return nil
    }

    mutating func tag() throws -> Event {
        let startLine = line
        _ = advance()  // <
        let closing = index < scalars.count && scalars[index] == "/"
        if closing { _ = advance() }
        var name = String.UnicodeScalarView()
        while index < scalars.count, !" \t\r\n/>".unicodeScalars.contains(scalars[index]) { name.append(advance()!) }
        guard !name.isEmpty else { throw Malformed(line: startLine, reason: "a tag without a name") }
        var quote: Unicode.Scalar?
        var selfClosing = false
        while let scalar = advance() {
            if let open = quote {
                if scalar == open { quote = nil }
                if scalar == "<" { throw Malformed(line: line, reason: "'<' in an attribute value") }
                continue
            }
            if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == ">" {
                let local = String(name).split(separator: ":").last.map(String.init) ?? String(name)
                return closing ? .end(local) : .start(local, selfClosing: selfClosing)
            } else if scalar == "/" {
                selfClosing = true
                continue
            } else if scalar == "<" {
                throw Malformed(line: line, reason: "<\(String(name)) is never closed with '>'")
            }
            selfClosing = false
        }
        throw Malformed(line: startLine, reason: "<\(String(name)) is never closed with '>'")
    }

    mutating func text() throws -> String {
        var out = String.UnicodeScalarView()
        while index < scalars.count && scalars[index] != "<" {
            let scalar = advance()!
            guard scalar == "&" else {
                out.append(scalar)
                continue
            }
            var reference = ""
            while index < scalars.count, scalars[index] != ";", reference.unicodeScalars.count < 12 {
                reference.unicodeScalars.append(advance()!)
            }
            guard index < scalars.count, scalars[index] == ";" else {
                throw Malformed(line: line, reason: "an '&' that starts no character reference")
            }
            _ = advance()
            switch reference {
            case "amp": out.append("&")
            case "lt": out.append("<")
            case "gt": out.append(">")
            case "quot": out.append("\"")
            case "apos": out.append("'")
            default:
                var number: UInt32?
                if reference.hasPrefix("#x") || reference.hasPrefix("#X") {
                    number = UInt32(reference.dropFirst(2), radix: 16)
                } else if reference.hasPrefix("#") {
                    number = UInt32(reference.dropFirst())
                }
                guard let number, let decoded = Unicode.Scalar(number) else {
                    throw Malformed(line: line, reason: "an unknown entity &\(reference.prefix(12));")
                }
                out.append(decoded)
            }
        }
        return String(out)
    }
}
