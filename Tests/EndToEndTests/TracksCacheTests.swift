import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The snapshot cache, end to end: the built spotify-tracks and spotify-playlists against a
/// spawned fake-spotify, checking stdout byte for byte against uncached runs, stderr, exit
/// statuses, fake-spotify's request counters and the files in the cache directory.
@Suite struct TracksCacheEndToEndTests {
    static let small = "gen0000000000000000120"  // 3 pages
    static let mixed = "mix0000000000000000120"  // local files, episodes and null items

    /// A fake-spotify, a login and a private cache directory for one test.
    final class Setup {
        let fake: FakeSpotifyProcess
        let cacheHome: String
        var extra: [String: String] = [:]

        init(_ arguments: [String] = []) throws {
            fake = try FakeSpotifyProcess(arguments)
            cacheHome = fake.home.url.appendingPathComponent("cache").path
            try fake.seedLogin(expiresIn: 3600)
        }

        /// The cache on, at its default size, unless `extra` says otherwise.
        var environment: [String: String] {
            fake.environment(["XDG_CACHE_HOME": cacheHome, CachePolicy.sizeVariable: ""].merging(extra) { $1 })
        }
        var playlistsDirectory: String { cacheHome + "/spotify-toolkit/playlists" }
        func entryPath(_ id: String) -> String { playlistsDirectory + "/\(id).jsonl" }

        func tracks(_ arguments: [String], stdin: String? = nil) throws -> ToolResult {
            try ToolProcess.run("spotify-tracks", arguments, stdin: stdin, environment: environment)
        }

        func playlists(_ arguments: [String]) throws -> ToolResult {
            try ToolProcess.run("spotify-playlists", arguments, environment: environment)
        }

        /// Requests by route since the last call, then reset.
        func requests() throws -> [String: Int] {
            let counters = try fake.counters()
            try fake.call("POST", "/_fake/reset-counters")
            var result: [String: Int] = [:]
            for (key, value) in counters["requests"]?.objectValue ?? [:] { result[key] = value.intValue ?? 0 }
            return result
        }

        func edit(_ id: String, position: Int = 0) throws -> JSONValue {
            try fake.call("POST", "/_fake/edit-playlist", form: [("id", id), ("position", String(position))])
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

    @Test func reRunHitsWithOneRequestAndMissesForAnotherPlaylist() throws {
        let setup = try Setup()
        let first = try setup.tracks([Self.small])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdoutLines.count == 120)
        #expect(try setup.requests() == Self.filling(items: 120))

        let second = try setup.tracks([Self.small])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == first.stdout)
        #expect(second.stderr == first.stderr)
        #expect(try setup.requests() == [Self.object: 1])

        let uncached = try setup.tracks(["--no-cache", Self.small])
        #expect(uncached.stdout == first.stdout)
        // The object, the page past its first 100, and the snapshot check that proves no edit
        // slipped in between (D3), which --no-cache asks too.
        #expect(try setup.requests() == [Self.object: 2, Self.items: 1])

        // Another playlist is a miss of its own, and the first one's entry stays.
        let other = try setup.tracks(["gen0000000000000000051"])
        #expect(other.status == 0)
        #expect(other.stdoutLines.count == 51)
        #expect(try setup.requests() == Self.filling(items: 51))
        #expect(FileManager.default.fileExists(atPath: setup.entryPath(Self.small)))
    }

    @Test func anEditBetweenRunsIsFetchedAtOnce() throws {
        let setup = try Setup()
        let before = try setup.tracks([Self.small])
        _ = try setup.requests()
        let edit = try setup.edit(Self.small, position: 70)
        #expect(edit["edits"]?.intValue == 1)

        let after = try setup.tracks([Self.small])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try setup.requests() == Self.filling(items: 120))
        #expect(after.stdout != before.stdout)
        #expect(after.stdoutLines[70].contains("\"name\":\"Track 71 (edit 1)\""))
        #expect(after.stdoutLines[69] == before.stdoutLines[69])
        let fresh = try setup.tracks(["--no-cache", Self.small])
        #expect(after.stdout == fresh.stdout)
        _ = try setup.requests()

