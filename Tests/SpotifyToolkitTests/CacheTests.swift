import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct CachePolicyTests {
    typealias P = CachePolicy
    static func header(_ snapshot: String = "S1", view: CacheView = .records) -> CacheEntryHeader {
        CacheEntryHeader(
            playlistID: "gen0000000000000000120", snapshotID: snapshot, view: view, fetchedAt: 1000, total: 3)
    }

    @Test func viewsServe() {
        #expect(CacheView.full.serves(.full) && CacheView.full.serves(.records) && CacheView.records.serves(.records))
        #expect(!CacheView.records.serves(.full))
    }

    @Test func firstStepNormal() {
        let entry = Self.header()
        // Nothing known: read the playlist (its object names the current snapshot).
        #expect(P.firstStep(mode: .normal, entry: entry, wanted: .records, snapshot: nil) == .fetch)
        #expect(P.firstStep(mode: .normal, entry: nil, wanted: .records, snapshot: nil) == .fetch)
        // A piped record naming the cached version: no request.
        #expect(P.firstStep(mode: .normal, entry: entry, wanted: .records, snapshot: "S1") == .serve)
        // A record naming another version: read it.
        #expect(P.firstStep(mode: .normal, entry: entry, wanted: .records, snapshot: "S0") == .fetch)
        // A records entry cannot serve --raw.
        #expect(P.firstStep(mode: .normal, entry: entry, wanted: .full, snapshot: "S1") == .fetch)
        #expect(P.firstStep(mode: .normal, entry: Self.header(view: .full), wanted: .full, snapshot: "S1") == .serve)
        #expect(P.usableSnapshot(entry, wanted: .records) == "S1")
        #expect(P.usableSnapshot(entry, wanted: .full) == nil)
        #expect(P.usableSnapshot(nil, wanted: .records) == nil)
    }

    @Test func firstStepBypassAndOffline() {
        let entry = Self.header()
        #expect(P.firstStep(mode: .bypass, entry: entry, wanted: .records, snapshot: "S1") == .fetch)
        #expect(P.firstStep(mode: .offline, entry: entry, wanted: .records, snapshot: "S9") == .serve)
        #expect(
            P.firstStep(mode: .offline, entry: nil, wanted: .records, snapshot: nil) == .unavailable(.nothingCached))
        #expect(P.firstStep(mode: .offline, entry: entry, wanted: .full, snapshot: nil) == .unavailable(.needsFull))
    }

    @Test func keepingAFetch() {
        #expect(P.mayKeep(provenSnapshot: "S1", count: 3, total: 3, bytes: 10, maxBytes: 10))
        // No proof (edited meanwhile, or the check could not be made):
        #expect(!P.mayKeep(provenSnapshot: nil, count: 3, total: 3, bytes: 10, maxBytes: 10))
        #expect(!P.mayKeep(provenSnapshot: "", count: 3, total: 3, bytes: 10, maxBytes: 10))
        // Not every item came, or too big:
        #expect(!P.mayKeep(provenSnapshot: "S1", count: 2, total: 3, bytes: 10, maxBytes: 10))
        #expect(!P.mayKeep(provenSnapshot: "S1", count: 3, total: 3, bytes: 11, maxBytes: 10))
    }

    @Test func evictionOrder() {
        let files = [
            P.StoredFile(name: "a", bytes: 40, lastUsed: 30),
            P.StoredFile(name: "b", bytes: 40, lastUsed: 10),
            P.StoredFile(name: "c", bytes: 40, lastUsed: 20),
        ]
        func evictions(_ name: String = "d", bytes: Int = 40, max: Int, protected: Set<String> = []) -> [String]? {
            P.evictions(files, adding: name, bytes: bytes, maxBytes: max, protected: protected)
        }
        #expect(evictions(max: 160) == [])
        #expect(evictions(max: 159) == ["b"])
        #expect(evictions(max: 80) == ["b", "c"])
        // What this run wrote or read is never evicted: the new entry is not kept instead.
        #expect(evictions(max: 80, protected: ["b"]) == ["c", "a"])
        #expect(evictions(max: 79, protected: ["b"]) == nil)
        #expect(evictions(max: 120, protected: ["a", "b", "c"]) == nil)
        // Replacing an entry: its old copy makes room first.
        #expect(evictions("b", bytes: 50, max: 130) == [])
        #expect(evictions("b", bytes: 50, max: 129) == ["c"])
        #expect(evictions(bytes: 0, max: 0) == ["b", "c", "a"])
        #expect(P.evictions([], adding: "x", bytes: 1, maxBytes: 0, protected: []) == nil)
        // Ties: by name, so the order is stable.
        #expect(
            P.evictions(
                [P.StoredFile(name: "y", bytes: 5, lastUsed: 1), P.StoredFile(name: "x", bytes: 5, lastUsed: 1)],
                adding: "z", bytes: 5, maxBytes: 10, protected: []) == ["x"])
    }

    @Test func sizes() throws {
        #expect(try P.maxBytes(nil) == 256 << 20)
        #expect(try P.maxBytes("") == 256 << 20)
        #expect(try P.maxBytes("0") == 0)
        #expect(try P.maxBytes("1500") == 1500)
        #expect(try P.maxBytes("64K") == 64 << 10)
        #expect(try P.maxBytes("256m") == 256 << 20)
        #expect(try P.maxBytes("2G") == 2 << 30)
        for bad in ["-1", "1.5G", "lots", "10T", "G", "99999999999999999999"] {
            #expect(throws: ToolError.self) { try P.maxBytes(bad) }
        }
    }

    @Test func ages() {
        #expect(P.age(seconds: 0) == "0 s")
        #expect(P.age(seconds: -5) == "0 s")
        #expect(P.age(seconds: 59.9) == "59 s")
        #expect(P.age(seconds: 60) == "1 min")
        #expect(P.age(seconds: 3 * 3600 + 12 * 60 + 5) == "3 h 12 min")
        #expect(P.age(seconds: 2 * 86_400 + 4 * 3600) == "2 d 4 h")
        #expect(P.age(seconds: .nan) == "0 s")
    }
}

