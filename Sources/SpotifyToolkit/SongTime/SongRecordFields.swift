/// The few fields songcount needs from one input record, whatever its shape: a track record or
/// Spotify track object (`duration_ms` at the top), a playlist entry (`item`, legacy `track`,
/// holding the track), or a now-playing record (`progress_ms` at the top, the track in `item`).
public struct SongRecordFields: Sendable, Equatable {
    public var durationMs: Int?
    public var id: String?
    public var uri: String?
    public var progressMs: Int?

    public init(durationMs: Int? = nil, id: String? = nil, uri: String? = nil, progressMs: Int? = nil) {
        self.durationMs = durationMs
        self.id = id
        self.uri = uri
        self.progressMs = progressMs
    }

    /// The song's identity for counting: `id`, else `uri` (local files have only a URI).
    public var songKey: String? { id ?? uri }

    /// Extracts the fields from one JSON Lines line, validating that the line is one JSON object.
    /// `identity: false` skips decoding `id`/`uri` strings (fit mode does not need them).
    public static func extract(from line: UnsafeRawBufferPointer, identity: Bool = true) throws -> SongRecordFields {
        var top = SongRecordFields()
        var nested: SongRecordFields?
        var nestedIsLegacy = false
        try JSONScanner.scanObjectLine(line) { key, scanner in
            if key.matches("duration_ms") {
                top.durationMs = try scanner.readInt()
            } else if key.matches("progress_ms") {
                top.progressMs = try scanner.readInt()
            } else if identity && key.matches("id") {
                top.id = try scanner.readString()
            } else if identity && key.matches("uri") {
                top.uri = try scanner.readString()
            } else if key.matches("item") || key.matches("track") {
                // `track` is also a boolean flag inside playlist tracks; only an object holds a track.
                guard scanner.nextKind == .object else { return }
                let isLegacy = key.matches("track")
                if nested != nil && isLegacy && !nestedIsLegacy { return }  // `item` wins over legacy `track`
                nested = try readTrack(&scanner, identity: identity)
                nestedIsLegacy = isLegacy
            }
        }
        if top.durationMs == nil, let nested {
            return SongRecordFields(durationMs: nested.durationMs, id: nested.id, uri: nested.uri, progressMs: top.progressMs)
        }
        return top
    }

    static func readTrack(_ scanner: inout JSONScanner, identity: Bool) throws -> SongRecordFields {
        var fields = SongRecordFields()
        try scanner.readObject { key, scanner in
            if key.matches("duration_ms") {
                fields.durationMs = try scanner.readInt()
            } else if identity && key.matches("id") {
                fields.id = try scanner.readString()
            } else if identity && key.matches("uri") {
                fields.uri = try scanner.readString()
            }
        }
        return fields
    }
}