        // The new version is what is cached now.
        #expect(try setup.tracks([Self.small]).stdout == fresh.stdout)
        #expect(try setup.requests() == [Self.object: 1])
    }

    @Test func aPipedRecordWithAMatchingSnapshotNeedsNoRequestAndAStaleOneIsChecked() throws {
        let setup = try Setup()
        let record = try setup.playlists(["get", Self.small])
        #expect(record.status == 0, "\(record.stderr)")
        #expect(try JSONValue.parse(record.stdout)["snapshot_id"]?.stringValue?.isEmpty == false)
        let filled = try setup.tracks([], stdin: record.stdout)
        #expect(filled.status == 0, "\(filled.stderr)")
        _ = try setup.requests()

        let piped = try setup.tracks([], stdin: record.stdout)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == filled.stdout)
        #expect(try setup.requests() == [:])
        // A record given as an argument counts too.
        #expect(try setup.tracks([record.stdout.trimmingCharacters(in: .newlines)]).stdout == filled.stdout)
        #expect(try setup.requests() == [:])

        // The playlist changed since the record was printed: its snapshot_id no longer matches
        // what is cached after the edit is fetched, so the record's version is never trusted blindly.
        _ = try setup.edit(Self.small)
        let stale = try setup.tracks([], stdin: record.stdout)
        #expect(stale.status == 0, "\(stale.stderr)")
        // The cache still held the record's version: printed without a request (it is the
        // version the record names)...
        #expect(stale.stdout == filled.stdout)
        #expect(try setup.requests() == [:])
        // ...while a plain re-run sees the new snapshot_id and fetches it.
        let current = try setup.tracks([Self.small])
        #expect(current.stdout != filled.stdout)
        #expect(try setup.requests() == Self.filling(items: 120))
        // Now the old record is stale against the cache: one check, then the current version.
        let checked = try setup.tracks([], stdin: record.stdout)
        #expect(checked.stdout == current.stdout)
        #expect(try setup.requests() == [Self.object: 1])
    }

    @Test func offlineWithAndWithoutACachedCopy() throws {
        let setup = try Setup()
        let none = try setup.tracks(["--offline", Self.small])
        #expect(none.status == 69)
        #expect(none.stdout.isEmpty)
        #expect(
            none.stderr
                == "spotify-tracks: playlist \(Self.small): --offline: nothing is cached for it; run once without --offline to keep a copy\n"
        )

        let online = try setup.tracks([Self.small])
        _ = try setup.requests()
        let offline = try setup.tracks(["--offline", Self.small])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout == online.stdout)
        #expect(offline.stderr.hasPrefix("spotify-tracks: playlist \(Self.small): offline: printing the copy cached "))
        #expect(offline.stderr.contains(" s ago (snapshot_id AAAA"))
        #expect(try setup.requests() == [:])

        // Cached copies belong to the account that fetched them: offline without a login prints nothing.
        let tokens = try #require(try setup.fake.store.load())
        try setup.fake.store.remove()
        let loggedOut = try setup.tracks(["--offline", Self.small])
        #expect(loggedOut.status == 77 && loggedOut.stdout.isEmpty)
        #expect(loggedOut.stderr.contains("no one is logged in"))
        try setup.fake.store.save(tokens)

        // --raw needs Spotify's objects, which a records copy does not hold; liked songs are never cached.
        let raw = try setup.tracks(["--offline", "--raw", Self.small])
        #expect(raw.status == 69)
        #expect(raw.stderr.contains("--offline: the cached copy holds track records only"))
        let liked = try setup.tracks(["--offline", "--liked"])
        #expect(liked.status == 69)
        #expect(liked.stderr.contains("liked songs are never cached"))
        let both = try setup.tracks(["--offline", "--no-cache", Self.small])
        #expect(both.status == 64)
        #expect(try setup.requests() == [:])
    }

    @Test func unreachableSpotifySaysWhetherOfflineHasACopy() throws {
        let setup = try Setup()
        let online = try setup.tracks([Self.small])
        #expect(online.status == 0)
        // Nothing listens on port 1: every request is refused (and retried, then given up).
        setup.extra["SPOTIFY_API_BASE"] = "http://127.0.0.1:1/v1"
        let down = try setup.tracks([Self.small])
        #expect(down.status == 69)
        #expect(down.stdout.isEmpty)  // no silent fallback
        #expect(down.stderr.hasPrefix("spotify-tracks: cannot reach 127.0.0.1:1"))
        #expect(down.stderr.contains("; a copy of playlist \(Self.small) cached "))
        #expect(down.stderr.hasSuffix(" ago exists: --offline prints it\n"))
        #expect(down.stderr.split(separator: "\n").count == 1)

        let uncachedPlaylist = try setup.tracks(["gen0000000000000000051"])
        #expect(uncachedPlaylist.status == 69)
        #expect(!uncachedPlaylist.stderr.contains("--offline"))
    }

    @Test func aDamagedEntryIsIgnoredRefetchedAndReplaced() throws {
        let setup = try Setup()
        let clean = try setup.tracks([Self.small])
        let path = setup.entryPath(Self.small)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try setup.requests()

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
            let rerun = try setup.tracks([Self.small])
            #expect(rerun.status == 0, "\(what): \(rerun.stderr)")
            #expect(rerun.stdout == clean.stdout, "\(what)")
            #expect(
                rerun.stderr.hasPrefix("spotify-tracks: ignoring the cached copy \(path): "), "\(what): \(rerun.stderr)"
            )
            #expect(try setup.requests() == Self.filling(items: 120), "\(what)")
            // Replaced by a good entry.
            #expect(try setup.tracks([Self.small]).stdout == clean.stdout)
            #expect(try setup.requests() == [Self.object: 1], "\(what)")
        }
    }

    @Test func leastRecentlyUsedEntriesAreEvictedAtTheSizeBound() throws {
        let setup = try Setup()
        _ = try setup.tracks([Self.small])
        let entryBytes = try FileManager.default.attributesOfItem(atPath: setup.entryPath(Self.small))[.size] as! Int
        // Room for two entries of this size, not three.
        setup.extra["SPOTIFY_TOOLKIT_CACHE_SIZE"] = String(entryBytes * 5 / 2)
        let (a, b, c) = ("gen0000000000000000121", "gen0000000000000000122", "gen0000000000000000123")
        _ = try setup.tracks([a])
        _ = try setup.tracks([b])
        #expect(!FileManager.default.fileExists(atPath: setup.entryPath(Self.small)))  // the oldest went
        _ = try setup.requests()
        _ = try setup.tracks([a])  // a hit: a is now more recently used than b
        #expect(try setup.requests() == [Self.object: 1])
        _ = try setup.tracks([c])
        #expect(FileManager.default.fileExists(atPath: setup.entryPath(a)))
        #expect(!FileManager.default.fileExists(atPath: setup.entryPath(b)))
        #expect(FileManager.default.fileExists(atPath: setup.entryPath(c)))
        _ = try setup.requests()
        _ = try setup.tracks([b])
        #expect(try setup.requests() == Self.filling(items: 120))

        // A playlist bigger than the whole bound is printed but never kept.
        let big = try setup.tracks(["gen0000000000000001000"])
        #expect(big.status == 0)
        #expect(big.stdoutLines.count == 1000)
        #expect(!FileManager.default.fileExists(atPath: setup.entryPath("gen0000000000000001000")))
    }

    @Test func twoProcessesFillingTheSameEntryAtOnce() throws {
        let setup = try Setup(["--latency-ms", "5"])
        let id = "gen0000000000000001000"
        let expected = try setup.tracks(["--no-cache", id])
        _ = try setup.requests()
        let results = LockedResults()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            let environment = setup.environment
            Thread.detachNewThread {
                results.append(Result { try ToolProcess.run("spotify-tracks", [id], environment: environment) })
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        for result in results.all {
            let run = try result.get()
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == expected.stdout)
        }
        // Both filled (neither found an entry), and what is left is one whole entry.
        #expect(try setup.requests()[Self.items] == 2 * 18)
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.playlistsDirectory)
        #expect(names == ["\(id).jsonl"])
        #expect(try setup.tracks([id]).stdout == expected.stdout)
        #expect(try setup.requests() == [Self.object: 1])
    }

    @Test func cachedOutputIsIdenticalToUncachedForEveryOption() throws {
        let setup = try Setup()
        let options: [[String]] = [[], ["--no-local"], ["--tracks-only"], ["--no-local", "--tracks-only"]]
        _ = try setup.tracks([Self.mixed])  // fills a records entry
        _ = try setup.requests()
        for option in options {
            let cached = try setup.tracks(option + [Self.mixed])
            #expect(try setup.requests() == [Self.object: 1], "\(option)")
            let uncached = try setup.tracks(["--no-cache"] + option + [Self.mixed])
            _ = try setup.requests()
            #expect(cached.status == 0 && uncached.status == 0)
            #expect(cached.stdout == uncached.stdout, "\(option)")
            #expect(cached.stderr == uncached.stderr, "\(option)")  // the null items are counted alike
        }
        #expect(try setup.tracks(["--no-local", "--tracks-only", Self.mixed]).stdoutLines.count == 84)

        // --raw wants Spotify's objects: a records entry cannot serve it, so the first --raw run
        // fetches them (and keeps them); from then on every option is served from that entry.
        let rawUncached = try setup.tracks(["--no-cache", "--raw", Self.mixed])
        _ = try setup.requests()
        let rawFirst = try setup.tracks(["--raw", Self.mixed])
        #expect(try setup.requests() == Self.filling(items: 120))
        #expect(rawFirst.stdout == rawUncached.stdout)
        let rawCached = try setup.tracks(["--raw", Self.mixed])
        #expect(try setup.requests() == [Self.object: 1])
        #expect(rawCached.stdout == rawUncached.stdout)
        #expect(rawCached.stdoutLines.count == 120)
        for option in options {
            let cached = try setup.tracks(option + [Self.mixed])
            #expect(try setup.requests() == [Self.object: 1], "\(option)")
            let uncached = try setup.tracks(["--no-cache"] + option + [Self.mixed])
            _ = try setup.requests()
            #expect(cached.stdout == uncached.stdout, "full entry, \(option)")
        }
        // The table on a terminal too.
        setup.extra["SPOTIFY_TOOLKIT_FORCE_TTY"] = "1"
        setup.extra["COLUMNS"] = "100"
        let table = try setup.tracks([Self.mixed])
        #expect(table.stdout == (try setup.tracks(["--no-cache", Self.mixed])).stdout)
        #expect(table.stdout.hasPrefix("spotify:playlist:\(Self.mixed)\n"))
    }

    @Test func playlistsGetDurationUsesTheCache() throws {
        let setup = try Setup()
        let uncached = try setup.playlists(["get", "--duration", "--no-cache", Self.small])
        #expect(uncached.status == 0, "\(uncached.stderr)")
        #expect(try setup.requests() == [Self.object: 2, Self.items: 3], "with the snapshot check (D3)")
        let duration = try JSONValue.parse(uncached.stdout)["duration_ms"]?.intValue
        #expect((duration ?? 0) > 0)

        // The first run fills the cache (metadata, pages, the snapshot again); later ones only ask for the metadata.
        let filled = try setup.playlists(["get", "--duration", Self.small])
        #expect(filled.stdout == uncached.stdout)
        #expect(try setup.requests() == [Self.object: 2, Self.items: 3])
        let cached = try setup.playlists(["get", "--duration", Self.small])
        #expect(cached.stdout == uncached.stdout)
        #expect(try setup.requests() == [Self.object: 1])
        // spotify-tracks shares the entry.
        _ = try setup.tracks([Self.small])
        #expect(try setup.requests() == [Self.object: 1])

        _ = try setup.edit(Self.small)
        let edited = try setup.playlists(["get", "--duration", Self.small])
        #expect(try JSONValue.parse(edited.stdout)["duration_ms"]?.intValue == duration.map { $0 + 1000 })
        #expect(try setup.requests() == [Self.object: 2, Self.items: 3])
    }

    @Test func cacheFilesFollowTheTokenStoreRules() throws {
        let setup = try Setup()
        _ = try setup.tracks([Self.small])
        let path = setup.entryPath(Self.small)
        #expect(try mode(path) == 0o600)
        #expect(try mode(setup.playlistsDirectory) == 0o700)
        #expect(try mode(setup.cacheHome + "/spotify-toolkit") == 0o700)

        // Widened by someone: refused like the token store would be, with the fix.
        chmod(path, 0o666)
        let refused = try setup.tracks([Self.small])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("refusing to use \(path)"))
        #expect(refused.stderr.contains("chmod 600 \(path)"))
        chmod(path, 0o600)

        // A symbolic link in place of an entry is never followed.
        try FileManager.default.removeItem(atPath: path)
        let target = setup.fake.home.url.appendingPathComponent("elsewhere").path
        try write(Data("x".utf8), to: target)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let linked = try setup.tracks([Self.small])
        #expect(linked.status == 78)
        #expect(linked.stderr.contains("symbolic link"))
    }

    @Test func readmeMakefileRebuildsTheReportOnlyWhenThePlaylistChanged() throws {
        for tool in ["make", "jq"] {
            #expect(
                FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"),
                "the README recipe needs \(tool) (.ci/run installs it)")
        }
        let setup = try Setup()
        let readme = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let recipe = try #require(Self.fencedBlock(in: readme, language: "make"), "README.md has no ```make block")
        let directory = setup.fake.home.url.appendingPathComponent("report").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try recipe.write(toFile: directory + "/Makefile", atomically: true, encoding: .utf8)
        var environment = setup.environment
        environment["PLAYLIST"] = Self.small
        func make() throws -> ToolResult {
            try ToolProcess.shell("cd '\(directory)' && make --no-print-directory", environment: environment)
        }
        let report = directory + "/report.txt"

        let first = try make()
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let built = try String(contentsOfFile: report, encoding: .utf8)
        #expect(built.contains("\"type\":\"song_count\""))
        let builtAt = try modified(report)
        _ = try setup.requests()

        let again = try make()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try modified(report) == builtAt)
        #expect(try String(contentsOfFile: report, encoding: .utf8) == built)
        #expect(try setup.requests() == [Self.object: 1])  // the record; spotify-tracks did not run

        _ = try setup.edit(Self.small)
        let rebuilt = try make()
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let changed = try String(contentsOfFile: report, encoding: .utf8)
        #expect(changed != built)
        // The first 100 came with the playlist object, so at most the page after them: songcount
        // stops reading at 1 h (18 songs), and spotify-tracks may end on EPIPE before it asks.
        #expect(try (setup.requests()[Self.items] ?? 0) <= 1)
    }

    // MARK: Helpers

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The first fenced block of `language` in a Markdown text.
    static func fencedBlock(in text: String, language: String) -> String? {
        guard let start = text.range(of: "```\(language)\n"),
            let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound]) + "\n"
    }

    func write(_ data: Data, to path: String) throws {
        try data.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    func modified(_ path: String) throws -> Date {
        (try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
    }
}

final class LockedResults: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var results: [Result<ToolResult, Error>] = []
    func append(_ result: Result<ToolResult, Error>) { lock.withLock { results.append(result) } }
    var all: [Result<ToolResult, Error>] { lock.withLock { results } }
}

extension Data {
    func replacingOccurrences(of text: String, with replacement: String) -> Data {
        Data(String(decoding: self, as: UTF8.self).replacingOccurrences(of: text, with: replacement).utf8)
    }
}
