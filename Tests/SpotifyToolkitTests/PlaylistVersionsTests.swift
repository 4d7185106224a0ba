import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// Items of a made-up playlist: `count` entries from `first`, each its own URI and date.
func versionItems(_ range: Range<Int>, by user: String = "owner") -> [PlaylistVersion.Item] {
    range.map { index in
        PlaylistVersion.Item(
            uri: "spotify:track:" + String(repeating: "0", count: 22 - String(index).count) + String(index),
            addedAt: isoTimestamp(1_700_000_000 + Double(index) * 60), addedBy: user)
    }
}

func version(_ snapshot: String, _ items: [PlaylistVersion.Item], at seenAt: Double = 0) -> PlaylistVersion {
    PlaylistVersion(snapshotID: snapshot, seenAt: seenAt, metBy: "read", items: items)
}

/// The versions file, pure: shared storage, bounds, and every way a file can be damaged.
@Suite(.tags(.small)) struct PlaylistVersionBookTests {
    static let id = "gen0000000000000000300"

    @Test func versionsShareTheirItemsAndComeBackWhole() throws {
        var book = PlaylistVersionBook(playlistID: Self.id)
        let first = versionItems(0..<300)
        var second = first.enumerated().filter { $0.offset % 10 != 7 }.map(\.element)
        second.insert(second.remove(at: 0), at: 99)
        let addedA = book.add(version("A", first))
        let addedB = book.add(version("B", second))
        let addedAgain = book.add(version("B", first))
        #expect(addedA && addedB)
        #expect(!addedAgain, "a snapshot_id met again is not a new version")
        #expect(book.poolCount == 300, "the second version adds no item line")
        let decoded = try PlaylistVersionBook.decode(Data(book.encode()), playlistID: Self.id)
        #expect(decoded == book)
        #expect(decoded.version("A")?.items == first)
        #expect(decoded.version("B")?.items == second)
        #expect(decoded.summaries.map(\.itemsTotal) == [300, 270])
        // Shared storage: two versions cost little more than one.
        var one = PlaylistVersionBook(playlistID: Self.id)
        one.add(version("A", first))
        #expect(book.encode().count < one.encode().count + 1_000, "\(book.encode().count) vs \(one.encode().count)")
    }

    @Test func unavailableEntriesAndRepeatsAreKept() throws {
        var book = PlaylistVersionBook(playlistID: Self.id)
        let items =
            versionItems(0..<3) + [PlaylistVersion.Item(uri: nil, addedAt: nil, addedBy: nil)] + versionItems(0..<1)
        book.add(version("A", items))
        let decoded = try PlaylistVersionBook.decode(Data(book.encode()), playlistID: Self.id)
        #expect(decoded.version("A")?.items == items)
    }

    @Test func theOldestGoFirstPastTheCountAndTheBytes() {
        var book = PlaylistVersionBook(playlistID: Self.id)
        for number in 0..<12 { book.add(version("S\(number)", versionItems(number * 10..<number * 10 + 100))) }
        let dropped = book.bound(maxVersions: 5, maxBytes: 1 << 30)
        #expect(dropped == 7)
        #expect(book.summaries.map(\.snapshotID) == ["S7", "S8", "S9", "S10", "S11"])
        #expect(book.poolCount == 140, "items no version holds are dropped: \(book.poolCount)")
        #expect(book.version("S7")?.items == versionItems(70..<170))
        let size = book.encode().count
        book.bound(maxVersions: 100, maxBytes: size - 1)
        #expect(book.summaries.first?.snapshotID == "S8" && book.count == 4, "\(book.summaries.map(\.snapshotID))")
        #expect(book.encode().count <= size - 1)
        book.bound(maxVersions: 100, maxBytes: 10)
        #expect(book.summaries.map(\.snapshotID) == ["S11"], "the newest stays; the caller drops it")
    }

    @Test func aDamagedFileIsNeverBelieved() throws {
        var book = PlaylistVersionBook(playlistID: Self.id)
        book.add(version("A", versionItems(0..<20)))
        book.add(version("B", versionItems(5..<25)))
        let good = book.encode()
        var flipped = good
        flipped[good.count / 2] ^= 0x01
        var cases: [(String, [UInt8])] = [
            ("cut short", Array(good.dropLast(10))),
            ("no trailer", Array(good[...good.dropLast().lastIndex(of: 10)!])),
            ("flipped", flipped), ("empty", []), ("garbage", Array("not json\n".utf8)),
        ]
        // A run past the pool, with a checksum that matches: still refused.
        var forged = String(decoding: good, as: UTF8.self).replacingOccurrences(of: "[[5,20]]", with: "[[5,99]]")
        forged = Self.resealed(forged)
        cases.append(("forged run", Array(forged.utf8)))
        for (what, bytes) in cases {
            #expect(throws: PlaylistVersionBook.Damage.self, "\(what)") {
                try PlaylistVersionBook.decode(Data(bytes), playlistID: Self.id)
            }
        }
        #expect(throws: PlaylistVersionBook.Damage.self, "another playlist's file") {
            try PlaylistVersionBook.decode(Data(good), playlistID: "gen0000000000000000301")
        }
    }

    /// The text with its trailer's checksum made to match again.
    static func resealed(_ text: String) -> String {
        var lines = text.split(separator: "\n").map(String.init)
        lines.removeLast()
        let body = Array((lines.joined(separator: "\n") + "\n").utf8)
        let sum = body.withUnsafeBytes { PlaylistVersionBook.hex(PlaylistVersionBook.fnv1a64($0)) }
        return lines.joined(separator: "\n") + "\n{\"end\":\(lines.count),\"fnv1a64\":\"\(sum)\"}\n"
    }

    @Test func evictionInAllTakesTheOldestVersionAnywhereAndTheJustWrittenLast() {
        let files = [
            PlaylistVersions.StoredFile(playlistID: "a", bytes: 100, oldestSeenAt: 50),
            PlaylistVersions.StoredFile(playlistID: "b", bytes: 100, oldestSeenAt: 10),
            PlaylistVersions.StoredFile(playlistID: "c", bytes: 100, oldestSeenAt: 5),
        ]
        #expect(PlaylistVersions.nextEviction(files, totalBytes: 300, maxTotalBytes: 300, keeping: "c") == nil)
        #expect(
            PlaylistVersions.nextEviction(files, totalBytes: 300, maxTotalBytes: 299, keeping: "c")?.playlistID == "b")
        #expect(
            PlaylistVersions.nextEviction(files, totalBytes: 300, maxTotalBytes: 299, keeping: "a")?.playlistID == "c")
        let damaged = files + [PlaylistVersions.StoredFile(playlistID: "d", bytes: 5, damaged: true)]
        #expect(
            PlaylistVersions.nextEviction(damaged, totalBytes: 305, maxTotalBytes: 299, keeping: "a")?.damaged == true)
        #expect(
            PlaylistVersions.nextEviction([files[2]], totalBytes: 300, maxTotalBytes: 10, keeping: "c")?.playlistID
                == "c")
    }

    @Test func diffNamesTheEntriesEachChangeTouches() {
        let first = versionItems(0..<10)
        var second = first
        second.remove(at: 3)
        let added = PlaylistVersion.Item(
            uri: "spotify:track:NEW000000000000000000x", addedAt: "2026-11-28T00:00:00Z", addedBy: "x")
        second.insert(added, at: 5)
        second.append(second.remove(at: 0))
        let changes = VersionDiff.changes(from: first, to: second)
        let removes = changes.filter { if case .remove = $0.step { true } else { false } }
        #expect(removes.flatMap(\.entries) == [VersionDiff.Entry(item: first[3], position: 3)])
        let adds = changes.filter { if case .insert = $0.step { true } else { false } }
        #expect(adds.flatMap(\.entries).map(\.item) == [added])
        let moves = changes.filter { if case .move = $0.step { true } else { false } }
        #expect(moves.flatMap(\.entries).map(\.item) == [first[0]])
        // Carried out, the steps make the second version.
        var plan = PlaylistEditPlan(from: [], to: [])
        plan.steps = changes.map(\.step)
        #expect(plan.applied(to: first.map(\.uri), uri: { $0 }, make: { $0 }) == second.map(\.uri))
        #expect(VersionDiff.changes(from: first, to: first).isEmpty)
        #expect(VersionDiff.summary(changes, from: 10, to: 10) == "10 → 10 items: 1 removed, 1 added, 1 moved")
    }
}

