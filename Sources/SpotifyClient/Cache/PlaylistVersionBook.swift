import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One version of a playlist as it was met: its snapshot_id, when and how it was met, and its
/// entries in order (each its item's URI, or nil for an unavailable item, with added_at and the
/// id of the user who added it).
package struct PlaylistVersion: Sendable, Equatable {
    package struct Item: Sendable, Hashable {
        package var uri: String?
        package var addedAt: String?
        package var addedBy: String?

        package init(uri: String?, addedAt: String?, addedBy: String?) {
            (self.uri, self.addedAt, self.addedBy) = (uri, addedAt, addedBy)
        }

        /// The entry as Spotify sends it (`item` or the legacy `track`, `added_at`, `added_by.id`).
        package init(entry: JSONValue) {
            let uri: String?
            switch PlaylistEntry.kind(of: entry) {
            case .unavailable: uri = nil
            default: uri = PlaylistEntry.item(of: entry)?["uri"]?.stringValue
            }
            self.init(
                uri: uri, addedAt: entry["added_at"]?.stringValue, addedBy: entry["added_by"]?["id"]?.stringValue)
        }
    }

    package var snapshotID: String
    /// When it was first met (Unix seconds).
    package var seenAt: Double
    /// How: `read`, or the name of the write of ours that left it (`replace`, `sort`, `restore`...).
    package var metBy: String
    package var items: [Item]

    package init(snapshotID: String, seenAt: Double, metBy: String, items: [Item]) {
        (self.snapshotID, self.seenAt, self.metBy, self.items) = (snapshotID, seenAt, metBy, items)
    }
}

