import Foundation
import TestSupport
import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// The snapshot cache, in process: spotify-tracks and spotify-playlists against an in-process
/// fake-spotify, checking stdout byte for byte against uncached runs, stderr, exit statuses,
/// fake-spotify's request counters and the files in the cache directory. Two processes filling
/// one entry and the README's Makefile stay end to end (TracksCacheEndToEndTests).
@Suite(.tags(.medium)) struct TracksCacheCommandTests {
    static let small = "gen0000000000000000120"  // 3 pages
    static let mixed = "mix0000000000000000120"  // local files, episodes and null items

    /// A fake-spotify, a login and a private cache directory for one test.
    final class Setup {
        let fake: InProcessFake
        let cacheHome: String
        var extra: [String: String] = [:]

        init(_ arguments: [String] = []) async throws {
            fake = try InProcessFake(arguments)
            cacheHome = fake.home.url.appendingPathComponent("cache").path
            try await fake.seedLogin(expiresIn: 3600)
        }

        deinit { fake.stop() }

        /// The cache on, at its default size, unless `extra` says otherwise.
        var environment: [String: String] {
            ["XDG_CACHE_HOME": cacheHome, CachePolicy.sizeVariable: ""].merging(extra) { $1 }
        }
        var playlistsDirectory: String { cacheHome + "/spotify-toolkit/playlists" }
        func entryPath(_ id: String) -> String { playlistsDirectory + "/\(id).jsonl" }

        func tracks(_ arguments: [String], stdin: String = "") async throws -> ToolRun {
            try await fake.run("spotify-tracks", arguments, stdin: stdin, environment: environment)
        }

        func playlists(_ arguments: [String]) async throws -> ToolRun {
            try await fake.run("spotify-playlists", arguments, environment: environment)
        }

        /// Requests by route since the last call, then reset.
        func requests() async throws -> [String: Int] {
            let counters = try await fake.counters()
            try await fake.call("POST", "/_fake/reset-counters")
            var result: [String: Int] = [:]
            for (key, value) in counters["requests"]?.objectValue ?? [:] { result[key] = value.intValue ?? 0 }
            return result
        }

        func edit(_ id: String, position: Int = 0) async throws -> JSONValue {
            try await fake.call("POST", "/_fake/edit-playlist", form: [("id", id), ("position", String(position))])
        }
    }

    /// The playlist object: its snapshot_id with the first 100 entries, or the snapshot check.
    static let object = "GET /v1/playlists/{id}"
    static let items = "GET /v1/playlists/{id}/items"

    /// A fetch that fills the cache: the playlist object (snapshot, total and the first 100
    /// entries), the pages after those, and the snapshot check after them when there were any.
    static func filling(items count: Int) -> [String: Int] {
        count <= 100 ? [object: 1] : [object: 2, items: (count - 100 + 49) / 50]
    }

    /// A cached playlist that changed: the check by snapshot_id alone, then the fetch that fills
    /// the cache (one request more than without a copy, so a copy that is current costs a few
    /// bytes instead of the object's first page of entries).
    static func refilling(items count: Int) -> [String: Int] {
        filling(items: count).merging([object: 1]) { $0 + $1 }
    }

    @Test func reRunHitsWithOneRequestAndMissesForAnotherPlaylist() async throws {
        let setup = try await Setup()
        let first = try await setup.tracks([Self.small])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdoutLines.count == 120)
        #expect(try await setup.requests() == Self.filling(items: 120))

        let second = try await setup.tracks([Self.small])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == first.stdout)
        #expect(second.stderr == first.stderr)
        #expect(try await setup.requests() == [Self.object: 1])

        let uncached = try await setup.tracks(["--no-cache", Self.small])
        #expect(uncached.stdout == first.stdout)
        // The object, the page past its first 100, and the snapshot check that proves no edit
        // slipped in between, which --no-cache asks too.
        #expect(try await setup.requests() == [Self.object: 2, Self.items: 1])

        // Another playlist is a miss of its own, and the first one's entry stays.
        let other = try await setup.tracks(["gen0000000000000000051"])
        #expect(other.status == 0)
        #expect(other.stdoutLines.count == 51)
        #expect(try await setup.requests() == Self.filling(items: 51))
        #expect(FileManager.default.fileExists(atPath: setup.entryPath(Self.small)))
    }

    @Test func anEditBetweenRunsIsFetchedAtOnce() async throws {
        let setup = try await Setup()
        let before = try await setup.tracks([Self.small])
        _ = try await setup.requests()
        let edit = try await setup.edit(Self.small, position: 70)
        #expect(edit["edits"]?.intValue == 1)

        let after = try await setup.tracks([Self.small])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try await setup.requests() == Self.refilling(items: 120))
        #expect(after.stdout != before.stdout)
        #expect(after.stdoutLines[70].contains("\"name\":\"Track 71 (edit 1)\""))
        // The item not edited is as it was, but for the version its playlist was read at.
        let version = { (line: String) -> JSONValue in
            var record = (try? JSONValue.parse(line))?.objectValue ?? [:]
            if var playlist = record["playlist"]?.objectValue {
                playlist["snapshot_id"] = nil
                record["playlist"] = .object(playlist)
            }
            return .object(record)
        }
        #expect(version(after.stdoutLines[69]) == version(before.stdoutLines[69]))
        #expect(after.stdoutLines[69] != before.stdoutLines[69], "a new snapshot_id")
        let fresh = try await setup.tracks(["--no-cache", Self.small])
        #expect(after.stdout == fresh.stdout)
        _ = try await setup.requests()

        // The new version is what is cached now.
        #expect(try await setup.tracks([Self.small]).stdout == fresh.stdout)
        #expect(try await setup.requests() == [Self.object: 1])
    }

    @Test func aPipedRecordWithAMatchingSnapshotNeedsNoRequestAndAStaleOneIsChecked() async throws {
        let setup = try await Setup()
        let record = try await setup.playlists(["get", Self.small])
        #expect(record.status == 0, "\(record.stderr)")
        #expect(try JSONValue.parse(record.stdout)["snapshot_id"]?.stringValue?.isEmpty == false)
        let filled = try await setup.tracks([], stdin: record.stdout)
        #expect(filled.status == 0, "\(filled.stderr)")
        _ = try await setup.requests()

        let piped = try await setup.tracks([], stdin: record.stdout)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == filled.stdout)
        #expect(try await setup.requests() == [:])
        // A record given as an argument counts too.
        #expect(try await setup.tracks([record.stdout.trimmingCharacters(in: .newlines)]).stdout == filled.stdout)
        #expect(try await setup.requests() == [:])

        // The playlist changed since the record was printed: its snapshot_id no longer matches
        // what is cached after the edit is fetched, so the record's version is never trusted blindly.
        _ = try await setup.edit(Self.small)
        let stale = try await setup.tracks([], stdin: record.stdout)
        #expect(stale.status == 0, "\(stale.stderr)")
        // The cache still held the record's version: printed without a request (it is the
        // version the record names)...
        #expect(stale.stdout == filled.stdout)
        #expect(try await setup.requests() == [:])
        // ...while a plain re-run sees the new snapshot_id and fetches it.
        let current = try await setup.tracks([Self.small])
        #expect(current.stdout != filled.stdout)
        #expect(try await setup.requests() == Self.refilling(items: 120))
        // Now the old record is stale against the cache: one check, then the current version.
        let checked = try await setup.tracks([], stdin: record.stdout)
        #expect(checked.stdout == current.stdout)
        #expect(try await setup.requests() == [Self.object: 1])
    }

    @Test func offlineWithAndWithoutACachedCopy() async throws {
        let setup = try await Setup()
        let none = try await setup.tracks(["--offline", Self.small])
        #expect(none.status == 69)
        #expect(none.stdout.isEmpty)
        #expect(
            none.stderr
                == "spotify-tracks: playlist \(Self.small): --offline: nothing is cached for it; run once without --offline to keep a copy\n"
        )

        let online = try await setup.tracks([Self.small])
        _ = try await setup.requests()
        let offline = try await setup.tracks(["--offline", Self.small])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout == online.stdout)
        #expect(offline.stderr.hasPrefix("spotify-tracks: playlist \(Self.small): offline: printing the copy cached "))
        #expect(offline.stderr.contains(" s ago (snapshot_id AAAA"))
        #expect(try await setup.requests() == [:])

        // Cached copies belong to the account that fetched them: offline without a login prints nothing.
        let tokens = try #require(try setup.fake.store.load())
        try setup.fake.store.remove()
        let loggedOut = try await setup.tracks(["--offline", Self.small])
        #expect(loggedOut.status == 77 && loggedOut.stdout.isEmpty)
        #expect(loggedOut.stderr.contains("no one is logged in"))
        try setup.fake.store.save(tokens)

        // --raw needs Spotify's objects, which a records copy does not hold; liked songs are never cached.
        let raw = try await setup.tracks(["--offline", "--raw", Self.small])
        #expect(raw.status == 69)
        #expect(raw.stderr.contains("--offline: the cached copy holds track records only"))
        let liked = try await setup.tracks(["--offline", "--liked"])
        #expect(liked.status == 69)
        #expect(liked.stderr.contains("liked songs are never cached"))
        let both = try await setup.tracks(["--offline", "--no-cache", Self.small])
        #expect(both.status == 64)
        #expect(try await setup.requests() == [:])
    }

    @Test func unreachableSpotifySaysWhetherOfflineHasACopy() async throws {
        let setup = try await Setup()
        let online = try await setup.tracks([Self.small])
        #expect(online.status == 0)
        // Nothing listens on port 1: every request is refused (and retried, then given up).
        try setup.fake.bindLogin(apiBase: "http://127.0.0.1:1/v1")
        setup.extra["SPOTIFY_API_BASE"] = "http://127.0.0.1:1/v1"
        let down = try await setup.tracks([Self.small])
        #expect(down.status == 69)
        #expect(down.stdout.isEmpty)  // no silent fallback
        #expect(down.stderr.hasPrefix("spotify-tracks: cannot reach 127.0.0.1:1"))
        #expect(down.stderr.contains("; a copy of playlist \(Self.small) cached "))
        #expect(down.stderr.hasSuffix(" ago exists: --offline prints it\n"))
        #expect(down.stderr.split(separator: "\n").count == 1)

        let uncachedPlaylist = try await setup.tracks(["gen0000000000000000051"])
        #expect(uncachedPlaylist.status == 69)
        #expect(!uncachedPlaylist.stderr.contains("--offline"))
    }

    @Test func aDamagedEntryIsIgnoredRefetchedAndReplaced() async throws {
        let setup = try await Setup()
        let clean = try await setup.tracks([Self.small])
        let path = setup.entryPath(Self.small)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try await setup.requests()

        let damages: [(String, Data)] = [
            ("cut short", good.prefix(good.count / 2)),
            ("cut before the trailer", good.prefix(good.count - 30)),
            (
                "one byte changed",
                {
                    var d = good
                    d[d.count / 3] ^= 0x01
                    return d
                }()
            ),
            ("empty", Data()),
            ("garbage", Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131) })),
            ("another playlist's entry", good.replacingOccurrences(of: Self.small, with: "gen0000000000000000121")),
        ]
        for (what, data) in damages {
            try write(data, to: path)
            let rerun = try await setup.tracks([Self.small])
            #expect(rerun.status == 0, "\(what): \(rerun.stderr)")
            #expect(rerun.stdout == clean.stdout, "\(what)")
            #expect(
                rerun.stderr.hasPrefix("spotify-tracks: ignoring the cached copy \(path): "), "\(what): \(rerun.stderr)"
            )
            #expect(try await setup.requests() == Self.filling(items: 120), "\(what)")
            // Replaced by a good entry.
            #expect(try await setup.tracks([Self.small]).stdout == clean.stdout)
            #expect(try await setup.requests() == [Self.object: 1], "\(what)")
        }
    }

    @Test func leastRecentlyUsedEntriesAreEvictedAtTheSizeBound() async throws {
        let setup = try await Setup()
        _ = try await setup.tracks([Self.small])
        let entryBytes = try FileManager.default.attributesOfItem(atPath: setup.entryPath(Self.small))[.size] as! Int
        // Room for two entries of this size, not three.
        setup.extra["SPOTIFY_TOOLKIT_CACHE_SIZE"] = String(entryBytes * 5 / 2)
        let (a, b, c) = ("gen0000000000000000121", "gen0000000000000000122", "gen0000000000000000123")
        _ = try await setup.tracks([a])
        _ = try await setup.tracks([b])
        #expect(!FileManager.default.fileExists(atPath: setup.entryPath(Self.small)))  // the oldest went
        _ = try await setup.requests()
        _ = try await setup.tracks([a])  // a hit: a is now more recently used than b
        #expect(try await setup.requests() == [Self.object: 1])
        _ = try await setup.tracks([c])
        #expect(FileManager.default.fileExists(atPath: setup.entryPath(a)))
        #expect(!FileManager.default.fileExists(atPath: setup.entryPath(b)))
        #expect(FileManager.default.fileExists(atPath: setup.entryPath(c)))
        _ = try await setup.requests()
        _ = try await setup.tracks([b])
        #expect(try await setup.requests() == Self.filling(items: 120))

        // A playlist bigger than the whole bound is printed but never kept.
        let big = try await setup.tracks(["gen0000000000000001000"])
        #expect(big.status == 0)
        #expect(big.stdoutLines.count == 1000)
        #expect(!FileManager.default.fileExists(atPath: setup.entryPath("gen0000000000000001000")))
    }

    @Test func cachedOutputIsIdenticalToUncachedForEveryOption() async throws {
        let setup = try await Setup()
        let options: [[String]] = [[], ["--no-local"], ["--tracks-only"], ["--no-local", "--tracks-only"]]
        _ = try await setup.tracks([Self.mixed])  // fills a records entry
        _ = try await setup.requests()
        for option in options {
            let cached = try await setup.tracks(option + [Self.mixed])
            #expect(try await setup.requests() == [Self.object: 1], "\(option)")
            let uncached = try await setup.tracks(["--no-cache"] + option + [Self.mixed])
            _ = try await setup.requests()
            #expect(cached.status == 0 && uncached.status == 0)
            #expect(cached.stdout == uncached.stdout, "\(option)")
            #expect(cached.stderr == uncached.stderr, "\(option)")  // the null items are counted alike
        }
        #expect(try await setup.tracks(["--no-local", "--tracks-only", Self.mixed]).stdoutLines.count == 84)

        // --raw wants Spotify's objects: a records entry cannot serve it, so the first --raw run
        // fetches them (and keeps them); from then on every option is served from that entry.
        let rawUncached = try await setup.tracks(["--no-cache", "--raw", Self.mixed])
        _ = try await setup.requests()
        let rawFirst = try await setup.tracks(["--raw", Self.mixed])
        #expect(try await setup.requests() == Self.filling(items: 120))
        #expect(rawFirst.stdout == rawUncached.stdout)
        let rawCached = try await setup.tracks(["--raw", Self.mixed])
        #expect(try await setup.requests() == [Self.object: 1])
        #expect(rawCached.stdout == rawUncached.stdout)
        #expect(rawCached.stdoutLines.count == 120)
        for option in options {
            let cached = try await setup.tracks(option + [Self.mixed])
            #expect(try await setup.requests() == [Self.object: 1], "\(option)")
            let uncached = try await setup.tracks(["--no-cache"] + option + [Self.mixed])
            _ = try await setup.requests()
            #expect(cached.stdout == uncached.stdout, "full entry, \(option)")
        }
        // The table on a terminal too.
        setup.extra["SPOTIFY_TOOLKIT_FORCE_TTY"] = "1"
        setup.extra["COLUMNS"] = "100"
        let table = try await setup.tracks([Self.mixed])
        #expect(table.stdout == (try await setup.tracks(["--no-cache", Self.mixed])).stdout)
        #expect(table.stdout.hasPrefix("Mixed Bag  spotify:playlist:\(Self.mixed)\n"), "the name heads it, cached too")
    }

    @Test func playlistsGetDurationUsesTheCache() async throws {
        let setup = try await Setup()
        let uncached = try await setup.playlists(["get", "--duration", "--no-cache", Self.small])
        #expect(uncached.status == 0, "\(uncached.stderr)")
        // The record, the object with its first 100 entries, the page after them, the snapshot check.
        #expect(try await setup.requests() == [Self.object: 3, Self.items: 1], "with the snapshot check (D3)")
        let duration = try JSONValue.parse(uncached.stdout)["duration_ms"]?.intValue
        #expect((duration ?? 0) > 0)

        // The first run fills the cache (metadata, pages, the snapshot again); later ones only ask for the metadata.
        let filled = try await setup.playlists(["get", "--duration", Self.small])
        #expect(filled.stdout == uncached.stdout)
        #expect(try await setup.requests() == [Self.object: 3, Self.items: 1])
        let cached = try await setup.playlists(["get", "--duration", Self.small])
        #expect(cached.stdout == uncached.stdout)
        #expect(try await setup.requests() == [Self.object: 1])
        // spotify-tracks shares the entry.
        _ = try await setup.tracks([Self.small])
        #expect(try await setup.requests() == [Self.object: 1])

        _ = try await setup.edit(Self.small)
        let edited = try await setup.playlists(["get", "--duration", Self.small])
        #expect(try JSONValue.parse(edited.stdout)["duration_ms"]?.intValue == duration.map { $0 + 1000 })
        #expect(try await setup.requests() == [Self.object: 3, Self.items: 1])
    }

    @Test func cacheFilesFollowTheTokenStoreRules() async throws {
        let setup = try await Setup()
        _ = try await setup.tracks([Self.small])
        let path = setup.entryPath(Self.small)
        #expect(try mode(path) == 0o600)
        #expect(try mode(setup.playlistsDirectory) == 0o700)
        #expect(try mode(setup.cacheHome + "/spotify-toolkit") == 0o700)

        // Widened by someone: refused like the token store would be, with the fix.
        chmod(path, 0o666)
        let refused = try await setup.tracks([Self.small])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("refusing to use \(path)"))
        #expect(refused.stderr.contains("chmod 600 \(path)"))
        chmod(path, 0o600)

        // A symbolic link in place of an entry is never followed.
        try FileManager.default.removeItem(atPath: path)
        let target = setup.fake.home.url.appendingPathComponent("elsewhere").path
        try write(Data("x".utf8), to: target)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let linked = try await setup.tracks([Self.small])
        #expect(linked.status == 78)
        #expect(linked.stderr.contains("symbolic link"))
    }

    // MARK: Helpers

    func write(_ data: Data, to path: String) throws {
        try data.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }
}

extension Data {
    func replacingOccurrences(of text: String, with replacement: String) -> Data {
        Data(String(decoding: self, as: UTF8.self).replacingOccurrences(of: text, with: replacement).utf8)
    }
}
