/// The few fields songcount needs from one input record, whatever its shape: a track record or
/// Spotify track object (`duration_ms` at the top), a playlist entry (`item`, legacy `track`,
/// holding the track), a now-playing record (flattened, or `progress_ms` at the top with the
/// track in `item`), or a `played` record from spotify-nowplaying recent.
package struct SongRecordFields: Sendable, Equatable {
    package var durationMs: Int?
    package var id: String?
    package var uri: String?
    package var progressMs: Int?
    /// The song's name and artist names: the identity of last resort (records without id or uri).
    package var name: String?
    package var artistNames: [String] = []
    /// `is_playing` of a now-playing record; nil for records that are not observations.
    package var isPlaying: Bool?
    /// What the record is, from `type` (record or item) and `currently_playing_type`.
    package var kind: Kind = .unknown
    /// The record is a `now_playing` or `played` record (a play of a song, not the song).
    package var isPlay = false

    /// Songs are tracks. Episodes, ads and anything else that names itself are not.
    package enum Kind: Sendable, Equatable {
        /// No type anywhere: counted as a song (plain duration lists).
        case unknown
        case track
        case other
    }

    package init(
        durationMs: Int? = nil, id: String? = nil, uri: String? = nil, progressMs: Int? = nil,
        name: String? = nil, artistNames: [String] = [], isPlaying: Bool? = nil, kind: Kind = .unknown
    ) {
        self.durationMs = durationMs
        self.id = id
        self.uri = uri
        self.progressMs = progressMs
        self.name = name
        self.artistNames = artistNames
        self.isPlaying = isPlaying
        self.kind = kind
    }

    /// Whether the record stands for a song (a track), rather than an episode, an ad or another object.
    package var isSong: Bool { kind != .other }

    /// The song's identity for counting: `id`, else `uri` (local files have only a URI), else its
    /// name, artists and duration together (hand-made logs); nil when there is none of these.
    package var songKey: String? {
        if let id { return id }
        if let uri { return uri }
        guard let name else { return nil }
        // Unit separators keep "a" + "bc" apart from "ab" + "c".
        return "\u{1F}" + name + "\u{1F}" + artistNames.joined(separator: "\u{1E}") + "\u{1F}"
            + (durationMs.map { String($0) } ?? "")
    }

    /// Extracts the fields from one JSON Lines line, validating that the line is one JSON object.
    /// `identity: false` skips decoding `id`/`uri`/`name`/artists (fit mode does not need them).
    package static func extract(from line: UnsafeRawBufferPointer, identity: Bool = true) throws -> SongRecordFields {
        var top = SongRecordFields()
        var nested: SongRecordFields?
        var nestedIsLegacy = false
        var topType = TypeValue.absent
        var playingType = TypeValue.absent
        try JSONScanner.scanObjectLine(line) { key, scanner in
            if key.matches("duration_ms") {
                top.durationMs = try scanner.readInt()
            } else if key.matches("progress_ms") {
                top.progressMs = try scanner.readInt()
            } else if key.matches("is_playing") {
                top.isPlaying = try scanner.readBool()
            } else if key.matches("type") {
                topType = TypeValue(try scanner.readRawValue())
            } else if key.matches("currently_playing_type") {
                playingType = TypeValue(try scanner.readRawValue())
            } else if identity, try top.readIdentity(key, &scanner) {
            } else if key.matches("item") || key.matches("track") {
                // `track` is also a boolean flag inside playlist tracks; only an object holds a track.
                guard scanner.nextKind == .object else { return }
                let isLegacy = key.matches("track")
                if nested != nil && isLegacy && !nestedIsLegacy { return }  // `item` wins over legacy `track`
                nested = try readTrack(&scanner, identity: identity)
                nestedIsLegacy = isLegacy
            }
        }
        var fields = top
        if top.durationMs == nil, let nested {
            fields = nested
            fields.progressMs = top.progressMs
            fields.isPlaying = top.isPlaying
        }
        // The record's own type: "now_playing" and "played" wrap a song; "track" is one; anything
        // else (episode, ad, playlist...) is not. An item's type and currently_playing_type must agree.
        var kind = Kind.unknown
        for type in [topType, playingType, nested.map(\.kind).map(TypeValue.init) ?? .absent] {
            switch type {
            case .absent, .wrapper: continue
            case .track: if kind == .unknown { kind = .track }
            case .other: kind = .other
            }
        }
        fields.kind = kind
        fields.isPlay = topType == .wrapper
        return fields
    }

    /// A `type` or `currently_playing_type` value, compared without decoding a string.
    enum TypeValue: Equatable {
        case absent, track, wrapper, other

        init(_ raw: UnsafeRawBufferPointer) {
            if raw.elementsEqual("null".utf8) {
                self = .absent
            } else if raw.elementsEqual("\"track\"".utf8) {
                self = .track
            } else if raw.elementsEqual("\"now_playing\"".utf8) || raw.elementsEqual("\"played\"".utf8) {
                self = .wrapper
            } else {
                self = .other
            }
        }

        init(_ kind: Kind) {
            switch kind {
            case .unknown: self = .absent
            case .track: self = .track
            case .other: self = .other
            }
        }
    }

    /// Reads the value of `key` when it is one of the identity fields (id, uri, name, artists);
    /// false, with nothing consumed, when it is not.
    @inline(__always)
    mutating func readIdentity(_ key: JSONKey, _ scanner: inout JSONScanner) throws -> Bool {
        if key.matches("id") {
            id = try scanner.readString()
        } else if key.matches("uri") {
            uri = try scanner.readString()
        } else if key.matches("name") {
            name = try scanner.readString()
        } else if key.matches("artists") {
            artistNames = try Self.readArtistNames(&scanner)
        } else {
            return false
        }
        return true
    }

    static func readTrack(_ scanner: inout JSONScanner, identity: Bool) throws -> SongRecordFields {
        var fields = SongRecordFields()
        try scanner.readObject { key, scanner in
            if key.matches("duration_ms") {
                fields.durationMs = try scanner.readInt()
            } else if key.matches("type") {
                switch TypeValue(try scanner.readRawValue()) {
                case .track: fields.kind = .track
                case .absent: break
                case .wrapper, .other: fields.kind = .other
                }
            } else if identity, try fields.readIdentity(key, &scanner) {
            }
        }
        return fields
    }

    /// The `name` of each artist object; anything else in the list is ignored.
    static func readArtistNames(_ scanner: inout JSONScanner) throws -> [String] {
        guard scanner.nextKind == .array else {
            try scanner.skipValue()
            return []
        }
        var names: [String] = []
        try scanner.readArray { scanner in
            guard scanner.nextKind == .object else { return }
            try scanner.readObject { key, scanner in
                if key.matches("name"), let name = try scanner.readString() { names.append(name) }
            }
        }
        return names
    }
}