/// Every version kept of one playlist, and the bytes of its file. Pure: no I/O.
///
/// The file shares storage between versions: each distinct entry (URI, added_at, added_by) is one
/// line of a pool, written once however many versions hold it, and a version is a line of runs of
/// pool indices (`[[first, length], ...]`): a 10,000-item playlist that lost 30 items costs its
/// new version a few dozen runs, not 10,000 lines. Layout:
///
///     {"format":"spotify-toolkit playlist versions","version":1,"playlist_id":ID,"pool":M,"versions":N,...}
///     ["spotify:track:…","2024-05-01T10:00:00Z","user"]          M pool lines
///     {"snapshot_id":…,"seen_at":…,"met_by":"read","items_total":…,"runs":[[0,300]]}   N lines, oldest first
///     {"end":LINES,"fnv1a64":"HEX"}
///
/// The trailer's checksum covers every byte before it: a file cut short, edited or garbled fails
/// `decode`, and is never believed.
package struct PlaylistVersionBook: Sendable, Equatable {
    package static let format = "spotify-toolkit playlist versions"
    static let formatVersion = 1

    /// What a version line says of its version, without its items.
    package struct Summary: Sendable, Equatable {
        package var snapshotID: String
        package var seenAt: Double
        package var metBy: String
        package var itemsTotal: Int
    }

    package var playlistID: String
    /// The distinct entries, each once.
    private(set) var pool: [PlaylistVersion.Item] = []
    private var index: [PlaylistVersion.Item: Int] = [:]
    /// Oldest first.
    private(set) var versions: [(summary: Summary, runs: [[Int]])] = []

    package init(playlistID: String) {
        self.playlistID = playlistID
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.playlistID == rhs.playlistID && lhs.pool == rhs.pool
            && lhs.versions.map(\.summary) == rhs.versions.map(\.summary)
            && lhs.versions.map(\.runs) == rhs.versions.map(\.runs)
    }

    /// The versions' summaries, oldest first.
    package var summaries: [Summary] { versions.map(\.summary) }
    package var count: Int { versions.count }
    var poolCount: Int { pool.count }

    package func contains(snapshot: String) -> Bool { versions.contains { $0.summary.snapshotID == snapshot } }

    /// The version with that snapshot_id, whole.
    package func version(_ snapshot: String) -> PlaylistVersion? {
        guard let found = versions.last(where: { $0.summary.snapshotID == snapshot }) else { return nil }
        var items: [PlaylistVersion.Item] = []
        items.reserveCapacity(found.summary.itemsTotal)
        for run in found.runs { items += pool[run[0]..<run[0] + run[1]] }
        return PlaylistVersion(
            snapshotID: found.summary.snapshotID, seenAt: found.summary.seenAt, metBy: found.summary.metBy,
            items: items)
    }

    /// Adds `version` as the newest (nothing when its snapshot_id is kept already); false then.
    @discardableResult
    package mutating func add(_ version: PlaylistVersion) -> Bool {
        guard !contains(snapshot: version.snapshotID) else { return false }
        var runs: [[Int]] = []
        for item in version.items {
            let at: Int
            if let known = index[item] {
                at = known
            } else {
                at = pool.count
                pool.append(item)
                index[item] = at
            }
            if let last = runs.last, last[0] + last[1] == at {
                runs[runs.count - 1][1] += 1
            } else {
                runs.append([at, 1])
            }
        }
        versions.append(
            (
                Summary(
                    snapshotID: version.snapshotID, seenAt: version.seenAt, metBy: version.metBy,
                    itemsTotal: version.items.count), runs
            ))
        return true
    }

    /// Drops the oldest `count` versions, and the pool entries no version left holds.
    mutating func dropOldest(_ count: Int) {
        guard count > 0 else { return }
        let kept = Array(versions.dropFirst(min(count, versions.count)))
        // Rebuilt from what stays: indices renumbered in the order the versions first use them.
        var rebuilt = PlaylistVersionBook(playlistID: playlistID)
        for version in kept {
            var items: [PlaylistVersion.Item] = []
            for run in version.runs { items += pool[run[0]..<run[0] + run[1]] }
            rebuilt.add(
                PlaylistVersion(
                    snapshotID: version.summary.snapshotID, seenAt: version.summary.seenAt,
                    metBy: version.summary.metBy, items: items))
        }
        self = rebuilt
    }

    /// Drops the oldest versions until at most `maxVersions` are left and the file is at most
    /// `maxBytes`; the newest always stays (the caller checks that it alone fits). The number dropped.
    @discardableResult
    package mutating func bound(maxVersions: Int, maxBytes: Int) -> Int {
        var dropped = 0
        if versions.count > max(maxVersions, 1) {
            dropped = versions.count - max(maxVersions, 1)
            dropOldest(dropped)
        }
        while versions.count > 1 && encode().count > maxBytes {
            // Roughly how many to drop at once, so a large book is not encoded once per version.
            let size = encode().count
            let excess = Double(size - maxBytes) / Double(max(size, 1))
            let step = max(1, min(versions.count - 1, Int(excess * Double(versions.count))))
            dropOldest(step)
            dropped += step
        }
        return dropped
    }

    // MARK: Bytes

    package func encode() -> [UInt8] {
        var bytes: [UInt8] = []
        let header: JSONValue = [
            "format": .string(Self.format), "version": .int(Self.formatVersion), "playlist_id": .string(playlistID),
            "pool": .int(pool.count), "versions": .int(versions.count),
            "oldest_seen_at": versions.first.map { JSONValue.double($0.summary.seenAt) } ?? .null,
            // So that whether a version is kept is known from the first line alone.
            "snapshots": .array(versions.map { .string($0.summary.snapshotID) }),
        ]
        header.serialize(into: &bytes)
        bytes.append(Self.newline)
        for item in pool {
            let line: JSONValue = .array([
                item.uri.map(JSONValue.string) ?? .null, item.addedAt.map(JSONValue.string) ?? .null,
                item.addedBy.map(JSONValue.string) ?? .null,
            ])
            line.serialize(into: &bytes)
            bytes.append(Self.newline)
        }
        for version in versions {
            let line: JSONValue = [
                "snapshot_id": .string(version.summary.snapshotID), "seen_at": .double(version.summary.seenAt),
                "met_by": .string(version.summary.metBy), "items_total": .int(version.summary.itemsTotal),
                "runs": .array(version.runs.map { .array($0.map(JSONValue.int)) }),
            ]
            line.serialize(into: &bytes)
            bytes.append(Self.newline)
        }
        let checksum = bytes.withUnsafeBytes { Self.fnv1a64($0) }
        let trailer: JSONValue = ["end": .int(1 + pool.count + versions.count), "fnv1a64": .string(Self.hex(checksum))]
        trailer.serialize(into: &bytes)
        bytes.append(Self.newline)
        return bytes
    }

    /// Why a file was not believed.
    struct Damage: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// The book in `data`, checked: complete, unchanged (checksum), this playlist's, a known
    /// format, and every version's runs inside the pool and adding up to its items_total.
    package static func decode(_ data: Data, playlistID: String) throws -> PlaylistVersionBook {
        let bytes = [UInt8](data)
        guard bytes.last == newline else { throw Damage(description: "it is cut short (no final newline)") }
        var trailerStart = bytes.count - 1
        while trailerStart > 0 && bytes[trailerStart - 1] != newline { trailerStart -= 1 }
        guard trailerStart > 0, let trailer = try? JSONValue.parse(bytes[trailerStart..<(bytes.count - 1)]),
            let lineCount = trailer["end"]?.intValue, let expected = trailer["fnv1a64"]?.stringValue
        else { throw Damage(description: "it is cut short (no trailer)") }
        let checksum = bytes.withUnsafeBytes { hex(fnv1a64(UnsafeRawBufferPointer(rebasing: $0[0..<trailerStart]))) }
        guard checksum == expected else { throw Damage(description: "its checksum does not match") }
        let lines = bytes[0..<trailerStart].split(separator: newline, omittingEmptySubsequences: false).dropLast()
        guard lines.count == lineCount, let first = lines.first, let header = try? JSONValue.parse(first) else {
            throw Damage(description: "its header is unreadable")
        }
        guard header["format"]?.stringValue == format, header["version"]?.intValue == formatVersion else {
            throw Damage(description: "it is not a version \(formatVersion) playlist versions file")
        }
        guard header["playlist_id"]?.stringValue == playlistID, let poolCount = header["pool"]?.intValue,
            let versionCount = header["versions"]?.intValue, poolCount >= 0, versionCount >= 0,
            poolCount + versionCount + 1 == lines.count
        else { throw Damage(description: "its header does not describe this playlist's file") }
        var book = PlaylistVersionBook(playlistID: playlistID)
        var lineIndex = lines.startIndex + 1
        for number in 0..<poolCount {
            guard let entry = try? JSONValue.parse(lines[lineIndex]), let fields = entry.arrayValue, fields.count == 3,
                fields.allSatisfy({ $0 == .null || $0.stringValue != nil })
            else { throw Damage(description: "its entry \(number + 1) is malformed") }
            let item = PlaylistVersion.Item(
                uri: fields[0].stringValue, addedAt: fields[1].stringValue, addedBy: fields[2].stringValue)
            guard book.index[item] == nil else { throw Damage(description: "its entry \(number + 1) is repeated") }
            book.index[item] = book.pool.count
            book.pool.append(item)
            lineIndex += 1
        }
        for number in 0..<versionCount {
            guard let line = try? JSONValue.parse(lines[lineIndex]),
                let snapshot = line["snapshot_id"]?.stringValue, !snapshot.isEmpty,
                let seenAt = line["seen_at"]?.doubleValue, seenAt.isFinite,
                let metBy = line["met_by"]?.stringValue, let total = line["items_total"]?.intValue,
                let runList = line["runs"]?.arrayValue
            else { throw Damage(description: "its version \(number + 1) is malformed") }
            var runs: [[Int]] = []
            var sum = 0
            for run in runList {
                guard let pair = run.arrayValue?.compactMap(\.intValue), pair.count == 2, pair[0] >= 0, pair[1] >= 1,
                    pair[0] <= poolCount - pair[1]
                else { throw Damage(description: "its version \(number + 1) names entries it does not hold") }
                runs.append(pair)
                sum += pair[1]
            }
            guard sum == total, !book.contains(snapshot: snapshot) else {
                throw Damage(description: "its version \(number + 1) does not add up")
            }
            book.versions.append(
                (Summary(snapshotID: snapshot, seenAt: seenAt, metBy: metBy, itemsTotal: total), runs))
            lineIndex += 1
        }
        guard header["snapshots"]?.arrayValue?.compactMap(\.stringValue) == book.summaries.map(\.snapshotID) else {
            throw Damage(description: "its header does not list its versions")
        }
        return book
    }

    /// The snapshot_ids kept, from the header line alone (nil when it is unreadable): a cheap
    /// check before a read's version is offered. Not proof: `decode` checks the whole file.
    package static func snapshots(_ data: Data) -> Set<String>? {
        guard let end = data.firstIndex(of: newline), let header = try? JSONValue.parse(data[data.startIndex..<end]),
            let list = header["snapshots"]?.arrayValue
        else { return nil }
        return Set(list.compactMap(\.stringValue))
    }

    /// Only the header line: the oldest version's time, for eviction across playlists (nil when
    /// unreadable).
    static func oldestSeenAt(_ data: Data) -> Double? {
        guard let end = data.firstIndex(of: newline), let header = try? JSONValue.parse(data[data.startIndex..<end])
        else { return nil }
        return header["oldest_seen_at"]?.doubleValue
    }

    static let newline = UInt8(ascii: "\n")

    /// FNV-1a, 64 bits: enough to notice a damaged file in a private directory.
    static func fnv1a64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
