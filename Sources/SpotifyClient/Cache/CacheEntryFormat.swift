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

/// Which answers a cache entry holds. `records`: the entries as fetched with the `fields` filter
/// that track records need (`PlaylistEntry.itemFields`); `full`: Spotify's entry objects untouched
/// (what `--raw` prints). A full entry serves every run; a records entry serves every run but `--raw`.
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
    /// The playlist's name when it was fetched, so a copy heads its table as a fetch does.
    package var name: String?
}

/// The bytes of a cache entry, and the checks before one is believed. Pure: no I/O.
///
/// An entry is a header line (JSON), one line per playlist entry in playlist order, and a trailer
/// line `{"end":COUNT,"fnv1a64":"HEX"}` whose checksum covers every byte before it. An entry line
/// is `KIND \t RECORD \t ENTRY`: KIND one of `t` `e` `l` `u` (track, episode, local file,
/// unavailable), RECORD the track record exactly as spotify-tracks prints it (empty for an
/// unavailable item), ENTRY Spotify's entry object, compact. Compact JSON never holds a raw tab,
/// so the fields split cleanly, and a re-run prints RECORD (or ENTRY, for --raw) without parsing
/// anything: that is what makes a cached 10,000-item playlist quick. A file cut short, grown,
/// edited or garbled fails `validate` and is then treated as absent: fetched again and replaced,
/// never printed.
package enum CacheEntryFormat {
    package static let format = "spotify-toolkit playlist items"
    /// 2: records carry the playlist's name and their source; 3: and its snapshot_id; 4: and
    /// explicit, external_ids, album release dates, is_playable (read with a market) and added_by.
    /// An older copy is fetched again.
    package static let version = 4

    /// Why an entry was not believed (for the note on stderr).
    struct Damage: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// A sound entry an earlier version wrote: not damaged, just fetched again (no note).
    struct Outdated: Error, Sendable, Equatable {}

    /// A checked entry: its header, and where its entry lines are in the data.
    package struct Validated: Sendable {
        package var header: CacheEntryHeader
        /// The entry lines (each ending in `\n`), between the header and the trailer.
        package var body: Range<Int>
        package var count: Int
    }

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
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The whole entry: header, the `body` entry lines as built by `appendEntry`, trailer.
    /// Built in one buffer of the final size: the body is copied once (a large playlist's entry
    /// used to be held three times over while it was written).
    package static func encode(_ header: CacheEntryHeader, body: [UInt8], count: Int) -> Data {
        let head = headerLine(header)
        var data = Data(capacity: head.count + body.count + 64)
        data.append(contentsOf: head)
        data.append(contentsOf: body)
        let checksum = data.withUnsafeBytes { fnv1a64($0) }
        let trailer: JSONValue = ["end": .int(count), "fnv1a64": .string(hex(checksum))]
        var tail: [UInt8] = []
        trailer.serialize(into: &tail)
        tail.append(UInt8(ascii: "\n"))
        data.append(contentsOf: tail)
        return data
    }

    /// Appends one playlist entry as a body line: its kind, its record (nil for an unavailable
    /// item) and the entry itself.
    static func appendEntry(
        _ entry: JSONValue, kind: PlaylistEntry.Kind, record: JSONObject?, to body: inout [UInt8]
    ) {
        body.append(tag(kind))
        body.append(tab)
        if let record { JSONValue.object(record).serialize(into: &body) }
        body.append(tab)
        entry.serialize(into: &body)
        body.append(UInt8(ascii: "\n"))
    }

    static let tab = UInt8(ascii: "\t")

    static func tag(_ kind: PlaylistEntry.Kind) -> UInt8 {
        switch kind {
        case .track: UInt8(ascii: "t")
        case .episode: UInt8(ascii: "e")
        case .local: UInt8(ascii: "l")
        case .unavailable: UInt8(ascii: "u")
        }
    }

    static func kind(_ tag: UInt8) -> PlaylistEntry.Kind? {
        switch tag {
        case UInt8(ascii: "t"): .track
        case UInt8(ascii: "e"): .episode
        case UInt8(ascii: "l"): .local
        case UInt8(ascii: "u"): .unavailable
        default: nil
        }
    }

    /// Calls `body` with each entry line's kind, record bytes and entry bytes, in order. Only for
    /// a validated entry (whose lines `validate` checked).
    package static func forEachLine(
        _ data: Data, _ validated: Validated,
        _ body: (PlaylistEntry.Kind, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try data.withUnsafeBytes { raw in
            var start = validated.body.lowerBound
            while start < validated.body.upperBound {
                guard let line = split(raw, from: start, to: validated.body.upperBound) else {
                    throw Damage(description: "entry line at byte \(start) is malformed")
                }
                try body(
                    line.kind, UnsafeRawBufferPointer(rebasing: raw[line.record]),
                    UnsafeRawBufferPointer(rebasing: raw[line.entry]))
                start = line.next
            }
        }
    }

    /// One entry line starting at `start`: its parts, and where the next line starts.
    static func split(_ raw: UnsafeRawBufferPointer, from start: Int, to end: Int) -> (
        kind: PlaylistEntry.Kind, record: Range<Int>, entry: Range<Int>, next: Int
    )? {
        guard end - start >= 3, let kind = kind(raw[start]), raw[start + 1] == tab else { return nil }
        guard let base = raw.baseAddress,
            let newlineAt = memchr(base + start, Int32(UInt8(ascii: "\n")), end - start).map({
                UnsafeRawPointer($0) - base
            }),
            let secondTab = memchr(base + start + 2, Int32(tab), newlineAt - start - 2).map({
                UnsafeRawPointer($0) - base
            }),
            memchr(base + secondTab + 1, Int32(tab), newlineAt - secondTab - 1) == nil,
            newlineAt > secondTab + 1
        else { return nil }
        let record = (start + 2)..<secondTab
        guard record.isEmpty == (kind == .unavailable) else { return nil }
        return (kind, record, (secondTab + 1)..<newlineAt, newlineAt + 1)
    }

    /// Checks an entry read from disk for `playlistID`: complete (trailer present), unchanged
    /// (checksum), the expected playlist, a known format and version, as many lines as it says.
    static func validate(_ data: Data, playlistID: String) throws -> Validated {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Validated in
            let bytes = raw.bindMemory(to: UInt8.self)
            let newline = UInt8(ascii: "\n")
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
            var lines = 0
            var start = body.lowerBound
            while start < body.upperBound {
                guard let line = split(raw, from: start, to: body.upperBound) else {
                    throw Damage(description: "its entry \(lines + 1) is malformed")
                }
                lines += 1
                start = line.next
            }
            guard lines == count else { throw Damage(description: "it holds \(lines) entries, not \(count)") }
            return Validated(
                header: CacheEntryHeader(
                    playlistID: playlistID, snapshotID: snapshot, view: view, fetchedAt: fetchedAt, total: total,
                    account: header["account"]?.stringValue, name: header["name"]?.stringValue),
                body: body, count: count)
        }
    }

    /// The entries of a validated entry, in order. Throws `Damage` when a line is not a JSON object
    /// (possible only if something else wrote the file with a matching checksum).
    package static func entries(_ data: Data, _ validated: Validated) throws -> [JSONValue] {
        var entries: [JSONValue] = []
        entries.reserveCapacity(validated.count)
        try forEachLine(data, validated) { _, _, bytes in
            guard let entry = try? JSONValue.parse(buffer: bytes) else {
                throw Damage(description: "entry \(entries.count + 1) is not JSON")
            }
            entries.append(entry)
        }
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