/// The versions store on disk: files, locks, bounds in all, damage, concurrent writers.
@Suite(.tags(.medium)) struct PlaylistVersionStoreTests {
    static func ids(_ count: Int) -> [String] { (0..<count).map { generated(300 + $0) } }

    @Test func aVersionIsKeptOnceInAPrivateFile() throws {
        let home = try TemporaryDirectory()
        let store = try PlaylistVersions(
            environment: ToolEnvironment(["HOME": home.url.path, "XDG_DATA_HOME": home.url.path + "/data"]),
            clock: { 1_800_000_000 })
        let id = Self.ids(1)[0]
        #expect(try store.record(id, version("A", versionItems(0..<50))))
        #expect(try !store.record(id, version("A", versionItems(0..<50))), "met again: not a new version")
        #expect(store.path(of: id) == home.url.path + "/data/spotify-toolkit/playlist-versions/\(id).jsonl")
        var info = stat()
        #expect(lstat(store.path(of: id), &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(lstat(store.directory.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(try store.book(id).count == 1)
        #expect(store.contains(id, snapshot: "A") && !store.contains(id, snapshot: "B"))
        // Not a playlist id: never a file name.
        #expect(try !store.record("../../x", version("A", [])))
        let off = PlaylistVersions(
            directory: home.url.path + "/off", maxVersions: 10, maxBytes: 1 << 20, maxTotalBytes: 0, clock: { 0 })
        #expect(try !off.record(id, version("A", [])) && !FileManager.default.fileExists(atPath: off.directory.path))
    }

    /// What killed writers left (stale temporaries) goes at a run's first write, for every
    /// playlist, and the directory is not listed again at each write after it; the directory's
    /// one lock is the only file besides the histories.
    @Test func staleTemporariesGoAtTheFirstWriteAndOneLockServesTheDirectory() throws {
        let home = try TemporaryDirectory()
        let directory = home.url.path + "/versions"
        let ids = Self.ids(3)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let stale = directory + "/\(ids[2]).jsonl.tmp-123-456"
        let fresh = directory + "/\(ids[2]).jsonl.tmp-789-012"
        for path in [stale, fresh] { _ = FileManager.default.createFile(atPath: path, contents: Data(count: 10)) }
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stale)
        let store = PlaylistVersions(
            directory: directory, maxVersions: 10, maxBytes: 1 << 20, maxTotalBytes: 1 << 30, clock: { 0 })
        #expect(try store.record(ids[0], version("A", versionItems(0..<5))))
        #expect(!FileManager.default.fileExists(atPath: stale), "another playlist's stale temporary went too")
        #expect(FileManager.default.fileExists(atPath: fresh), "a live writer's (under an hour old) stays")
        // Planted after the run's sweep: left for the next run.
        let later = directory + "/\(ids[1]).jsonl.tmp-1-2"
        _ = FileManager.default.createFile(atPath: later, contents: Data(count: 10))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: later)
        #expect(try store.record(ids[1], version("B", versionItems(5..<10))))
        #expect(FileManager.default.fileExists(atPath: later))
        let next = PlaylistVersions(
            directory: directory, maxVersions: 10, maxBytes: 1 << 20, maxTotalBytes: 1 << 30, clock: { 0 })
        #expect(try next.record(ids[1], version("C", versionItems(10..<15))))
        #expect(!FileManager.default.fileExists(atPath: later))
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(
            names == [
                "\(ids[0]).jsonl", "\(ids[1]).jsonl", PlaylistVersions.lockName,
                fresh.split(separator: "/").last.map(String.init)!,
            ])
    }

    @Test func theBoundInAllTakesTheOldestVersionsOfAnyPlaylist() throws {
        let home = try TemporaryDirectory()
        let big = versionItems(0..<200)
        var probe = PlaylistVersionBook(playlistID: Self.ids(1)[0])
        probe.add(version("S", big))
        let one = probe.encode().count
        // Room for about three single-version playlists.
        let store = PlaylistVersions(
            directory: home.url.path + "/versions", maxVersions: 10, maxBytes: 1 << 20,
            maxTotalBytes: one * 3 + one / 2,
            clock: { 0 })
        // One store keeps on after an eviction too (it knows the sizes it wrote; it lists again after one).
        let ids = Self.ids(6)
        for (number, id) in ids.enumerated() {
            try store.record(
                id, version("S\(number)", versionItems(number * 1000..<number * 1000 + 200), at: Double(number)))
        }
        // The oldest playlists' only versions went.
        #expect(ids.prefix(3).allSatisfy { !FileManager.default.fileExists(atPath: store.path(of: $0)) })
        #expect(ids.dropFirst(3).allSatisfy { FileManager.default.fileExists(atPath: store.path(of: $0)) })
        let total = store.storedFiles(readingAges: false).reduce(0) { $0 + $1.bytes }
        #expect(total <= store.maxTotalBytes)
        // A playlist's own bound: the oldest of its versions go first.
        let small = PlaylistVersions(
            directory: home.url.path + "/small", maxVersions: 3, maxBytes: 1 << 20, maxTotalBytes: 1 << 30, clock: { 0 }
        )
        for number in 0..<5 { try small.record(ids[0], version("V\(number)", versionItems(number..<number + 20))) }
        #expect(try small.book(ids[0]).summaries.map(\.snapshotID) == ["V2", "V3", "V4"])
        // A version alone past a playlist's bound is not kept; the others stay.
        let tight = PlaylistVersions(
            directory: home.url.path + "/tight", maxVersions: 3, maxBytes: one + 100, maxTotalBytes: 1 << 30,
            clock: { 0 })
        #expect(try tight.record(ids[1], version("small", versionItems(0..<200))))
        #expect(try !tight.record(ids[1], version("huge", versionItems(0..<2000))))
        #expect(try tight.book(ids[1]).summaries.map(\.snapshotID) == ["small"])
    }

    @Test func concurrentWritersEachKeepTheirVersion() throws {
        let home = try TemporaryDirectory()
        let store = PlaylistVersions(
            directory: home.url.path + "/versions", maxVersions: 100, maxBytes: 1 << 24, maxTotalBytes: 1 << 30,
            clock: { 0 })
        let id = Self.ids(1)[0]
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { number in
            do {
                try store.record(
                    id, version("W\(number)", versionItems(number * 5..<number * 5 + 300), at: Double(number)))
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let book = try store.book(id)
        #expect(Set(book.summaries.map(\.snapshotID)) == Set((0..<16).map { "W\($0)" }))
        for number in 0..<16 {
            #expect(book.version("W\(number)")?.items == versionItems(number * 5..<number * 5 + 300))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(!leftovers.contains { $0.contains(".tmp-") }, "\(leftovers)")
    }

    @Test func aDamagedFileIsSetAsideAndANewHistoryBegun() throws {
        let home = try TemporaryDirectory()
        let store = PlaylistVersions(
            directory: home.url.path + "/versions", maxVersions: 10, maxBytes: 1 << 20, maxTotalBytes: 1 << 30,
            clock: { 0 })
        let id = Self.ids(1)[0]
        try store.record(id, version("A", versionItems(0..<30)))
        let path = store.path(of: id)
        let damaged = Array(try Data(contentsOf: URL(fileURLWithPath: path)).dropLast(7))
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ToolError.self) { try store.book(id) }
        #expect(error?.exitCode == .dataError && error?.message.contains(path) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(damaged), "showing it changes nothing")
        let notes = Locked<[String]>([])
        try store.record(id, version("B", versionItems(0..<30))) { note in notes.withLock { $0.append(note) } }
        #expect(notes.withLock { $0 }.first?.contains("set aside") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.directory.file(id + ".damaged"))) == Data(damaged))
        #expect(try store.book(id).summaries.map(\.snapshotID) == ["B"])
        // A link planted where the file goes is refused, never followed.
        let other = Self.ids(2)[1]
        let target = home.url.path + "/elsewhere"
        try Data("x".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: store.path(of: other), withDestinationPath: target)
        #expect(throws: ToolError.self) { try store.record(other, version("C", versionItems(0..<3))) }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "x")
    }
}
