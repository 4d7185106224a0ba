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
        #expect(P.evictions(files, maxBytes: 120).isEmpty)
        #expect(P.evictions(files, maxBytes: 119) == ["b"])
        #expect(P.evictions(files, maxBytes: 40) == ["b", "c"])
        // The entry just written goes last, even when it is the oldest by time.
        #expect(P.evictions(files, maxBytes: 40, keep: "b") == ["c", "a"])
        #expect(P.evictions(files, maxBytes: 39, keep: "b") == ["c", "a", "b"])
        #expect(P.evictions([], maxBytes: 0).isEmpty)
        // Ties: by name, so the order is stable.
        #expect(
            P.evictions(
                [P.StoredFile(name: "y", bytes: 5, lastUsed: 1), P.StoredFile(name: "x", bytes: 5, lastUsed: 1)],
                maxBytes: 5) == ["x"])
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
    static let entries: [JSONValue] = [
        ["added_at": "2025-01-01T00:00:00Z", "item": ["id": "a", "name": "Ä \"quoted\"\nline", "duration_ms": 1000]],
        ["added_at": .null, "item": .null],
        ["added_at": "2025-01-01T00:01:00Z", "track": ["id": .null, "is_local": true, "duration_ms": 2.5]],
    ]

    static func encoded(_ entries: [JSONValue] = entries, total: Int? = nil) -> Data {
        var body: [UInt8] = []
        for (position, entry) in entries.enumerated() {
            let kind = PlaylistEntry.kind(of: entry)
            CacheEntryFormat.appendEntry(
                entry, kind: kind, record: PlaylistEntry.record(entry, position: position, playlist: nil), to: &body)
        }
        let header = CacheEntryHeader(
            playlistID: id, snapshotID: "S1", view: .full, fetchedAt: 1_795_000_000.25, total: total ?? entries.count)
        return CacheEntryFormat.encode(header, body: body, count: entries.count)
    }

    @Test func roundTrip() throws {
        let data = Self.encoded()
        let validated = try CacheEntryFormat.validate(data, playlistID: Self.id)
        #expect(
            validated.header
                == CacheEntryHeader(
                    playlistID: Self.id, snapshotID: "S1", view: .full, fetchedAt: 1_795_000_000.25, total: 3))
        #expect(try CacheEntryFormat.entries(data, validated) == Self.entries)
        // The fast path: kinds, the records as spotify-tracks prints them, the entries as Spotify sent them.
        var lines: [(PlaylistEntry.Kind, String, String)] = []
        try CacheEntryFormat.forEachLine(data, validated) { kind, record, entry in
            lines.append((kind, String(decoding: record, as: UTF8.self), String(decoding: entry, as: UTF8.self)))
        }
        #expect(lines.map(\.0) == [.track, .unavailable, .local])
        #expect(
            lines.map(\.1)
                == Self.entries.enumerated().map { position, entry in
                    PlaylistEntry.record(entry, position: position, playlist: nil).map {
                        JSONValue.object($0).serialized()
                    } ?? ""
                })
        #expect(lines.map(\.2) == Self.entries.map { $0.serialized() })
        let empty = Self.encoded([])
        #expect(try CacheEntryFormat.entries(empty, CacheEntryFormat.validate(empty, playlistID: Self.id)).isEmpty)
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

    @Test func wrongPlaylistCountOrExtraLinesAreRefused() {
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Self.encoded(), playlistID: "gen0000000000000000004")
        }
        #expect(throws: CacheEntryFormat.Damage.self) {
            try CacheEntryFormat.validate(Self.encoded(total: 4), playlistID: Self.id)
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
        // Lines that are not KIND TAB RECORD TAB ENTRY, even under a matching checksum.
        for line in ["{\"a\":1}", "x\t{}\t{}", "t\t{}", "t\t{}\t{}\t{}", "u\t{}\t{}", "t\t\t{}", "t\t{}\t"] {
            let header = CacheEntryHeader(playlistID: Self.id, snapshotID: "S1", view: .records, fetchedAt: 1, total: 1)
            let forged = CacheEntryFormat.encode(header, body: Array((line + "\n").utf8), count: 1)
            #expect(throws: CacheEntryFormat.Damage.self, "\(line)") {
                try CacheEntryFormat.validate(forged, playlistID: Self.id)
            }
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

    static func store(_ cache: PlaylistCache, _ id: String, snapshot: String = "S1", entries: Int = 10) throws {
        var body: [UInt8] = []
        for index in 0..<entries {
            let entry: JSONValue = ["item": ["id": .int(index)]]
            CacheEntryFormat.appendEntry(
                entry, kind: .track, record: PlaylistEntry.record(entry, position: index, playlist: nil), to: &body)
        }
        try cache.store(
            CacheEntryHeader(
                playlistID: id, snapshotID: snapshot, view: .records, fetchedAt: cache.now, total: entries), body: body,
            count: entries)
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
        // Make 1 the most recently used, then a third entry pushes out 2.
        usleep(20_000)
        cache.touch("gen0000000000000000001")
        let stray = cache.directory.file("gen0000000000000000009.jsonl.tmp-1-2")
        #expect(FileManager.default.createFile(atPath: stray, contents: Data("x".utf8)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stray)
        // Not the cache's (R11: a planted link can lead it into someone's own files): never evicted.
        let foreign = cache.directory.file("keep1.jsonl")
        let foreignTemporary = cache.directory.file("notes.jsonl.tmp-1-2")
        for path in [foreign, foreignTemporary] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(count: size * 3)))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: path)
        }
        try Self.store(cache, "gen0000000000000000003")
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
