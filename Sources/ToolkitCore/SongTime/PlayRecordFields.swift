/// The few fields the listening log needs of each of its lines (a `played` record), scanned
/// without building the record: a log of ten years holds about 100,000 of them, read whole by
/// every writer to tell a new play from one it holds.
package struct PlayRecordFields: Sendable, Equatable {
    package var playedAt: String?
    package var uri: String?
    package var name: String?
    /// The first artist's name (a track), or the show's (an episode).
    package var by: String?
    package var loggedFrom: String?

    package init(
        playedAt: String? = nil, uri: String? = nil, name: String? = nil, by: String? = nil, loggedFrom: String? = nil
    ) {
        self.playedAt = playedAt
        self.uri = uri
        self.name = name
        self.by = by
        self.loggedFrom = loggedFrom
    }

    /// The fields of one line; throws `JSONParseError` when it is not a JSON object.
    package static func extract(from line: UnsafeRawBufferPointer) throws -> PlayRecordFields {
        var fields = PlayRecordFields()
        var show: String?
        try JSONScanner.scanObjectLine(line) { key, scanner in
            if key.matches("played_at") {
                fields.playedAt = try scanner.readString()
            } else if key.matches("uri") {
                fields.uri = try scanner.readString()
            } else if key.matches("name") {
                fields.name = try scanner.readString()
            } else if key.matches("logged_from") {
                fields.loggedFrom = try scanner.readString()
            } else if key.matches("artists"), scanner.nextKind == .array {
                try scanner.readArray { scanner in
                    guard fields.by == nil, scanner.nextKind == .object else { return }
                    try scanner.readObject { key, scanner in
                        if key.matches("name") { fields.by = try scanner.readString() }
                    }
                }
            } else if key.matches("show"), scanner.nextKind == .object {
                try scanner.readObject { key, scanner in
                    if key.matches("name") { show = try scanner.readString() }
                }
            }
        }
        if fields.by == nil { fields.by = show }
        return fields
    }
}