@Suite(.tags(.small)) struct CacheEntryFormatTests {
    static let id = "gen0000000000000000003"
    static let album: JSONValue = [
        "id": "al1", "name": "Album \"one\"", "uri": "spotify:album:al1", "release_date": "2020-05",
        "release_date_precision": "month",
        "images": [
            ["url": "https://i.scdn.co/image/s", "height": 64, "width": 64],
            ["url": "https://i.scdn.co/image/b", "height": 640, "width": 640],
            ["url": "https://i.scdn.co/image/n", "height": .null, "width": .null],
            ["height": 1, "width": 1],
        ],
    ]
    /// Every shape the records read: tracks sharing an album and artists, escapes and non-ASCII
    /// text, nulls, odd durations, a URI that is not the id's, local files (flagged on the entry
    /// or on the item), episodes (2026 and legacy track-shaped), null and missing items; explicit,
    /// ISRCs, release dates, is_playable said or not, and who added each entry (or nobody).
    static let entries: [JSONValue] = [
        [
            "added_at": "2025-01-01T00:00:00Z", "added_by": ["id": "adder \"1\"", "type": "user"],
            "item": [
                "type": "track", "id": "a", "uri": "spotify:track:a", "name": "Ä \"quoted\"\nline\t/tab",
                "duration_ms": 1000, "artists": [["id": "ar1", "name": "Me", "uri": "x"]], "album": album,
                "explicit": true, "external_ids": ["isrc": "USRC17607839", "ean": "x"], "is_playable": true,
            ],
        ],
        ["added_at": .null, "added_by": ["id": "gone"], "item": .null],
        [
            "added_at": "2025-01-01T00:01:00Z", "is_local": true,
            "track": [
                "id": .null, "is_local": true, "duration_ms": 2.5, "uri": "spotify:local:A:B:C:3", "name": "C",
                "artists": [["id": .null, "name": "A"]], "album": ["id": .null, "name": "B", "images": []],
            ],
        ],
        [
            "added_at": "2025-01-02T00:00:00Z",
            "item": [
                "type": "track", "id": "b", "uri": "spotify:track:other", "name": "B", "duration_ms": -5,
                "artists": [["id": "ar1", "name": "Me"]], "album": album, "explicit": false, "is_playable": false,
                "external_ids": [:],
            ],
        ],
        [
            "added_at": "2025-01-03T00:00:00Z", "added_by": ["id": .null],
            "item": [
                "type": "episode", "id": "ep", "uri": "spotify:episode:ep", "name": "Talk", "duration_ms": 99,
                "show": ["id": "sh", "name": "Show", "images": .null], "release_date": "2024-02-29",
                "release_date_precision": "day", "explicit": false, "is_playable": true,
            ],
        ],
        [
            "item": [
                "type": "episode", "id": "ep2", "uri": "spotify:episode:ep2", "name": .null,
                "album": ["id": "sh2", "name": "Legacy show", "type": "show"], "artists": [["id": "sh2"]],
            ]
        ],
        ["added_at": "2025-01-04T00:00:00Z", "item": ["id": "c", "is_local": true, "type": "episode"]],
        ["added_at": 5, "item": ["type": "song", "id": 7, "name": 8, "artists": "none", "album": .null]],
        ["added_at": "2025-01-05T00:00:00Z"],
        ["added_at": "2025-01-06T00:00:00Z", "item": ["type": "track"]],
    ]

    static func encoded(_ entries: [JSONValue] = entries, view: CacheView = .records, total: Int? = nil) -> Data {
        var builder = CacheEntryFormat.Builder(view: view)
        for entry in entries { builder.append(entry) }
        let header = CacheEntryHeader(
            playlistID: id, snapshotID: "S1", view: view, fetchedAt: 1_795_000_000.25, total: total ?? builder.count,
            name: "Mine \"x\"")
        return CacheEntryFormat.encode(header, body: builder.body, count: builder.count)
    }

    /// What spotify-tracks prints for each entry, as a fetch builds it.
    static func expectedRecords(_ entries: [JSONValue] = entries) -> [String] {
        let playlist = SpotifyReference(kind: .playlist, id: id)
        return entries.enumerated().map { position, entry in
            PlaylistEntry.record(
                entry, position: position, playlist: playlist, name: "Mine \"x\"", snapshot: "S1",
                source: RecordSource(playlist, name: "Mine \"x\"")
            ).map { $0.json.serialized() } ?? ""
        }
    }

    static func lines(_ data: Data) throws -> [(PlaylistEntry.Kind, String, String)] {
        let validated = try CacheEntryFormat.validate(data, playlistID: id)
        var lines: [(PlaylistEntry.Kind, String, String)] = []
        try CacheEntryFormat.forEachRecord(
            data, validated,
            context: CacheEntryFormat.RecordContext(
                playlistID: id, name: validated.header.name, snapshot: validated.header.snapshotID)
        ) { kind, record, entry in
            lines.append((kind, String(decoding: record, as: UTF8.self), String(decoding: entry, as: UTF8.self)))
        }
        return lines
    }

    @Test func recordsRoundTripByteForByte() throws {
        let data = Self.encoded()
        let validated = try CacheEntryFormat.validate(data, playlistID: Self.id)
        #expect(
            validated.header
                == CacheEntryHeader(
                    playlistID: Self.id, snapshotID: "S1", view: .records, fetchedAt: 1_795_000_000.25, total: 10,
                    name: "Mine \"x\""))
        let lines = try Self.lines(data)
        #expect(lines.map(\.0) == Self.entries.map { PlaylistEntry.kind(of: $0) })
        #expect(lines.map(\.1) == Self.expectedRecords())
        #expect(lines.allSatisfy { $0.2.isEmpty })
        // The entries rebuilt for pages (tables, --duration) make the same records.
        let rebuilt = try CacheEntryFormat.entries(data, validated)
        #expect(rebuilt.map { PlaylistEntry.kind(of: $0) } == Self.entries.map { PlaylistEntry.kind(of: $0) })
        #expect(Self.expectedRecords(rebuilt) == Self.expectedRecords())
        // And the same versions for the history (URIs, added_at and added_by, unavailable items too).
        #expect(
            rebuilt.map(PlaylistVersion.Item.init(entry:)) == Self.entries.map(PlaylistVersion.Item.init(entry:)))
        #expect(Self.expectedRecords().contains { $0.contains("\"is_playable\":false") })
        var pages: [(Int, Int)] = []
        try CacheEntryFormat.forEachPage(data, validated, pageSize: 3) { pages.append(($1, $0.count)) }
        #expect(pages.map(\.0) == [0, 3, 6, 9] && pages.map(\.1) == [3, 3, 3, 1])
        // The shared album and artists are stored once.
        #expect(String(decoding: data, as: UTF8.self).components(separatedBy: "Album \\\"one\\\"").count == 2)
        let empty = Self.encoded([])
        #expect(try CacheEntryFormat.entries(empty, CacheEntryFormat.validate(empty, playlistID: Self.id)).isEmpty)
        #expect(try Self.lines(empty).isEmpty)
    }

    @Test func fullEntriesKeepSpotifysObjects() throws {
        let data = Self.encoded(view: .full)
        let validated = try CacheEntryFormat.validate(data, playlistID: Self.id)
        #expect(validated.header.view == .full)
        #expect(try CacheEntryFormat.entries(data, validated) == Self.entries)
        let lines = try Self.lines(data)
        #expect(lines.map(\.1) == Self.expectedRecords())
        #expect(lines.map(\.2) == Self.entries.map { $0.serialized() })
    }

    /// A generated library's items (albums and artists shared across a playlist, as in most
    /// libraries): well under the 300 bytes an item the cache is allowed.
    /// A library's items: well under the 300 bytes an item the cache is allowed, most where
    /// albums and artists are shared across a playlist, and still when every album differs.
    @Test(arguments: [40, 1000]) func anItemCostsAFewDozenBytes(albums: Int) throws {
        let entries: [JSONValue] = (0..<1000).map { index in
            let album = index % albums
            return [
                "added_at": .string("2024-03-0\(index % 9 + 1)T12:00:00Z"), "added_by": ["id": "someone"],
                "is_local": false,
                "item": [
                    "type": "track", "id": .string("4uLU6hMCjMI75M1A2t\(1000 + index)"),
                    "uri": .string("spotify:track:4uLU6hMCjMI75M1A2t\(1000 + index)"),
                    "name": .string("A song called \(index)"), "duration_ms": .int(180_000 + index),
                    "explicit": .bool(index % 3 == 0), "is_playable": .bool(index % 29 != 0),
                    "external_ids": ["isrc": .string("USRC1\(7_000_000 + index)")],
                    "artists": [["id": .string("artist\(album % 10)xxxxxxxxxxxxxxx"), "name": "The Band"]],
                    "album": [
                        "id": .string("album\(10000 + album)xxxxxxxxxxxxx"), "name": .string("Record \(album)"),
                        "release_date": .string("20\(10 + album % 10)-01-0\(album % 9 + 1)"),
                        "release_date_precision": "day",
                        "images": .array(
                            [640, 300, 64].map {
                                [
                                    "url": .string("https://i.scdn.co/image/ab67616d0000b273\(100_000 + album)\($0)"),
                                    "height": .int($0), "width": .int($0),
                                ]
                            }),
                    ],
                ],
            ]
        }
        let data = Self.encoded(entries)
        let most = albums == 1000 ? 300 : 150
        #expect(data.count / entries.count <= most, "\(data.count / entries.count) bytes an item")
        #expect(try Self.lines(data).map(\.1) == Self.expectedRecords(entries))
    }

    /// Albums and artists are looked up by id, then compared whole: the same id with other
    /// contents (another name, a string equal to it only canonically, another image) is kept as
    /// itself, and an album without an id is found by its bytes.
    @Test func sameIDOtherContentsRoundTrip() throws {
        func entry(_ index: Int, album: JSONValue, artists: JSONValue) -> JSONValue {
            [
                "added_at": "2025-01-01T00:00:00Z",
                "item": [
                    "type": "track", "id": .string("t\(index)"), "uri": .string("spotify:track:t\(index)"),
                    "name": "Song", "duration_ms": 1000, "artists": artists, "album": album,
                ],
            ]
        }
        func album(_ name: String, image: String = "b", id: JSONValue = "al1") -> JSONValue {
            [
                "id": id, "name": .string(name),
                "images": [["url": .string("https://i.example/a/\(image)"), "height": 64]],
            ]
        }
        let one: JSONValue = [["id": "ar1", "name": "One"]]
        let two: JSONValue = [["id": "ar1", "name": "One"], ["id": "ar2", "name": "Two"]]
        let entries = [
            entry(0, album: album("Caf\u{E9}"), artists: one),
            entry(1, album: album("Cafe\u{301}"), artists: two),
            entry(2, album: album("Caf\u{E9}", image: "c"), artists: one),
            entry(3, album: album("Caf\u{E9}", image: "d"), artists: two),
            entry(4, album: album("Caf\u{E9}"), artists: one),
            entry(5, album: album("Caf\u{E9}", image: "d"), artists: two),
            entry(6, album: album("No id", id: .null), artists: one),
            entry(7, album: album("No id", id: .null), artists: two),
        ]
        let data = Self.encoded(entries)
        #expect(try Self.lines(data).map(\.1) == Self.expectedRecords(entries))
        // Each album is kept once: the first and the fifth share one, the fourth and sixth another.
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.components(separatedBy: "\nK\t").count - 1 + text.components(separatedBy: "\nC\t").count - 1 == 5)
        #expect(text.components(separatedBy: "\nA\t").count - 1 == 2)
    }

    /// The cache writer serializes an album or a show field by field; what it writes must be what
    /// the record prints (`TrackRecord.json`), for every shape of field: nil, escaped, not ASCII.
    @Test func containerBytesAreTheRecordsBytes() {
        typealias Container = CacheEntryFormat.Builder.Container
        let images: [[TrackRecord.Image]] = [
            [],
            [TrackRecord.Image(url: "https://i.example/a/b", height: 640, width: 640)],
            [
                TrackRecord.Image(url: "https://i.example/\"q\"\\/\u{1}", height: nil, width: 64),
                TrackRecord.Image(url: "", height: 0, width: nil),
            ],
        ]
        let texts: [String?] = [nil, "", "Caf\u{E9}", "Cafe\u{301} \"x\"\n\t\u{7F}", "\u{1F3B5}"]
        var containers: [Container] = []
        for (index, text) in texts.enumerated() {
            for list in images {
                containers.append(
                    .album(
                        TrackRecord.Album(
                            id: text, name: texts[(index + 1) % texts.count], releaseDate: text,
                            releaseDatePrecision: texts[(index + 2) % texts.count], images: list)))
                containers.append(.show(TrackRecord.Show(id: "s1", name: text, images: list)))
            }
        }
        for container in containers {
            var bytes: [UInt8] = []
            container.serializeAsRecord(into: &bytes)
            let expected: JSONValue =
                switch container {
                case .album(let album): TrackRecord.json(album)
                case .show(let show): TrackRecord.json(show)
                }
            #expect(String(decoding: bytes, as: UTF8.self) == expected.serialized(), "\(container)")
        }
    }

    @Test func everyTruncationIsRefused() {
        let data = Self.encoded()
        for length in 0..<data.count {
            #expect(throws: CacheEntryFormat.Damage.self, "\(length) bytes") {
                try CacheEntryFormat.validate(data.prefix(length), playlistID: Self.id)
            }
        }
    }

    @Test func everyChangedByteIsRefused() {
        let data = Self.encoded()
        for index in 0..<data.count {
            var changed = data
            changed[index] ^= 0x20
            #expect(throws: CacheEntryFormat.Damage.self, "byte \(index)") {
                try CacheEntryFormat.validate(changed, playlistID: Self.id)
            }
        }
    }

    /// Entries an earlier version wrote (Spotify's answers beside each record) are not damage:
    /// they are fetched again and replaced, quietly.
    @Test func olderVersionsAreOutdated() {
        for version in 1..<CacheEntryFormat.version {
            var text = String(decoding: Self.encoded(), as: UTF8.self)
            text = text.replacingOccurrences(
                of: "\"version\":\(CacheEntryFormat.version)", with: "\"version\":\(version)")
            let body = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(2).joined(separator: "\n")
            let data = Data((body + "\n").utf8)
            let sum = data.withUnsafeBytes { CacheEntryFormat.hex(CacheEntryFormat.fnv1a64($0)) }
            let whole = data + Data("{\"end\":10,\"fnv1a64\":\"\(sum)\"}\n".utf8)
            #expect(throws: CacheEntryFormat.Outdated.self, "version \(version)") {
                try CacheEntryFormat.validate(whole, playlistID: Self.id)
            }
        }
    }

    @Test func wrongPlaylistCountOrExtraLinesAreRefused() {
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Self.encoded(), playlistID: "gen0000000000000000004")
        }
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Self.encoded(total: 11), playlistID: Self.id)
        }
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Self.encoded() + Self.encoded(), playlistID: Self.id)
        }
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Data("\n\n\n".utf8), playlistID: Self.id)
        }
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Data([0xff, 0xfe, 0x0a]), playlistID: Self.id)
        }
        // Lines that are not of the format, even under a matching checksum: unknown tags, fields
        // missing or extra, references to tables not yet defined, a URI left to an id that is null.
        // A track's fields after its id and URI: name, duration, artists, album, added_at, explicit,
        // is_playable (not said), added_by (nobody), ISRC and an empty last field.
        let tail = "\"n\"\t1\t0\t0\t\"2025\"\tnull\t\t\t\"isrc\"\t"
        let track = "\"id\"\t\t" + tail
        let album = "K\t\"al\"\t\"n\"\t\"2020\"\t\"year\"\t1\t0\tx.jpg\t64\t64"
        for (view, line) in [
            (CacheView.records, "{\"a\":1}"), (.records, "x\t{}"), (.records, "t\t" + track),
            (.records, "A\t[]\nC\t{}\nt\t" + track + "\t1"), (.records, "A\t[]\nC\t{}\nt\t\"id\"\t\t\"n\"\t1\t0\t0"),
            (.records, "A\t[]\nt\t" + track), (.records, "C\t{}\nt\t" + track), (.records, "A\t[]\nC\t{}\nu\tx"),
            (.records, "A\t[]\nC\t{}\nu\t\t"), (.records, "A\t[]\nC\t{}\nt\tnull\t\t" + tail),
            (.records, "A\t[]\nC\t{}\ne\t" + track), (.records, "A\t\nC\t{}\nt\t" + track),
            (.records, "A\t[]\nC\t{}\nt\t\"id\"\t\t\"n\"\t1\tx\t0\t\"2025\"\tnull\t\t\t\"isrc\"\t"),
            (.records, "A\t[]\nC\t{}\nt\t\"id\"\t\t\"n\"\t1\t0\t0\t\"2025\"\t\t\t\t\"isrc\"\t"),
            (.records, "A\t[]\nC\t{}\nt\t\"id\"\t\t" + tail + "\"day\""), (.full, "t\t"), (.full, "t\t{}\t{}"),
            (.full, "A\t{}"), (.records, "P\t\nA\t[]\nK\t\"al\"\t\"n\"\t\t\t1\t1\tx.jpg\t64\t64\nt\t" + track),
            (.records, "P\t\nA\t[]\nK\t\"al\"\t\"n\"\t\t\t2\t0\tx.jpg\t64\t64\nt\t" + track),
            (.records, "P\t\nA\t[]\nK\t\"al\"\t\"n\"\t\t\t1\t0\tx.jpg\t\t64\nt\t" + track),
            (.records, "P\t\nA\t[]\nK\t\"al\"\t\"n\"\t\"2020\"\t\t1\t0\tx.jpg\t64\t64\nt\t" + track),
            (.records, "A\t[]\nK\t\"al\"\t\"n\"\t\t\t1\t0\tx.jpg\t64\t64\nt\t" + track),
        ] {
            let header = CacheEntryHeader(playlistID: Self.id, snapshotID: "S1", view: view, fetchedAt: 1, total: 1)
            let forged = CacheEntryFormat.encode(header, body: Array((line + "\n").utf8), count: 1)
            #expect(throws: CacheEntryFormat.Damage.self, "\(line)") {
                try CacheEntryFormat.validate(forged, playlistID: Self.id)
            }
        }
        // The same shape well formed passes, so the refusals above are for what they change.
        let header = CacheEntryHeader(playlistID: Self.id, snapshotID: "S1", view: .records, fetchedAt: 1, total: 1)
        for body in ["A\t[]\nC\t{}\nt\t", "P\t\nA\t[]\n" + album + "\nt\t"] {
            let good = CacheEntryFormat.encode(header, body: Array((body + track + "\n").utf8), count: 1)
            #expect(throws: Never.self) { try CacheEntryFormat.validate(good, playlistID: Self.id) }
        }
    }
}

