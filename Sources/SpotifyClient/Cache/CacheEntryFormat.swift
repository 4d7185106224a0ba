import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which answers a cache entry holds. `records`: what track records need, compact
/// (`CacheEntryFormat`); `full`: Spotify's entry objects untouched (what `--raw` prints). A full
/// entry serves every run; a records entry serves every run but `--raw`.
package enum CacheView: String, Sendable, Equatable, CaseIterable {
    case records
    case full

    /// Whether an entry of this view can answer a run that wants `wanted`.
    package func serves(_ wanted: CacheView) -> Bool {
        self == .full || wanted == .records
    }
}

/// What the first line of a cache entry says about it.
package struct CacheEntryHeader: Sendable, Equatable {
    package var playlistID: String
    package var snapshotID: String
    package var view: CacheView
    /// When the items were fetched (Unix seconds).
    var fetchedAt: Double
    /// The playlist's `total` as its pages reported it (equal to the number of entries kept).
    package var total: Int
    /// Whose copy it is (`PlaylistCache.account`): another account's entry is never served. nil
    /// in entries written before entries had owners, which then belong to nobody.
    package var account: String?
    /// The playlist's name when it was fetched: the records' `playlist.name` and `source.name`.
    package var name: String?
}

/// The bytes of a cache entry, and the checks before one is believed. Pure: no I/O.
///
/// An entry is a header line (JSON), body lines in playlist order, and a trailer line
/// `{"end":COUNT,"fnv1a64":"HEX"}` whose checksum covers every byte before it. Fields of a body
/// line are separated by tabs, and every field that holds a value holds it as compact JSON (which
/// never holds a raw tab or newline), exactly as a record prints it, so a re-run copies bytes:
///
/// - a records entry keeps what the records print, each thing once: `A TAB ARTISTS` defines the
///   next artists list (`[{"id":…,"name":…}]`), `P TAB TEXT` the next image URL prefix (up to its
///   last `/`), and `K TAB ID TAB NAME TAB DATE TAB PRECISION TAB N` then N times `TAB PREFIX# TAB
///   REST TAB HEIGHT TAB WIDTH` the next album (`{"id":…,"name":…,"release_date":…,
///   "release_date_precision":…,"images":[{"url":…,"height":…,"width":…}]}`) or show (DATE and
///   PRECISION empty: it has neither key); `C TAB OBJECT` holds one that is not of that shape as it
///   is; each before the first item that uses it. An item is `KIND TAB ID TAB URI TAB NAME TAB
///   DURATION TAB ARTISTS# TAB CONTAINER# TAB ADDED_AT TAB EXPLICIT TAB PLAYABLE TAB ADDED_BY TAB
///   ISRC TAB` (a track) or `… TAB RELEASE_DATE TAB PRECISION` (an episode), KIND `t` (track), `e`
///   (episode), `l` (local track), `m` (local episode), URI empty when it is `spotify:TYPE:ID`,
///   CONTAINER# empty for a null album or show, PLAYABLE empty when Spotify did not say, ADDED_BY
///   the adder's id (empty: nobody); an unavailable item is `u TAB ADDED_AT TAB ADDED_BY` (what its
///   version in the history keeps).
///   The playlist's id, name and snapshot_id, the positions and the sources are not stored: the
///   header and the order say them. About 140 bytes an item where albums repeat, and 340
///   where every item has an album of its own, where Spotify's answers took 1.8 KB an item.
/// - a full entry keeps `KIND TAB ENTRY`, Spotify's entry object (kinds `t` `e` `l` `u`).
///
/// A file cut short, grown, edited or garbled fails `validate` and is then treated as absent:
/// fetched again and replaced, never printed. An entry of an earlier version is `Outdated`.
package enum CacheEntryFormat {
    package static let format = "spotify-toolkit playlist items"
    /// 2: records carry the playlist's name and their source; 3: and its snapshot_id; 4: and
    /// explicit, external_ids, album release dates, is_playable (read with a market) and added_by;
    /// 5: compact records, each thing stored once. An older copy is fetched again.
    package static let version = 5

    /// Why an entry was not believed (for the note on stderr).
    struct Damage: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// A sound entry an earlier version wrote: not damaged, just fetched again (no note).
    struct Outdated: Error, Sendable, Equatable {}

    /// A checked entry: its header, and where its body lines are in the data.
    package struct Validated: Sendable {
        package var header: CacheEntryHeader
        /// The body lines (each ending in `\n`), between the header and the trailer.
        package var body: Range<Int>
        package var count: Int
    }

    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")

    /// The header line's bytes (with its `\n`).
    static func headerLine(_ header: CacheEntryHeader) -> [UInt8] {
        let value: JSONValue = [
            "format": .string(format),
            "version": .int(version),
            "playlist_id": .string(header.playlistID),
            "snapshot_id": .string(header.snapshotID),
            "view": .string(header.view.rawValue),
            "fetched_at": .double(header.fetchedAt),
            "total": .int(header.total),
            "account": header.account.map(JSONValue.string) ?? .null,
            "name": header.name.map(JSONValue.string) ?? .null,
        ]
        var bytes: [UInt8] = []
        value.serialize(into: &bytes)
        bytes.append(newline)
        return bytes
    }

    /// The whole entry: header, the body `Builder` made, trailer. Built in one buffer of the
    /// final size: the body is copied once.
    package static func encode(_ header: CacheEntryHeader, body: [UInt8], count: Int) -> Data {
        let head = headerLine(header)
        var data = Data(capacity: head.count + body.count + 64)
        data.append(contentsOf: head)
        data.append(contentsOf: body)
        let checksum = data.withUnsafeBytes { fnv1a64($0) }
        let trailer: JSONValue = ["end": .int(count), "fnv1a64": .string(hex(checksum))]
        var tail: [UInt8] = []
        trailer.serialize(into: &tail)
        tail.append(newline)
        data.append(contentsOf: tail)
        return data
    }

    // MARK: Writing

    /// An entry's body, appended to entry by entry as pages come (sequentially, in one buffer).
    struct Builder: Sendable {
        package let view: CacheView
        package private(set) var body: [UInt8] = []
        /// Playlist entries appended (every one, unavailable ones too).
        package private(set) var count = 0
        /// The artists lists and the albums and shows defined so far, by their bytes.
        var artistLists: [ByteKey: Int] = [:]
        var containers: [ByteKey: Int] = [:]
        var prefixes: [ByteKey: Int] = [:]
        /// The same prefixes by number.
        var prefixList: [[UInt8]] = []
        /// The same, found by the id of their first artist or their own, and compared whole: most
        /// items repeat an album and artists met before, and serializing them to look them up was
        /// most of what filling the cache cost.
        var artistListsByID: [String: (value: [TrackRecord.Artist], index: Int)] = [:]
        var containersByID: [String: (value: Container, index: Int)] = [:]
        var definedArtistLists = 0
        var definedContainers = 0
        var scratch: [UInt8] = []

        package init(view: CacheView) {
            self.view = view
        }

        /// Appends one of Spotify's playlist entries.
        package mutating func append(_ entry: JSONValue) {
            append(entry, item: view == .full ? nil : TrackRecord(spotify: PlaylistEntry.item(of: entry)))
        }

        /// The same, with the record of its item already built (`Page.itemRecord`).
        package mutating func append(_ entry: JSONValue, item: TrackRecord?) {
            let kind = PlaylistEntry.kind(of: entry)
            count += 1
            if view == .full {
                body.append(CacheEntryFormat.tag(kind, episode: false))
                body.append(tab)
                entry.serialize(into: &body)
                body.append(newline)
                return
            }
            let addedBy = entry["added_by"]?["id"]?.stringValue.map(JSONValue.string)
            guard kind != .unavailable, let record = item else {
                body.append(UInt8(ascii: "u"))
                body.append(tab)
                TrackRecord.string(entry["added_at"]).serialize(into: &body)
                body.append(tab)
                addedBy?.serialize(into: &body)
                body.append(newline)
                return
            }
            append(record, kind: kind, addedAt: TrackRecord.string(entry["added_at"]), addedBy: addedBy)
        }

        /// An available entry's line, from its record's fields: each written as the record
        /// prints it.
        mutating func append(_ record: TrackRecord, kind: PlaylistEntry.Kind, addedAt: JSONValue, addedBy: JSONValue?) {
            let episode = record.kind == .episode
            let artists = episode ? nil : defineArtists(record.artists)
            let container = episode ? record.show.map(Container.show) : record.album.map(Container.album)
            let containerIndex = container.map { defineContainer($0) }
            body.append(CacheEntryFormat.tag(kind, episode: episode))
            body.append(tab)
            TrackRecord.text(record.id).serialize(into: &body)
            body.append(tab)
            if let id = record.id, record.uri == "spotify:\(episode ? "episode" : "track"):\(id)" {
                // Said by the id: left empty.
            } else {
                TrackRecord.text(record.uri).serialize(into: &body)
            }
            body.append(tab)
            TrackRecord.text(record.name).serialize(into: &body)
            body.append(tab)
            (record.durationMs.map(JSONValue.int) ?? .null).serialize(into: &body)
            body.append(tab)
            if let artists { JSONValue.int(artists).serialize(into: &body) }
            body.append(tab)
            if let containerIndex { JSONValue.int(containerIndex).serialize(into: &body) }
            body.append(tab)
            addedAt.serialize(into: &body)
            body.append(tab)
            (record.explicit.map(JSONValue.bool) ?? .null).serialize(into: &body)
            body.append(tab)
            record.isPlayable.map(JSONValue.bool)?.serialize(into: &body)
            body.append(tab)
            addedBy?.serialize(into: &body)
            body.append(tab)
            if episode {
                TrackRecord.text(record.releaseDate).serialize(into: &body)
                body.append(tab)
                TrackRecord.text(record.releaseDatePrecision).serialize(into: &body)
            } else {
                TrackRecord.text(record.isrc).serialize(into: &body)
                body.append(tab)
            }
            body.append(newline)
        }

        /// The index of an artists list, defining it first (an `A` line) when new. (Through the
        /// dictionary itself, not a key path: a key path's write copied the whole table each time.)
        mutating func defineArtists(_ artists: [TrackRecord.Artist]) -> Int {
            let id = artists.first?.id
            if let id, let known = artistListsByID[id], Self.identical(known.value, artists) { return known.index }
            scratch.removeAll(keepingCapacity: true)
            TrackRecord.json(artists).serialize(into: &scratch)
            let index = definedArtistLists
            if let id, artistListsByID[id] == nil {
                artistListsByID[id] = (artists, index)
            } else {
                // No id, or another list under the same first artist: found by its bytes.
                if let known = artistLists[ByteKey(scratch)] { return known }
                artistLists[ByteKey(scratch)] = index
            }
            definedArtistLists += 1
            body.append(UInt8(ascii: "A"))
            body.append(tab)
            body.append(contentsOf: scratch)
            body.append(newline)
            return index
        }

        /// A record's album or show.
        enum Container {
            case album(TrackRecord.Album)
            case show(TrackRecord.Show)

            var id: String? {
                switch self {
                case .album(let album): album.id
                case .show(let show): show.id
                }
            }

            var name: String? {
                switch self {
                case .album(let album): album.name
                case .show(let show): show.name
                }
            }

            var images: [TrackRecord.Image] {
                switch self {
                case .album(let album): album.images
                case .show(let show): show.images
                }
            }

            /// The bytes the record prints for it (`TrackRecord.json(_:)` serialized), written
            /// field by field: building the JSON value first cost a cold read more than the rest
            /// of the entry's line. `CacheEntryFormatTests.containerBytesAreTheRecordsBytes` holds the two equal.
            func serializeAsRecord(into out: inout [UInt8]) {
                out.append(contentsOf: ContainerJSON.id)
                TrackRecord.text(id).serialize(into: &out)
                out.append(contentsOf: ContainerJSON.name)
                TrackRecord.text(name).serialize(into: &out)
                if case .album(let album) = self {
                    out.append(contentsOf: ContainerJSON.releaseDate)
                    TrackRecord.text(album.releaseDate).serialize(into: &out)
                    out.append(contentsOf: ContainerJSON.precision)
                    TrackRecord.text(album.releaseDatePrecision).serialize(into: &out)
                }
                out.append(contentsOf: ContainerJSON.images)
                for (index, image) in images.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: ContainerJSON.urlKey)
                    JSONValue.string(image.url).serialize(into: &out)
                    out.append(contentsOf: ContainerJSON.heightKey)
                    (image.height.map(JSONValue.int) ?? .null).serialize(into: &out)
                    out.append(contentsOf: ContainerJSON.width)
                    (image.width.map(JSONValue.int) ?? .null).serialize(into: &out)
                    out.append(UInt8(ascii: "}"))
                }
                out.append(contentsOf: ContainerJSON.end)
            }
        }

        /// The index of an album or show (`TrackRecord`'s `{id, name, images}`), defining it first
        /// when new: a `K` line keeps its image URLs without their shared prefix and without JSON's
        /// keys; one that `container(_:)` would not give back byte for byte is kept whole (`C`).
        mutating func defineContainer(_ value: Container) -> Int {
            let id = value.id
            if let id, let known = containersByID[id], Self.identical(known.value, value) { return known.index }
            scratch.removeAll(keepingCapacity: true)
            value.serializeAsRecord(into: &scratch)
            let index = definedContainers
            if let id, containersByID[id] == nil {
                containersByID[id] = (value, index)
            } else {
                if let known = containers[ByteKey(scratch)] { return known }
                containers[ByteKey(scratch)] = index
            }
            definedContainers += 1
            let whole = scratch
            var line: [UInt8] = [UInt8(ascii: "K"), tab]
            TrackRecord.text(value.id).serialize(into: &line)
            line.append(tab)
            TrackRecord.text(value.name).serialize(into: &line)
            line.append(tab)
            // An album's release date; a show has none (both fields empty).
            if case .album(let album) = value {
                TrackRecord.text(album.releaseDate).serialize(into: &line)
                line.append(tab)
                TrackRecord.text(album.releaseDatePrecision).serialize(into: &line)
            } else {
                line.append(tab)
            }
            line.append(tab)
            let images = value.images
            JSONValue.int(images.count).serialize(into: &line)
            var url: [UInt8] = []
            for image in images {
                url.removeAll(keepingCapacity: true)
                JSONValue.string(image.url).serialize(into: &url)
                let inner = url.count >= 2 ? Array(url[1..<(url.count - 1)]) : []
                let cut = inner.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
                let prefix = Array(inner[0..<cut])
                let number: Int
                if let known = prefixes[ByteKey(prefix)] {
                    number = known
                } else {
                    number = prefixes.count
                    prefixes[ByteKey(prefix)] = number
                    prefixList.append(prefix)
                    body.append(UInt8(ascii: "P"))
                    body.append(tab)
                    body.append(contentsOf: prefix)
                    body.append(newline)
                }
                line.append(tab)
                JSONValue.int(number).serialize(into: &line)
                line.append(tab)
                line.append(contentsOf: inner[cut...])
                line.append(tab)
                (image.height.map(JSONValue.int) ?? .null).serialize(into: &line)
                line.append(tab)
                (image.width.map(JSONValue.int) ?? .null).serialize(into: &line)
            }
            line.append(newline)
            // Kept compact only when it reads back as it was; the prefixes are this entry's so far.
            var parsed = Line(tag: 0, fields: [], next: 0)
            let same = line.withUnsafeBytes { raw -> Bool in
                guard CacheEntryFormat.split(raw, from: 0, to: raw.count, into: &parsed),
                    let rebuilt = CacheEntryFormat.container(parsed, raw: raw, prefixes: prefixList)
                else { return false }
                return rebuilt == whole
            }
            if same {
                body.append(contentsOf: line)
            } else {
                body.append(UInt8(ascii: "C"))
                body.append(tab)
                body.append(contentsOf: whole)
                body.append(newline)
            }
            return index
        }

        /// Bytes as a dictionary key, hashed at once rather than byte by byte.
        struct ByteKey: Hashable {
            var bytes: [UInt8]
            init(_ bytes: [UInt8]) { self.bytes = bytes }
            func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
        }

        /// Whether two values serialize to the same bytes: `==` is not enough, as it takes
        /// canonically equivalent strings for the same.
        static func identical(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case (let x?, let y?): return x.utf8.elementsEqual(y.utf8)
            default: return false
            }
        }

        static func identical(_ a: [TrackRecord.Artist], _ b: [TrackRecord.Artist]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { identical($0.id, $1.id) && identical($0.name, $1.name) }
        }

        static func identical(_ a: [TrackRecord.Image], _ b: [TrackRecord.Image]) -> Bool {
            a.count == b.count
                && zip(a, b).allSatisfy { identical($0.url, $1.url) && $0.height == $1.height && $0.width == $1.width }
        }

        static func identical(_ a: Container, _ b: Container) -> Bool {
            switch (a, b) {
            case (.album(let x), .album(let y)):
                return identical(x.id, y.id) && identical(x.name, y.name) && identical(x.releaseDate, y.releaseDate)
                    && identical(x.releaseDatePrecision, y.releaseDatePrecision) && identical(x.images, y.images)
            case (.show(let x), .show(let y)):
                return identical(x.id, y.id) && identical(x.name, y.name) && identical(x.images, y.images)
            default: return false
            }
        }
    }

    /// How many images a `K` line lists; nil when it is not well formed (fields missing or
    /// extra, a prefix not defined among the `prefixCount` so far).
    static func containerImages(_ line: Line, raw: UnsafeRawBufferPointer, prefixCount: Int) -> Int? {
        let fields = line.fields
        guard line.tag == UInt8(ascii: "K"), fields.count >= 5, !fields[0].isEmpty, !fields[1].isEmpty,
            fields[2].isEmpty == fields[3].isEmpty, let count = number(raw, fields[4]), fields.count == 5 + 4 * count
        else { return nil }
        for image in 0..<count {
            let base = 5 + 4 * image
            guard let prefix = number(raw, fields[base]), prefix < prefixCount, !fields[base + 2].isEmpty,
                !fields[base + 3].isEmpty
            else { return nil }
        }
        return count
    }

    /// JSON's keys around a container's fields, made once (an array literal per call was a tenth
    /// of a warm read).
    enum ContainerJSON {
        static let id = Array("{\"id\":".utf8)
        static let name = Array(",\"name\":".utf8)
        static let releaseDate = Array(",\"release_date\":".utf8)
        static let precision = Array(",\"release_date_precision\":".utf8)
        static let images = Array(",\"images\":[".utf8)
        static let url = Array("{\"url\":\"".utf8)
        static let height = Array("\",\"height\":".utf8)
        /// The same keys around a url written whole (quotes and all).
        static let urlKey = Array("{\"url\":".utf8)
        static let heightKey = Array(",\"height\":".utf8)
        static let width = Array(",\"width\":".utf8)
        static let end = Array("]}".utf8)
    }

    /// The album or show a `K` line keeps, as `{"id":…,"name":…,"images":[…]}`; nil when it is
    /// not well formed (fields missing or extra, a prefix not defined).
    static func container(_ line: Line, raw: UnsafeRawBufferPointer, prefixes: [[UInt8]]) -> [UInt8]? {
        var out: [UInt8] = []
        return appendContainer(line, raw: raw, prefixes: prefixes, to: &out) ? out : nil
    }

    /// The same appended to `out` (false, nothing appended, when the line is not well formed).
    static func appendContainer(
        _ line: Line, raw: UnsafeRawBufferPointer, prefixes: [[UInt8]], to out: inout [UInt8]
    ) -> Bool {
        guard let count = containerImages(line, raw: raw, prefixCount: prefixes.count) else { return false }
        let fields = line.fields
        func field(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: raw[fields[index]]) }
        out.append(contentsOf: ContainerJSON.id)
        out.append(contentsOf: field(0))
        out.append(contentsOf: ContainerJSON.name)
        out.append(contentsOf: field(1))
        if !fields[2].isEmpty {
            out.append(contentsOf: ContainerJSON.releaseDate)
            out.append(contentsOf: field(2))
            out.append(contentsOf: ContainerJSON.precision)
            out.append(contentsOf: field(3))
        }
        out.append(contentsOf: ContainerJSON.images)
        for image in 0..<count {
            let base = 5 + 4 * image
            if image > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: ContainerJSON.url)
            out.append(contentsOf: prefixes[number(raw, fields[base])!])  // checked by containerImages
            out.append(contentsOf: field(base + 1))
            out.append(contentsOf: ContainerJSON.height)
            out.append(contentsOf: field(base + 2))
            out.append(contentsOf: ContainerJSON.width)
            out.append(contentsOf: field(base + 3))
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: ContainerJSON.end)
        return true
    }

    /// The tables an entry's lines define as they are read: artists lists, albums and shows (as
    /// the bytes records print), image URL prefixes. Validating only counts the albums and shows
    /// (their lines checked): building them is for printing.
    struct Tables {
        var artistLists: [Range<Int>] = []
        /// Albums and shows as records print them, one after another (an array each cost an
        /// allocation and its regrowth per album: a tenth of a warm read of distinct albums).
        var containerBytes: [UInt8] = []
        var containers: [Range<Int>] = []
        var containerCount = 0
        var prefixes: [[UInt8]] = []
        let building: Bool

        init(building: Bool = true) {
            self.building = building
        }

        /// Takes in a table line; false when it is not one (or, a `K` line, not well formed).
        mutating func define(_ line: Line, raw: UnsafeRawBufferPointer) -> Bool {
            switch line.tag {
            case UInt8(ascii: "A"): artistLists.append(line.fields[0])
            case UInt8(ascii: "C"):
                if building {
                    let start = containerBytes.count
                    containerBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[line.fields[0]]))
                    containers.append(start..<containerBytes.count)
                }
                containerCount += 1
            case UInt8(ascii: "P"): prefixes.append(Array(UnsafeRawBufferPointer(rebasing: raw[line.fields[0]])))
            case UInt8(ascii: "K"):
                if building {
                    let start = containerBytes.count
                    guard appendContainer(line, raw: raw, prefixes: prefixes, to: &containerBytes) else { return false }
                    containers.append(start..<containerBytes.count)
                } else {
                    guard containerImages(line, raw: raw, prefixCount: prefixes.count) != nil else { return false }
                }
                containerCount += 1
            default: return false
            }
            return true
        }
    }

    static func tag(_ kind: PlaylistEntry.Kind, episode: Bool) -> UInt8 {
        switch kind {
        case .track: UInt8(ascii: "t")
        case .episode: UInt8(ascii: "e")
        case .local: episode ? UInt8(ascii: "m") : UInt8(ascii: "l")
        case .unavailable: UInt8(ascii: "u")
        }
    }

    static func kind(_ tag: UInt8) -> PlaylistEntry.Kind? {
        switch tag {
        case UInt8(ascii: "t"): .track
        case UInt8(ascii: "e"): .episode
        case UInt8(ascii: "l"), UInt8(ascii: "m"): .local
        case UInt8(ascii: "u"): .unavailable
        default: nil
        }
    }

    // MARK: Reading

    /// One body line, split: its tag and its fields (ranges in the data).
    struct Line {
        var tag: UInt8
        var fields: [Range<Int>]
        var next: Int
    }

    /// Splits the line at `start` into tag and tab-separated fields (`fields` reused).
    static func split(_ raw: UnsafeRawBufferPointer, from start: Int, to end: Int, into line: inout Line) -> Bool {
        guard end - start >= 2, let base = raw.baseAddress,
            let newlineAt = memchr(base + start, Int32(newline), end - start).map({ UnsafeRawPointer($0) - base }),
            newlineAt > start
        else { return false }
        line.tag = raw[start]
        line.fields.removeAll(keepingCapacity: true)
        line.next = newlineAt + 1
        if newlineAt == start + 1 { return true }
        guard raw[start + 1] == tab else { return false }
        var from = start + 2
        while true {
            guard let at = memchr(base + from, Int32(tab), newlineAt - from).map({ UnsafeRawPointer($0) - base })
            else {
                line.fields.append(from..<newlineAt)
                return true
            }
            line.fields.append(from..<at)
            from = at + 1
        }
    }

    /// Checks an entry read from disk for `playlistID`: complete (trailer present), unchanged
    /// (checksum), the expected playlist, a known format and version, every line well formed, as
    /// many items as it says.
    static func validate(_ data: Data, playlistID: String) throws -> Validated {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Validated in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let last = bytes.last, last == newline else {
                throw Damage(description: "it is cut short (no final newline)")
            }
            // The trailer is the last line.
            var trailerStart = bytes.count - 1
            while trailerStart > 0 && bytes[trailerStart - 1] != newline { trailerStart -= 1 }
            guard trailerStart > 0,
                let trailer = try? JSONValue.parse(
                    buffer: UnsafeRawBufferPointer(rebasing: raw[trailerStart..<(bytes.count - 1)])),
                let count = trailer["end"]?.intValue, count >= 0,
                let expected = trailer["fnv1a64"]?.stringValue
            else { throw Damage(description: "it is cut short (no trailer)") }
            guard hex(fnv1a64(UnsafeRawBufferPointer(rebasing: raw[0..<trailerStart]))) == expected else {
                throw Damage(description: "its checksum does not match")
            }
            guard let headerEnd = bytes.firstIndex(of: newline), headerEnd < trailerStart,
                let header = try? JSONValue.parse(buffer: UnsafeRawBufferPointer(rebasing: raw[0..<headerEnd]))
            else { throw Damage(description: "its header is unreadable") }
            if header["format"]?.stringValue == format, let older = header["version"]?.intValue, older < version {
                throw Outdated()
            }
            guard header["format"]?.stringValue == format, header["version"]?.intValue == version else {
                throw Damage(description: "it is not a version \(version) cache entry")
            }
            guard header["playlist_id"]?.stringValue == playlistID,
                let snapshot = header["snapshot_id"]?.stringValue, !snapshot.isEmpty,
                let view = header["view"]?.stringValue.flatMap(CacheView.init(rawValue:)),
                let fetchedAt = header["fetched_at"]?.doubleValue, fetchedAt.isFinite,
                let total = header["total"]?.intValue, total == count
            else { throw Damage(description: "its header does not describe this playlist") }
            let body = (headerEnd + 1)..<trailerStart
            var items = 0
            var tables = Tables(building: false)
            var start = body.lowerBound
            var line = Line(tag: 0, fields: [], next: 0)
            while start < body.upperBound {
                guard split(raw, from: start, to: body.upperBound, into: &line),
                    wellFormed(line, view: view, tables: &tables, raw: raw)
                else { throw Damage(description: "its line after item \(items) is malformed") }
                if kind(line.tag) != nil { items += 1 }
                start = line.next
            }
            guard items == count else { throw Damage(description: "it holds \(items) entries, not \(count)") }
            return Validated(
                header: CacheEntryHeader(
                    playlistID: playlistID, snapshotID: snapshot, view: view, fetchedAt: fetchedAt, total: total,
                    account: header["account"]?.stringValue, name: header["name"]?.stringValue),
                body: body, count: count)
        }
    }

    /// Whether a body line has the shape its tag needs, with table references defined before it.
    static func wellFormed(_ line: Line, view: CacheView, tables: inout Tables, raw: UnsafeRawBufferPointer) -> Bool {
        let fields = line.fields
        if view == .full {
            return kind(line.tag) != nil && fields.count == 1 && !fields[0].isEmpty
        }
        switch line.tag {
        case UInt8(ascii: "u"):
            return fields.count == 2 && !fields[0].isEmpty
        case UInt8(ascii: "A"), UInt8(ascii: "C"):
            guard fields.count == 1, !fields[0].isEmpty else { return false }
            return tables.define(line, raw: raw)
        case UInt8(ascii: "P"):
            return fields.count == 1 && tables.define(line, raw: raw)
        case UInt8(ascii: "K"):
            return tables.define(line, raw: raw)
        case UInt8(ascii: "t"), UInt8(ascii: "e"), UInt8(ascii: "l"), UInt8(ascii: "m"):
            guard fields.count == 12, !fields[0].isEmpty, !fields[2].isEmpty, !fields[3].isEmpty,
                !fields[6].isEmpty, !fields[7].isEmpty, !fields[10].isEmpty
            else { return false }
            // The URI is said by the id only when the id is a string.
            if fields[1].isEmpty && raw[fields[0].lowerBound] != UInt8(ascii: "\"") { return false }
            let episode = line.tag == UInt8(ascii: "e") || line.tag == UInt8(ascii: "m")
            // An episode's release date and precision; a track's ISRC and nothing.
            guard fields[11].isEmpty != episode else { return false }
            if episode {
                guard fields[4].isEmpty else { return false }
            } else {
                guard let index = number(raw, fields[4]), index < tables.artistLists.count else { return false }
            }
            if !fields[5].isEmpty {
                guard let index = number(raw, fields[5]), index < tables.containerCount else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// A table index: decimal digits, nothing else.
    static func number(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 9 else { return nil }
        var value = 0
        for index in range {
            let digit = raw[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// What the records of one playlist say of it: they are not stored per item.
    struct RecordContext {
        /// `"playlist":{…},"source":{…}}`, the end of every record.
        var tail: [UInt8]
        var playlist: SpotifyReference
        var name: String?
        var snapshot: String?

        package init(playlistID: String, name: String?, snapshot: String?) {
            playlist = SpotifyReference(kind: .playlist, id: playlistID)
            self.name = name
            self.snapshot = snapshot
            tail = Array(",\"playlist\":".utf8)
            JSONValue.object([
                "id": .string(playlist.id), "uri": .string(playlist.uri), "name": name.map(JSONValue.string) ?? .null,
                "snapshot_id": snapshot.map(JSONValue.string) ?? .null,
            ]).serialize(into: &tail)
            tail += Array(",\"source\":".utf8)
            RecordSource(playlist, name: name).json.serialize(into: &tail)
            tail.append(UInt8(ascii: "}"))
        }
    }

    /// Calls `body` with each playlist entry's kind, the record spotify-tracks prints for it
    /// (`PlaylistEntry.record` with `context`'s playlist and source; empty for an unavailable
    /// item) and, in a full entry, Spotify's entry object (empty in a records entry), in order.
    /// Only for a validated entry.
    static func forEachRecord(
        _ data: Data, _ validated: Validated, context: RecordContext,
        _ body: (PlaylistEntry.Kind, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try data.withUnsafeBytes { raw in
            var record: [UInt8] = []
            record.reserveCapacity(1024)
            var position = 0
            let empty = UnsafeRawBufferPointer(start: nil, count: 0)
            try forEachEntryLine(raw, validated) { kind, line, tables in
                defer { position += 1 }
                record.removeAll(keepingCapacity: true)
                if validated.header.view == .full {
                    let entryBytes = UnsafeRawBufferPointer(rebasing: raw[line.fields[0]])
                    guard let entry = try? JSONValue.parse(buffer: entryBytes) else {
                        throw Damage(description: "entry \(position + 1) is not JSON")
                    }
                    if let object = PlaylistEntry.record(
                        entry, position: position, playlist: context.playlist, name: context.name,
                        snapshot: context.snapshot, source: RecordSource(context.playlist, name: context.name))
                    {
                        object.json.serialize(into: &record)
                    }
                    try record.withUnsafeBytes { try body(kind, $0, entryBytes) }
                    return
                }
                if kind == .unavailable {
                    try body(kind, empty, empty)
                    return
                }
                appendRecord(line, raw: raw, position: position, tables: tables, context: context, to: &record)
                try record.withUnsafeBytes { try body(kind, $0, empty) }
            }
        }
    }

    /// The record of a compact item line, byte for byte as `PlaylistEntry.record` serializes.
    static func appendRecord(
        _ line: Line, raw: UnsafeRawBufferPointer, position: Int, tables: Tables, context: RecordContext,
        to record: inout [UInt8]
    ) {
        let fields = line.fields
        let episode = line.tag == UInt8(ascii: "e") || line.tag == UInt8(ascii: "m")
        let local = line.tag == UInt8(ascii: "l") || line.tag == UInt8(ascii: "m")
        func copy(_ range: Range<Int>) { record.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range])) }
        func text(_ literal: StaticString) {
            record.append(
                contentsOf: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
        text(episode ? "{\"type\":\"episode\",\"id\":" : "{\"type\":\"track\",\"id\":")
        appendIdentity(fields, raw: raw, episode: episode, to: &record)
        let container = number(raw, fields[5]).map { tables.containerBytes[tables.containers[$0]] }
        if episode {
            text(",\"artists\":[],\"album\":null,\"show\":")
        } else {
            text(",\"artists\":")
            copy(number(raw, fields[4]).map { tables.artistLists[$0] } ?? fields[4])
            text(",\"album\":")
        }
        if let container { record.append(contentsOf: container) } else { text("null") }
        if episode {
            text(",\"release_date\":")
            copy(fields[10])
            text(",\"release_date_precision\":")
            copy(fields[11])
            text(",\"explicit\":")
            copy(fields[7])
        } else {
            text(",\"explicit\":")
            copy(fields[7])
            text(",\"external_ids\":{\"isrc\":")
            copy(fields[10])
            record.append(UInt8(ascii: "}"))
        }
        if !fields[8].isEmpty {
            text(",\"is_playable\":")
            copy(fields[8])
        }
        text(local ? ",\"is_local\":true,\"added_at\":" : ",\"is_local\":false,\"added_at\":")
        copy(fields[6])
        text(",\"added_by\":")
        appendAddedBy(fields[9], raw: raw, to: &record)
        text(",\"position\":")
        JSONValue.int(position).serialize(into: &record)
        record.append(contentsOf: context.tail)
    }

    /// Calls `body` with each entry line of a validated entry, its kind and the tables the lines
    /// before it defined, in order.
    static func forEachEntryLine(
        _ raw: UnsafeRawBufferPointer, _ validated: Validated, _ body: (PlaylistEntry.Kind, Line, Tables) throws -> Void
    ) throws {
        var tables = Tables()
        var start = validated.body.lowerBound
        var line = Line(tag: 0, fields: [], next: 0)
        while start < validated.body.upperBound {
            guard split(raw, from: start, to: validated.body.upperBound, into: &line) else {
                throw Damage(description: "entry line at byte \(start) is malformed")
            }
            start = line.next
            guard let kind = kind(line.tag) else {
                _ = tables.define(line, raw: raw)
                continue
            }
            try body(kind, line, tables)
        }
    }

    /// Spotify's entries, or for a records entry entries rebuilt from what it keeps (the fields
    /// records read, so `PlaylistEntry.record` of one is the stored record), in order, handed to
    /// `body` a page of `pageSize` at a time.
    static func forEachPage(
        _ data: Data, _ validated: Validated, pageSize: Int, _ body: ([JSONValue], Int) throws -> Void
    ) throws {
        var items: [JSONValue] = []
        items.reserveCapacity(pageSize)
        var offset = 0
        var entry: [UInt8] = []
        try data.withUnsafeBytes { raw in
            try forEachEntryLine(raw, validated) { _, line, tables in
                let value: JSONValue?
                if validated.header.view == .full {
                    value = try? JSONValue.parse(buffer: UnsafeRawBufferPointer(rebasing: raw[line.fields[0]]))
                } else {
                    entry.removeAll(keepingCapacity: true)
                    appendEntry(line, raw: raw, tables: tables, to: &entry)
                    value = try? JSONValue.parse(entry)
                }
                guard let value else {
                    throw Damage(description: "entry \(offset + items.count + 1) is not JSON")
                }
                items.append(value)
                if items.count == pageSize {
                    try body(items, offset)
                    offset += items.count
                    items.removeAll(keepingCapacity: true)
                }
            }
        }
        if !items.isEmpty || offset == 0 { try body(items, offset) }
    }

    /// What a record and an entry write alike of a compact item line, after `"id":`: the id, the
    /// uri (the id's, when the line keeps none), the name and duration_ms.
    static func appendIdentity(
        _ fields: [Range<Int>], raw: UnsafeRawBufferPointer, episode: Bool, to bytes: inout [UInt8]
    ) {
        func copy(_ range: Range<Int>) { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range])) }
        func text(_ literal: StaticString) {
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
        copy(fields[0])
        text(",\"uri\":")
        if fields[1].isEmpty {
            text(episode ? "\"spotify:episode:" : "\"spotify:track:")
            copy((fields[0].lowerBound + 1)..<fields[0].upperBound)  // the id's text and closing quote
        } else {
            copy(fields[1])
        }
        text(",\"name\":")
        copy(fields[2])
        text(",\"duration_ms\":")
        copy(fields[3])
    }

    /// A playlist entry with what a compact item line keeps, in Spotify's shape.
    static func appendEntry(_ line: Line, raw: UnsafeRawBufferPointer, tables: Tables, to entry: inout [UInt8]) {
        let fields = line.fields
        func copy(_ range: Range<Int>) { entry.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range])) }
        func text(_ literal: String) { entry.append(contentsOf: Array(literal.utf8)) }
        if line.tag == UInt8(ascii: "u") {
            text("{\"added_at\":")
            copy(fields[0])
            text(",\"added_by\":")
            appendAddedBy(fields[1], raw: raw, to: &entry)
            text(",\"is_local\":false,\"item\":null}")
            return
        }
        let episode = line.tag == UInt8(ascii: "e") || line.tag == UInt8(ascii: "m")
        let local = line.tag == UInt8(ascii: "l") || line.tag == UInt8(ascii: "m")
        text("{\"added_at\":")
        copy(fields[6])
        text(",\"added_by\":")
        appendAddedBy(fields[9], raw: raw, to: &entry)
        text(local ? ",\"is_local\":true,\"item\":{\"type\":" : ",\"is_local\":false,\"item\":{\"type\":")
        text(episode ? "\"episode\",\"id\":" : "\"track\",\"id\":")
        appendIdentity(fields, raw: raw, episode: episode, to: &entry)
        text(local ? ",\"is_local\":true" : ",\"is_local\":false")
        text(",\"explicit\":")
        copy(fields[7])
        if !fields[8].isEmpty {
            text(",\"is_playable\":")
            copy(fields[8])
        }
        let container = number(raw, fields[5]).map { tables.containerBytes[tables.containers[$0]] }
        if episode {
            text(",\"release_date\":")
            copy(fields[10])
            text(",\"release_date_precision\":")
            copy(fields[11])
            text(",\"show\":")
        } else {
            text(",\"external_ids\":{\"isrc\":")
            copy(fields[10])
            text("}")
            text(",\"artists\":")
            copy(number(raw, fields[4]).map { tables.artistLists[$0] } ?? fields[4])
            text(",\"album\":")
        }
        if let container { entry.append(contentsOf: container) } else { text("null") }
        text("}}")
    }

    /// `{"id":ID}` for a stored adder's id, `null` for an empty field (nobody).
    static func appendAddedBy(_ range: Range<Int>, raw: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        if range.isEmpty {
            out.append(contentsOf: Array("null".utf8))
        } else {
            out.append(contentsOf: Array("{\"id\":".utf8))
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range]))
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The entries of a validated entry, in order (see `forEachPage`).
    package static func entries(_ data: Data, _ validated: Validated) throws -> [JSONValue] {
        var entries: [JSONValue] = []
        try forEachPage(data, validated, pageSize: 1000) { page, _ in entries += page }
        return entries
    }

    /// FNV-1a, 64 bits: cheap enough for tens of megabytes, and enough to notice a damaged file
    /// (the directory is private, so nobody forges one).
    static func fnv1a64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return hash }
        for index in 0..<bytes.count {
            hash ^= UInt64(base[index])
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