/// The cache's files, in a temporary XDG_CACHE_HOME.
@Suite(.tags(.medium)) struct PlaylistCacheTests {
    final class Home {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cache-test-\(UUID().uuidString)").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func cache(size: String? = nil, now: Double = 1000) throws -> PlaylistCache {
            var variables = ["XDG_CACHE_HOME": path, "HOME": path]
            if let size { variables[CachePolicy.sizeVariable] = size }
            return try PlaylistCache(environment: ToolEnvironment(variables), account: "user:test", clock: { now })
        }
    }

    @discardableResult
    static func store(_ cache: PlaylistCache, _ id: String, snapshot: String = "S1", entries: Int = 10) throws -> Bool {
        var builder = CacheEntryFormat.Builder(view: .records)
        for index in 0..<entries {
            builder.append(["item": ["id": .string("track\(index)"), "name": "A track"]])
        }
        return try cache.store(
            CacheEntryHeader(
                playlistID: id, snapshotID: snapshot, view: .records, fetchedAt: cache.now, total: entries),
            body: builder.body, count: entries)
    }

    @Test func storeAndLoad() throws {
        let home = Home()
        let cache = try home.cache()
        #expect(cache.directory.path == home.path + "/spotify-toolkit/playlists")
        guard case .absent = try cache.load("gen0000000000000000010") else {
            Issue.record("expected nothing")
            return
        }
        try Self.store(cache, "gen0000000000000000010")
        let entry = try #require(try cache.load("gen0000000000000000010").entry)
        #expect(entry.header.snapshotID == "S1")
        #expect(try CacheEntryFormat.entries(entry.data, entry.validated).count == 10)
        // A second store replaces the entry whole.
        try Self.store(cache, "gen0000000000000000010", snapshot: "S2", entries: 3)
        #expect(try cache.load("gen0000000000000000010").entry?.header.snapshotID == "S2")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cache.directory.path) == [
                "gen0000000000000000010.jsonl"
            ])
        // Never a path from input.
        guard case .absent = try cache.load("../../etc/passwd") else {
            Issue.record("a path was read")
            return
        }
    }

    @Test func damagedIsNotAnError() throws {
        let home = Home()
        let cache = try home.cache()
        try Self.store(cache, "gen0000000000000000010")
        let path = cache.path(of: "gen0000000000000000010")
        let truncated = try Data(contentsOf: URL(fileURLWithPath: path)).dropLast(5)
        try truncated.write(to: URL(fileURLWithPath: path))
        guard case .damaged(let where_, let reason) = try cache.load("gen0000000000000000010") else {
            Issue.record("not damaged")
            return
        }
        #expect(where_ == path)
        #expect(reason.contains("cut short"))
    }

    @Test func evictsLeastRecentlyUsedAndOldTemporaryFiles() throws {
        let home = Home()
        let now = Date().timeIntervalSince1970
        let probe = try home.cache(now: now)
        try Self.store(probe, "gen0000000000000000001")
        let size =
            try FileManager.default.attributesOfItem(atPath: probe.path(of: "gen0000000000000000001"))[.size] as! Int
        let cache = try home.cache(size: String(size * 2), now: now)  // room for two entries of this size
        try Self.store(cache, "gen0000000000000000002")
        // Make 1 the most recently used, then a third entry of a later run pushes out 2.
        usleep(20_000)
        cache.touch("gen0000000000000000001")
        // Not in this run, which wrote 2 and read 1: it keeps what it used and leaves 3 out.
        #expect(try Self.store(cache, "gen0000000000000000003") == false)
        #expect(!FileManager.default.fileExists(atPath: cache.path(of: "gen0000000000000000003")))
        #expect(FileManager.default.fileExists(atPath: cache.path(of: "gen0000000000000000002")))
        let stray = cache.directory.file("gen0000000000000000009.jsonl.tmp-1-2")
        #expect(FileManager.default.createFile(atPath: stray, contents: Data("x".utf8)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stray)
        // Not the cache's (a planted link can lead it into someone's own files): never evicted.
        let foreign = cache.directory.file("keep1.jsonl")
        let foreignTemporary = cache.directory.file("notes.jsonl.tmp-1-2")
        for path in [foreign, foreignTemporary] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(count: size * 3)))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: path)
        }
        let later = try home.cache(size: String(size * 2), now: now + 1)
        #expect(try Self.store(later, "gen0000000000000000003"))
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).sorted()
        #expect(
            left == [
                "gen0000000000000000001.jsonl", "gen0000000000000000003.jsonl", "keep1.jsonl", "notes.jsonl.tmp-1-2",
            ])
        // Nothing is kept when an entry alone is over the bound, or the bound is 0.
        let none = try home.cache(size: "0")
        #expect(
            try none.store(
                CacheEntryHeader(
                    playlistID: "gen0000000000000000004", snapshotID: "S", view: .full, fetchedAt: 0, total: 0),
                body: [], count: 0) == false)
        #expect(!FileManager.default.fileExists(atPath: none.path(of: "gen0000000000000000004")))
    }

    @Test func untrustedDirectoryIsRefused() throws {
        let home = Home()
        let cache = try home.cache()
        try Self.store(cache, "gen0000000000000000010")
        chmod(cache.directory.path, 0o777)
        #expect(throws: ToolError.self) { try cache.load("gen0000000000000000010") }
        do {
            _ = try cache.load("gen0000000000000000010")
        } catch let error as ToolError {
            #expect(error.exitCode == .config)
            #expect(error.message.contains("chmod 700"))
        }
    }
}
